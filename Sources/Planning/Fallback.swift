// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// A way to speak words no phrase of their voice covers: the fallback clip, spelling with letter clips, the fallback
/// voice, units cut from the voice's takes. A voice's fallback mode names a chain of them (`FallbackChains.strategies(for:phrases:plansFallbacksAsClips:)`),
/// tried in order: each run goes to the first, and what a strategy declines goes to the next.
///
/// A strategy is made for one voice, with what it speaks with (the voice's fallback clip, its fallback voice), and
/// holds nothing across runs: what a request shares (take rotation, warnings, what has sounded) it reaches through
/// `FallbackOutput`. A new strategy is one new type, added to the chain of the modes that use it.
protocol FallbackStrategy: AnyObject {
    /// What the plan dump calls it: `clip`, `spell`, `voice`, `units`.
    var name: String { get }

    /// Speaks `run`: places its segments through `output` in order as it makes them, and hands any part it cannot
    /// speak to the next strategy (`output.decline(_:reason:)`) where that part stands, so that the run's order holds.
    /// A strategy that chooses a run's words one at a time places the first and leaves the rest to
    /// `output.continueLater(_:)`, so that the first plays while the rest are chosen.
    ///
    /// - Throws: `PlanningError.noFallbackClip` when the fallback clip must speak and the voice has none; what a
    ///   look-up throws.
    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws
}

/// What is left of a run that a strategy speaks a part at a time: the planner asks for the next part when the output
/// needs more than has been placed, and places nothing after the run until it is whole.
protocol FallbackRemainder: AnyObject {
    /// Speaks the next part of the run (a word, or the words one take says whole), placing it through the output the
    /// strategy was given; `true` once the run is spoken whole.
    ///
    /// - Throws: as `FallbackStrategy.speak(_:to:)`.
    func speakNext() throws -> Bool
}

/// A run of words no phrase of its voice covers, with what a fallback strategy needs to speak it: its tokens (each
/// with its place in the request and the punctuation after it), its voice and prosody, and its place in the sentence.
struct UncoveredRun {
    var tokens: [Token]
    /// The words as a person reads them: what the fallback stands for in the plan and the markers.
    var words: String
    /// UTF-16 offsets in the request, from the first token's start to the last's end.
    var sourceRange: Range<Int>
    /// Its voice (`Spoken.speaker`), context, speed and pitch.
    var spoken: Spoken
    /// Whether no words were spoken in its sentence before it.
    var startsSentence: Bool

    /// `tokens`, which are not empty, spoken as `spoken` says.
    init(tokens: [Token], spoken: Spoken, startsSentence: Bool) {
        let first = tokens.first!
        let last = tokens.last!
        self.tokens = tokens
        words = Tokenizer.displayText(tokens[...])
        sourceRange = first.sourceRange.lowerBound..<max(first.sourceRange.lowerBound, last.sourceRange.upperBound)
        self.spoken = spoken
        self.startsSentence = startsSentence
    }
}

/// Where a fallback strategy places what it makes, and what it shares with the rest of the request's plan.
struct FallbackOutput {
    fileprivate unowned let chains: FallbackChains
    /// The link of the voice's chain whose strategy is speaking.
    fileprivate let link: FallbackChain

    /// Places a segment, after those placed before it.
    func place(_ segment: PlanSegment) { chains.selection.place(segment) }

    /// A spoken segment with its voice's joins and `spoken`'s volume, speed and pitch (`Placement.segment`).
    func segment(
        _ kind: PlanSegment.Kind, frameCount: Int, text: String, _ sourceRange: Range<Int>, _ spoken: Spoken,
        pitchShift: Double = 0, fallback: PlanSegment.Fallback? = nil
    ) -> PlanSegment {
        chains.placement.segment(
            kind, frameCount: frameCount, text: text, sourceRange, spoken, pitchShift: pitchShift, fallback: fallback)
    }

    /// Leaves the rest of the run being spoken to `remainder`, which speaks it a part at a time when the output needs
    /// more; what is handed on meanwhile waits behind it.
    func continueLater(_ remainder: any FallbackRemainder) {
        precondition(chains.unfinished == nil, "one run at a time is spoken a part at a time")
        chains.unfinished = remainder
    }

    /// Hands `run` (the whole run or a part of it) to the next strategy of the chain.
    func decline(_ run: UncoveredRun, reason: String) throws {
        chains.trace?.record(.fallback, run.words, "\(link.strategy.name) declined: \(reason)")
        guard let rest = link.rest else {
            preconditionFailure("the last strategy of a fallback chain speaks whatever it is given")
        }
        try chains.speak(run, with: rest)
    }

    /// The index in `takes` of the take that plays now (`TakeRotation`).
    func choose(from takes: [ClipTake]) -> Int { chains.selection.rotation.choose(from: takes) }

    /// Whether nothing sounding has been placed in the request yet, so that its first audio waits for this run.
    var startsRequest: Bool { !chains.selection.hasPlacedSound }

    /// The request's cancellation, which stops the fallback voice inside a run.
    var cancellation: Cancellation { chains.cancellation }

    func warn(_ warning: String) { chains.warnings.warn(warning) }

    /// Notes what the strategy decided, for the plan dump.
    func note(_ run: UncoveredRun, _ decision: @autoclosure () -> String) {
        chains.trace?.record(.fallback, run.words, decision())
    }
}

/// A voice's fallback strategies in the order they are tried: a strategy, and the chain that takes what it declines.
/// A list of links rather than an array, so that a request makes no array type of strategies at run time.
final class FallbackChain {
    let strategy: any FallbackStrategy
    /// What takes the words `strategy` declines; `nil` after the last, which speaks whatever it is given.
    let rest: FallbackChain?

    init(_ strategy: any FallbackStrategy, then rest: FallbackChain? = nil) {
        self.strategy = strategy
        self.rest = rest
    }

    /// The strategies' names, in the order they are tried.
    var names: [String] { [strategy.name] + (rest?.names ?? []) }
}

/// The fourth stage: hands each phrase matched on to the take selection, and speaks each run of words no phrase
/// covers through its voice's chain of fallback strategies.
///
/// Holds each voice's chain for the request once its first run falls back; the strategies hold only what they speak
/// with, and nothing across runs. While a strategy speaks a run a part at a time, it holds the rest of that run and
/// the matches handed on behind it (a few at most: matching goes on only once the run is whole), and lets them go as
/// they are spoken.
final class FallbackChains {
    /// The rest of the run a strategy speaks a part at a time; `nil` when none is.
    fileprivate var unfinished: (any FallbackRemainder)?
    /// The matches handed on while `unfinished` is being spoken, in order.
    private var waiting: [(match: Match, spoken: Spoken)] = []

    /// Makes the chain of the voice at an index.
    private let makeChain: (Int) -> FallbackChain
    /// Each voice's chain, by voice index; made when the request's first run falls back, as most requests of a
    /// well-covered voice never do.
    private var chains: [FallbackChain]?
    private let voiceCount: Int
    fileprivate let selection: TakeChooser
    fileprivate let placement: Placement
    fileprivate let warnings: PlanWarnings
    fileprivate let trace: PlanTraceRecorder?
    fileprivate let cancellation: Cancellation

    /// - Parameter makeChain: the chain of the voice at an index, of `voiceCount`.
    init(
        voiceCount: Int, selection: TakeChooser, placement: Placement, warnings: PlanWarnings,
        trace: PlanTraceRecorder?, cancellation: Cancellation, makeChain: @escaping (Int) -> FallbackChain
    ) {
        self.voiceCount = voiceCount
        self.makeChain = makeChain
        self.selection = selection
        self.placement = placement
        self.warnings = warnings
        self.trace = trace
        self.cancellation = cancellation
    }

    /// The strategies a voice's fallback mode tries, in order; every chain ends in one that speaks whatever it is
    /// given (or fails for want of a fallback clip). A plan made only to find what falls back plans the clip.
    ///
    /// - Parameter phrases: the voice's phrase look-ups, which the phrase matching has begun to ask before any of its
    ///   words fall back.
    static func strategies<Lookup>(
        for voice: PlannerVoice<Lookup>, phrases: any PhraseLookup, plansFallbacksAsClips: Bool
    ) -> FallbackChain {
        let clip = FallbackClip(voice: voice.voice.identifier, takes: voice.fallbacks)
        switch plansFallbacksAsClips ? .clip : voice.voice.fallbackMode {
        case .clip: return FallbackChain(clip)
        case .spell: return FallbackChain(Spelling(clip: clip, letters: phrases))
        case .voice, .units:
            let speech = FallbackSpeech(
                voice: voice.voice.identifier, speaker: voice.fallbackSpeaker,
                crossfadeFrames: voice.voice.joins.crossfadeFrames)
            let chain = FallbackChain(speech, then: FallbackChain(clip))
            guard voice.voice.fallbackMode == .units else { return chain }
            return FallbackChain(UnitsFallback(voice: voice.voice.identifier, units: voice.units), then: chain)
        }
    }

    /// Whether a run is being spoken a part at a time: nothing new is matched until `speakOn()` has spoken it whole.
    var isSpeakingRun: Bool { unfinished != nil }

    /// Speaks the next part of the run being spoken a part at a time, and once it is whole, hands on what waited
    /// behind it.
    ///
    /// - Throws: as `take(_:_:)`.
    func speakOn() throws {
        if let run = unfinished, try run.speakNext() { unfinished = nil }
        while unfinished == nil, !waiting.isEmpty {
            let next = waiting.removeFirst()
            try take(next.match, next.spoken)
        }
    }

    /// Hands `match` on: a phrase to the take selection, the first of its takes standing in until one is chosen;
    /// words no phrase covers to the first strategy of their voice's chain. While a run is spoken a part at a time,
    /// the match waits behind it.
    func take(_ match: Match, _ spoken: Spoken) throws {
        guard unfinished == nil else {
            waiting.append((match, spoken))
            return
        }
        guard let first = match.tokens.first, let last = match.tokens.last else { return }
        guard match.takes.isEmpty else {
            let sourceRange =
                first.sourceRange.lowerBound..<max(first.sourceRange.lowerBound, last.sourceRange.upperBound)
            selection.placePhrase(
                placement.segment(
                    .phrase(match.takes[0]), frameCount: match.takes[0].frameCount, text: match.words, sourceRange,
                    spoken),
                takes: match.takes, punctuation: last.punctuationAfter)
            return
        }
        let run = UncoveredRun(tokens: match.tokens, spoken: spoken, startsSentence: !selection.hasSpokenInSentence)
        try speak(run, with: chain(for: run.spoken.speaker))
    }

    /// The chain of the voice at `voice`.
    func chain(for voice: Int) -> FallbackChain {
        if chains == nil { chains = (0..<voiceCount).map(makeChain) }
        return chains![voice]
    }

    /// Speaks `run` with the first strategy of `chain`.
    fileprivate func speak(_ run: UncoveredRun, with chain: FallbackChain) throws {
        try chain.strategy.speak(run, to: FallbackOutput(chains: self, link: chain))
    }
}
