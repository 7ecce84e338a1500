import SSML
import SpeechCore
import Tokens
import Verbalization

/// Which take of a phrase plays.
public enum TakeChoice: String, Sendable, CaseIterable {
    /// The takes that fit their places best and join most smoothly, chosen a sentence at a time
    /// (`TakeSelector`).
    case best
    /// The n-th time a phrase is spoken in a request it plays take n (round the takes, first imported first), so
    /// "no, no, no" is three takes; the same request always plays the same takes.
    case rotate
    /// Always the first imported take.
    case first
}

/// A voice as the planner sees it: who it is, how to look its phrases up, and what speaks the words no clip covers.
public struct PlannerVoice<Lookup: PhraseLookup> {
    public var voice: VoiceSettings
    public var lookup: Lookup
    /// The takes of the fallback clip, first imported first; none makes a fallback the clip must speak an error.
    public var fallbacks: [ClipTake]
    /// What speaks the words no clip covers when the voice's fallback mode is `voice`; without one, or when it cannot
    /// speak, the fallback clip does, with a warning.
    public var fallbackSpeaker: (any FallbackSpeaker)?

    public init(
        voice: VoiceSettings, lookup: Lookup, fallbacks: [ClipTake], fallbackSpeaker: (any FallbackSpeaker)? = nil
    ) {
        self.voice = voice
        self.lookup = lookup
        self.fallbacks = fallbacks
        self.fallbackSpeaker = fallbackSpeaker
    }
}

/// Turns SSML events into a render plan: a voice per text run, tokens, greedy longest match, fallbacks, silences,
/// each with the speed, pitch and volume it is spoken at.
public struct Planner<Lookup: PhraseLookup> {
    /// The pack's voices, in the pack's order.
    public let voices: [PlannerVoice<Lookup>]
    /// Each voice's look-ups, shared by the plans of this planner and its copies (`RememberedLookup`).
    let rememberedLookups: [RememberedLookup<Lookup>]
    /// The index in `voices` of the voice that speaks where the request names none.
    public var startingVoice: Int
    /// Which `<audio>` files may play.
    public var audioSandbox: AudioSandbox
    public var takeChoice: TakeChoice
    /// Plans every fallback as the fallback clip, whatever the voice's mode: for a plan made only to find the words
    /// that fall back (coverage, `--strict`'s first pass), which then speaks nothing.
    public var plansFallbacksAsClips = false
    /// Holds every phrase until its place is known, so that each gets its place (`PlanSegment.selection`) even with one
    /// take: for coverage, which lists the places no take was recorded for.
    public var placesEveryPhrase = false

    /// - Parameter startingVoice: an identifier in `voices`; the first voice when `nil` or not found.
    public init(
        voices: [PlannerVoice<Lookup>], startingVoice: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .best
    ) {
        precondition(!voices.isEmpty, "a planner needs at least one voice")
        self.voices = voices
        rememberedLookups = voices.map { RememberedLookup($0.lookup) }
        self.startingVoice = voices.firstIndex { $0.voice.identifier == startingVoice } ?? 0
        self.audioSandbox = audioSandbox
        self.takeChoice = takeChoice
    }

    /// The whole plan of a read document, collected: for tests and tools; rendering pulls from `stream(_:)`.
    ///
    /// - Throws: `PlanningError.noFallbackClip` when words need a fallback their voice does not have;
    ///   whatever a look-up throws.
    public func plan(_ document: SSMLDocument) throws -> RenderPlan { try stream(document).collect() }

    /// The plan of a read document, made as it is pulled.
    public func stream(_ document: SSMLDocument) -> PlanStream<Lookup> {
        var events = document.events.makeIterator()
        return PlanStream(planner: self, warnings: document.warnings.map(\.description)) { events.next() }
    }

    /// The plan of plain text read a piece at a time, spoken in `context`, in the sentences the whole text has.
    public func stream(_ text: PlainTextStream, context: SpeechContext, isLenient: Bool) -> PlanStream<Lookup> {
        PlanStream(planner: self) { try text.nextEvent(context: context, isLenient: isLenient) }
    }

    /// The plan of a request whose events are read as the plan is pulled; the reader's warnings come with them.
    public func stream(_ events: SSMLEventStream) -> PlanStream<Lookup> {
        PlanStream(
            planner: self, warnings: [], textWindowBytes: PlanStream<Lookup>.defaultTextWindowBytes,
            events: { try events.next() }, eventWarnings: { events.nextWarning()?.description })
    }
}

/// A request's plan, made as the renderer pulls it: each pull plans events until a segment is placed.
///
/// A phrase never spans two text runs, so it never spans an element's start or end.
public final class PlanStream<Lookup: PhraseLookup> {
    private let planner: Planner<Lookup>
    private var events: () throws -> SSMLEvent?
    private let eventWarnings: () -> String?
    private var timeline = Timeline()
    private var isFinished = false
    private var warnings = Queue<String>()
    private var warned: Set<String> = []
    private var isPastWarningLimit = false
    /// How often each phrase (by its first take) has been spoken so far, for take rotation.
    private var occurrences: [ClipTake: Int] = [:]
    /// The segments from the first phrase with a choice of takes whose take is not chosen yet on, held until the
    /// sentence ends or `selectionLookahead` phrases follow it, so that their takes are chosen together.
    private var held: [HeldSegment] = []
    private var heldPhraseCount = 0
    /// Whether words have been spoken in the current sentence, so that the next phrase is not its first.
    private var hasSpokenInSentence = false
    /// The take of the last clip placed, while nothing else has sounded after it: what the next phrase joins.
    private var lastPlacedTake: ClipTake?
    /// Whether a clip, speech or a silence of some length has been placed, so that the request's first audio no longer
    /// waits for what comes next.
    private var hasPlacedSound = false
    /// Numbers read as words so far, by language and digits: a long text says the same numbers again.
    private var numberWords: [String: [Token]?] = [:]
    /// How many numbers are remembered at most, so that a text of endless different numbers stays small.
    private static var rememberedNumbers: Int { 4_096 }
    /// Each voice's look-ups, by voice index, once this plan has asked its first: a long text, and a long-lived
    /// reader's requests, ask for the same phrases again and again.
    private var lookups: [RememberedLookup<Lookup>?]
    /// The text run being matched, a window of its tokens at a time.
    private var text: TextCursor?
    /// Raised to stop the request; the fallback voice stops inside a phrase when it is. A renderer of the stream
    /// shares it.
    public let cancellation = Cancellation()
    /// How much of a run's text is read into tokens at a time (UTF-8 bytes; a cut waits for a space).
    let textWindowBytes: Int

    /// - Parameter events: the request's events in order, `nil` at the end.
    public convenience init(
        planner: Planner<Lookup>, warnings: [String] = [], events: @escaping () throws -> SSMLEvent?
    ) {
        self.init(planner: planner, warnings: warnings, textWindowBytes: Self.defaultTextWindowBytes, events: events)
    }

    static var defaultTextWindowBytes: Int { 8_192 }

    /// - Parameters:
    ///   - textWindowBytes: how much text is read into tokens at a time; tests make it small to put phrases
    ///     across the cuts.
    ///   - eventWarnings: the warnings of the events pulled so far, each once, `nil` when there are no more.
    init(
        planner: Planner<Lookup>, warnings: [String], textWindowBytes: Int,
        events: @escaping () throws -> SSMLEvent?, eventWarnings: @escaping () -> String? = { nil }
    ) {
        precondition(textWindowBytes > 0, "a text window holds at least one byte")
        self.planner = planner
        self.lookups = Array(repeating: nil, count: planner.voices.count)
        self.textWindowBytes = textWindowBytes
        self.events = events
        self.eventWarnings = eventWarnings
        for warning in warnings { warn(warning) }
    }

    /// The identifier of the voice the request starts with.
    public var voice: String { planner.voices[planner.startingVoice].voice.identifier }

    /// The next segment placed in the output; `nil` at the end of the request.
    ///
    /// - Throws: `PlanningError.noFallbackClip`; what the event source or a look-up throws.
    public func nextSegment() throws -> TimedSegment? {
        while true {
            if let segment = timeline.nextSegment() { return segment }
            if isFinished { return nil }
            if text != nil, try matchText() { continue }
            // No run is being matched, or the one that is goes on in the next event.
            let event = try events()
            while let warning = eventWarnings() { warn(warning) }
            if case .text(let run) = event, text != nil {
                text!.append(run)
                continue
            }
            try finishText()
            if let event {
                try plan(event)
            } else {
                endSentence()
                timeline.finish()
                isFinished = true
            }
        }
    }

    /// The next complete marker (see `Timeline.nextMarker()`).
    public func nextMarker() -> IndexedMarker? { timeline.nextMarker() }

    /// Plans the rest of the request and collects it: its segments, its markers in frame order, its warnings.
    ///
    /// - Throws: what `nextSegment()` throws.
    public func collect() throws -> RenderPlan {
        var segments: [TimedSegment] = []
        var markers = MarkerSequence()
        while let segment = try nextSegment() { segments.append(segment.settled()) }
        while let marker = nextMarker() { markers.add(marker) }
        var warnings: [String] = []
        while let warning = nextWarning() { warnings.append(warning) }
        return RenderPlan(voice: voice, segments: segments, markers: markers.takeReady(), warnings: warnings)
    }

    /// The next warning of the SSML reader or the planner, each said once.
    public func nextWarning() -> String? { warnings.popFirst() }

    /// Says a warning once, and at most `warningLimit` different ones in a request, so that a request with a
    /// bad attribute on every one of a million elements neither floods a log nor fills the memory.
    private func warn(_ warning: String) {
        guard warned.count < Self.warningLimit else {
            if !isPastWarningLimit {
                isPastWarningLimit = true
                warnings.append("more than \(Self.warningLimit) warnings; the rest are not shown")
            }
            return
        }
        if warned.insert(warning).inserted { warnings.append(warning) }
    }

    private static var warningLimit: Int { 1_000 }

    /// The index of the take that plays, by rotation where the planner rotates, else the first: for the fallback
    /// clip, spelled letters, and the phrases of `rotate` and `first`.
    private func choose(from takes: [ClipTake]) -> Int {
        guard planner.takeChoice == .rotate, takes.count > 1 else { return 0 }
        let count = occurrences[takes[0], default: 0]
        occurrences[takes[0]] = count + 1
        return count % takes.count
    }

    /// How many phrases after a phrase are planned before its take is chosen, when its sentence has not ended by
    /// then: fixed-lag Viterbi. A take's cost reaches the phrases after it only through the joins, each through the
    /// next, so looking further ahead rarely changes a choice, and first audio waits for these few phrases instead of
    /// the whole sentence. It also bounds what is held for a long sentence, or text with no sentence ends.
    static var selectionLookahead: Int { 3 }

    /// Places a phrase whose take is yet to be chosen from `takes`; its last word is followed by `punctuation`.
    private func placePhrase(_ segment: PlanSegment, takes: [ClipTake], punctuation: Token.Punctuation?) {
        let isFirst = !hasSpokenInSentence
        hasSpokenInSentence = true
        hasPlacedSound = true
        guard takes.count > 1 || !held.isEmpty || planner.placesEveryPhrase else {
            commit(segment)
            return
        }
        held.append(
            HeldSegment(segment: segment, choice: .init(takes: takes, punctuation: punctuation, isFirst: isFirst)))
        heldPhraseCount += 1
        if heldPhraseCount > Self.selectionLookahead { chooseTakes(placing: heldPhraseCount - Self.selectionLookahead) }
    }

    /// Notes punctuation after the last phrase placed, when its take is yet to be chosen: a text run that begins with
    /// it (`</say-as>?`) ends the words of the run before.
    private func follow(with punctuation: Token.Punctuation) {
        guard let last = held.lastIndex(where: { $0.choice != nil }) else { return }
        held[last].choice!.punctuation = max(held[last].choice!.punctuation ?? punctuation, punctuation)
    }

    /// Places a segment after those held, or on the timeline when none is.
    private func place(_ segment: PlanSegment) {
        if segment.isClip { hasSpokenInSentence = true }
        if segment.isClip || (segment.isSounding && segment.frameCount > 0) { hasPlacedSound = true }
        if held.isEmpty {
            commit(segment)
        } else {
            held.append(HeldSegment(segment: segment, choice: nil))
        }
    }

    private func commit(_ segment: PlanSegment) {
        if case .phrase(let take) = segment.kind {
            lastPlacedTake = take
        } else if segment.isSounding {
            lastPlacedTake = nil
        }
        timeline.append(segment)
    }

    /// Where a sentence ends (or a paragraph starts or ends, or the request ends): its held takes are chosen, its
    /// last phrase as the last, and the next phrase is a sentence's first.
    private func endSentence() {
        chooseTakes(placing: nil)
        hasSpokenInSentence = false
    }

    /// Chooses the takes of the held phrases over the cheapest path through all of them, and places the first
    /// `placing` phrases with what came between them; `nil` places them all, as the sentence ends here. The rest stay
    /// held: the path may change as more phrases come, and whether the last ends the sentence is not known yet.
    private func chooseTakes(placing: Int?) {
        guard !held.isEmpty else { return }
        let endsSentence = placing == nil
        let lastSpoken = held.lastIndex { $0.segment.isClip }
        var phrases: [TakeSelector.Phrase] = []
        var phraseIndices: [Int] = []
        var joinsPrevious = lastPlacedTake != nil
        for (index, held) in held.enumerated() {
            guard let choice = held.choice else {
                if held.segment.isSounding { joinsPrevious = false }
                continue
            }
            let place = PhrasePlace(
                isFirst: choice.isFirst, isLast: endsSentence && index == lastSpoken, punctuation: choice.punctuation)
            phrases.append(TakeSelector.Phrase(takes: choice.takes, place: place, joinsPrevious: joinsPrevious))
            phraseIndices.append(index)
            joinsPrevious = true
        }
        let weights =
            planner.voices.first { $0.voice.identifier == held[phraseIndices[0]].segment.voice }?.voice
            .selection ?? .standard
        var chosen: [(index: Int, selection: TakeSelection)]
        if planner.takeChoice == .best {
            chosen = TakeSelector.choose(phrases, after: lastPlacedTake, weights: weights)
        } else {
            // Only the phrases placed now: rotation counts each choice, and a held phrase is chosen when placed.
            var previous = lastPlacedTake
            chosen = phrases.prefix(placing ?? phrases.count).map { phrase in
                let index = choose(from: phrase.takes)
                let selection = TakeSelector.selection(
                    of: phrase.takes[index], for: phrase, after: previous, weights: weights)
                previous = phrase.takes[index]
                return (index, selection)
            }
        }
        let kept = placing.map { phraseIndices[$0] } ?? held.endIndex
        for (number, index) in phraseIndices.enumerated() where index < kept {
            let take = phrases[number].takes[chosen[number].index]
            if phrases[number].hasTaggedTake && !phrases[number].hasTakeForPlace {
                let played = take.position.map { "its \($0.rawValue) take" } ?? "an untagged take"
                warn(
                    "no \(phrases[number].place.position.rawValue) take of \"\(held[index].segment.text)\" in "
                        + "\(held[index].segment.voice); \(played) plays")
            }
            held[index].segment.kind = .phrase(take)
            held[index].segment.frameCount = take.frameCount
            held[index].segment.selection = chosen[number].selection
        }
        let placed = held[..<kept]
        held.removeFirst(kept)
        heldPhraseCount = held.count { $0.choice != nil }
        for segment in placed { commit(segment.segment) }
    }

    private func lookup(_ index: Int) -> RememberedLookup<Lookup> {
        if let remembered = lookups[index] { return remembered }
        let remembered = planner.rememberedLookups[index]
        remembered.beginPlan()
        lookups[index] = remembered
        return remembered
    }

    private func plan(_ event: SSMLEvent) throws {
        switch event {
        case .text(let run):
            try startText(run)
        case .pause(let frames, let origin, let context):
            let speed =
                origin.followsRate ? self.speed(context, voice: planner.voices[voiceIndex(for: context)].voice) : 1
            place(PlanSegment(kind: .silence, frameCount: frames, speed: speed))
        case .mark(let name, let sourceRange):
            place(PlanSegment(kind: .mark(name), text: name, sourceRange: sourceRange))
        case .structureStart(let structure):
            endSentence()
            place(PlanSegment(kind: .structureStart(structure)))
        case .structureEnd(let structure, let sourceRange):
            endSentence()
            place(PlanSegment(kind: .structureEnd(structure), sourceRange: sourceRange))
        case .audio(let source, let fallback, let sourceRange, let context):
            switch planner.audioSandbox.resolve(source) {
            case .success(let file):
                let voice = planner.voices[voiceIndex(for: context)].voice
                place(
                    PlanSegment(
                        kind: .audio(path: file.path), frameCount: file.frameCount, text: source,
                        sourceRange: sourceRange, volumeDecibels: context.volumeDecibels,
                        speed: speed(context, voice: voice), pitchSemitones: pitchSemitones(context),
                        edgeFadeFrames: 0))
            case .failure(let refusal):
                warn(refusal.description)
                for event in fallback {
                    try plan(event)
                    try finishText()
                }
            }
        }
    }

    /// The context's rate as a speed for `voice`, within what the renderer stretches to.
    private func speed(_ context: SpeechContext, voice: VoiceSettings) -> Double {
        let speed = Prosody.speed(rate: context.rate, normalRate: voice.normalRate)
        guard !Prosody.speeds.contains(speed) else { return speed }
        let clamped = min(max(speed, Prosody.speeds.lowerBound), Prosody.speeds.upperBound)
        warn(
            "a speed of \(speed)x (rate \(context.rate ?? 1) for \(voice.identifier), whose normal rate is "
                + "\(voice.normalRate)) is beyond the supported \(Prosody.speeds.lowerBound)x to "
                + "\(Prosody.speeds.upperBound)x; speaking at \(clamped)x")
        return clamped
    }

    /// The context's pitch shift, within what the renderer shifts.
    private func pitchSemitones(_ context: SpeechContext) -> Double {
        let semitones = context.pitchSemitones
        guard !Prosody.pitchShifts.contains(semitones) else { return semitones }
        let clamped = min(max(semitones, Prosody.pitchShifts.lowerBound), Prosody.pitchShifts.upperBound)
        warn(
            "a pitch shift of \(semitones) semitones is beyond the supported \(Prosody.pitchShifts.lowerBound) to "
                + "\(Prosody.pitchShifts.upperBound); shifting by \(clamped)")
        return clamped
    }

    /// Starts matching a text run: say-as runs as their tokens, whole; other text a window at a time.
    private func startText(_ run: TextRun) throws {
        let speakerIndex = voiceIndex(for: run.context)
        let speaker = planner.voices[speakerIndex]
        let tokens: [Token]?
        switch run.context.sayAs?.interpretAs {
        case .characters, .spellOut: tokens = Tokenizer.characterTokens(in: run.text)
        case .digits:
            tokens = Tokenizer.digitTokens(in: run.text)
        case .telephone:
            tokens = plusSign(in: run, language: speaker.voice) + Tokenizer.digitTokens(in: run.text)
        case .cardinal, .number: tokens = sayAsTokens(run, as: .cardinal, speaker: speaker.voice)
        case .ordinal: tokens = sayAsTokens(run, as: .ordinal, speaker: speaker.voice)
        case .date: tokens = sayAsTokens(run, as: .date, speaker: speaker.voice)
        case .time: tokens = sayAsTokens(run, as: .time, speaker: speaker.voice)
        case nil: tokens = nil
        }
        let spoken = Spoken(
            context: run.context, speaker: speakerIndex, speed: speed(run.context, voice: speaker.voice),
            pitchSemitones: pitchSemitones(run.context))
        text = TextCursor(spoken: spoken, windowBytes: textWindowBytes)
        if let tokens {
            text!.window = tokens.map { $0.inRequest(of: run) }
        } else {
            text!.append(run)
        }
    }

    /// Matches the current run until a segment is placed or the run ends (`true`), or until it needs the
    /// text of the next event, which goes on from it (`false`).
    ///
    /// Greedy longest match over a window of tokens gives the plan that matching all of them at once gives:
    /// where a phrase could reach past the window, more text is read first.
    private func matchText() throws -> Bool {
        // The cursor is taken out while it is matched, so that its window is never shared and grows in place.
        var cursor = text!
        text = nil
        let placed = timeline.placedCount
        let lookup = lookup(cursor.spoken.speaker)
        while timeline.placedCount == placed {
            let isComplete = !cursor.hasMoreText && !cursor.isContinued
            let isEmpty = cursor.head == cursor.window.count
            let search =
                isEmpty && isComplete
                ? .none : try Matcher.longestPhrase(cursor.window[cursor.head...], in: lookup, isComplete: isComplete)
            switch search {
            case .needsMoreTokens:
                guard cursor.readMoreText() else {
                    text = cursor
                    return false
                }
                if let punctuation = cursor.punctuationAfterPlaced {
                    follow(with: punctuation)
                    cursor.punctuationAfterPlaced = nil
                }
            case .none where isEmpty:
                try appendUnmatched(of: &cursor)
                return true
            case .none:
                cursor.unmatched.append(cursor.window[cursor.head])
                cursor.head += 1
                if cursor.unmatched.count == Self.spokenRunTokenLimit,
                    planner.voices[cursor.spoken.speaker].voice.fallbackMode == .voice
                {
                    try appendUnmatched(of: &cursor)
                }
            case .phrase(let length, let takes):
                try appendUnmatched(of: &cursor)
                let tokens = Array(cursor.window[cursor.head..<cursor.head + length])
                cursor.head += length
                try append(Match(takes: takes, tokens: tokens), cursor.spoken)
            }
            cursor.dropMatchedTokens()
        }
        text = cursor
        return true
    }

    /// Matches what is left of the current run, as its end.
    private func finishText() throws {
        guard text != nil else { return }
        text!.isContinued = false
        while text != nil { _ = try matchText() }
    }

    /// Speaks the unmatched tokens gathered so far: digits no clip covers are read as a number, in words the
    /// voice may have; the rest falls back, number words no clip covers in one run with the words around them
    /// (`at 3 PM` is one run, `at three pm`, for the fallback voice to speak as a phrase).
    private func appendUnmatched(of cursor: inout TextCursor) throws {
        guard !cursor.unmatched.isEmpty else { return }
        var tokens: [Token] = []
        swap(&tokens, &cursor.unmatched)
        let spoken = cursor.spoken
        let voice = planner.voices[spoken.speaker].voice
        var unmatched: [Token] = []
        for token in tokens {
            guard token.kind == .number, let words = numberTokens(token, language: voice) else {
                unmatched.append(token)
                continue
            }
            for wordMatch in try Matcher.match(words, in: lookup(spoken.speaker)) {
                guard !wordMatch.takes.isEmpty else {
                    unmatched += wordMatch.tokens
                    continue
                }
                if !unmatched.isEmpty {
                    try append(Match(takes: [], tokens: unmatched), spoken)
                    unmatched = []
                }
                try append(wordMatch, spoken)
            }
        }
        if !unmatched.isEmpty { try append(Match(takes: [], tokens: unmatched), spoken) }
    }

    /// The most words the fallback voice speaks as one phrase: a longer run is spoken in pieces this long, so that a
    /// text no clip covers is never synthesized whole (256 words are about 100 s of speech, 9 MB of samples).
    static var spokenRunTokenLimit: Int { 256 }

    private func append(_ match: Match, _ spoken: Spoken) throws {
        guard let first = match.tokens.first, let last = match.tokens.last else { return }
        let sourceRange = first.sourceRange.lowerBound..<max(first.sourceRange.lowerBound, last.sourceRange.upperBound)
        guard match.takes.isEmpty else {
            // The first take stands in until the take is chosen.
            placePhrase(
                segment(
                    .phrase(match.takes[0]), frameCount: match.takes[0].frameCount, text: match.words, sourceRange,
                    spoken),
                takes: match.takes, punctuation: last.punctuationAfter)
            return
        }
        let speaker = planner.voices[spoken.speaker]
        switch planner.plansFallbacksAsClips ? .clip : speaker.voice.fallbackMode {
        case .voice:
            if var speech = speak(match.words, speaker) {
                // A run that is stretched, shifted in pitch or crossfaded is placed once it is whole and its length
                // known; otherwise as it arrives (`Timeline`).
                if spoken.speed != 1 || spoken.pitchSemitones + speech.pitchSemitones != 0
                    || speaker.voice.joins.crossfadeFrames > 0
                {
                    speech = speech.whole()
                }
                append(
                    .synthesized(speech), frameCount: speech.arrivesWhilePlaying ? 0 : speech.samples.count,
                    text: match.words, sourceRange, spoken, pitchShift: speech.pitchSemitones,
                    fallback: .init(mode: .voice, words: match.words))
                return
            }
        case .spell:
            try spell(match, spoken)
            return
        case .clip:
            break
        }
        let take = try fallbackTake(speaker, words: match.words)
        append(
            .fallback(take), frameCount: take.frameCount, text: match.words, sourceRange, spoken,
            fallback: .init(mode: .clip, words: match.words))
    }

    /// Places a clip, the fallback clip or the fallback voice's speech, spoken as `spoken` says and `pitchShift`
    /// semitones higher.
    private func append(
        _ kind: PlanSegment.Kind, frameCount: Int, text: String, _ sourceRange: Range<Int>, _ spoken: Spoken,
        pitchShift: Double = 0, fallback: PlanSegment.Fallback? = nil
    ) {
        place(
            segment(
                kind, frameCount: frameCount, text: text, sourceRange, spoken, pitchShift: pitchShift,
                fallback: fallback))
    }

    /// A clip, the fallback clip or the fallback voice's speech, spoken as `spoken` says and `pitchShift` semitones
    /// higher.
    private func segment(
        _ kind: PlanSegment.Kind, frameCount: Int, text: String, _ sourceRange: Range<Int>, _ spoken: Spoken,
        pitchShift: Double = 0, fallback: PlanSegment.Fallback? = nil
    ) -> PlanSegment {
        let voice = planner.voices[spoken.speaker].voice
        let pitch = spoken.pitchSemitones + pitchShift
        return PlanSegment(
            kind: kind, frameCount: frameCount, text: text, sourceRange: sourceRange, voice: voice.identifier,
            volumeDecibels: spoken.context.volumeDecibels, speed: spoken.speed,
            pitchSemitones: min(max(pitch, Prosody.pitchShifts.lowerBound), Prosody.pitchShifts.upperBound),
            edgeFadeFrames: voice.joins.edgeFadeFrames, crossfadeFrames: voice.joins.crossfadeFrames,
            fallback: fallback)
    }

    /// The next take of the voice's fallback clip.
    ///
    /// - Throws: `PlanningError.noFallbackClip` when the voice has none.
    private func fallbackTake(_ speaker: PlannerVoice<Lookup>, words: String) throws -> ClipTake {
        guard !speaker.fallbacks.isEmpty else {
            throw PlanningError.noFallbackClip(voice: speaker.voice.identifier, words: words)
        }
        return speaker.fallbacks[choose(from: speaker.fallbacks)]
    }

    /// The fallback voice's speech of `words`; `nil`, with a warning, when the voice has no fallback voice or it
    /// cannot speak (a language espeak-ng does not have): the fallback clip speaks then.
    private func speak(_ words: String, _ speaker: PlannerVoice<Lookup>) -> SynthesizedSpeech? {
        let reason: String
        if let fallbackSpeaker = speaker.fallbackSpeaker {
            do throws(FallbackVoiceUnavailable) {
                return try fallbackSpeaker.speak(words, startsRequest: !hasPlacedSound, cancellation: cancellation)
            } catch {
                reason = error.reason
            }
        } else {
            reason = "it has no fallback voice"
        }
        warn(
            "the fallback voice cannot speak for \(speaker.voice.identifier) (\(reason)); its fallback clip speaks "
                + "the words no clip covers")
        return nil
    }

    /// The pause between two spelled words: an x-weak break (250 ms), which follows the rate.
    private static var spelledWordPauseFrames: Int { 5_513 }

    /// Spells each word of a run with the voice's letter clips, the fallback clip for a character with none, with a
    /// short pause between words.
    private func spell(_ match: Match, _ spoken: Spoken) throws {
        let speaker = planner.voices[spoken.speaker]
        var startsRun = true
        for (index, word) in match.tokens.enumerated() {
            if index > 0 {
                place(PlanSegment(kind: .silence, frameCount: Self.spelledWordPauseFrames, speed: spoken.speed))
            }
            // Each character's own range in the request where the word stands there as normalised, else the word's.
            let isVerbatim = word.text.utf16.count == word.sourceRange.count
            for character in Tokenizer.characterTokens(in: word.text, utf16Offset: word.sourceRange.lowerBound) {
                let range = isVerbatim ? character.sourceRange : word.sourceRange
                let fallback = PlanSegment.Fallback(mode: .spell, words: match.words, startsRun: startsRun)
                startsRun = false
                let takes = try lookup(spoken.speaker).takes(forPhraseKey: character.text)
                if takes.isEmpty {
                    let take = try fallbackTake(speaker, words: match.words)
                    append(
                        .fallback(take), frameCount: take.frameCount, text: character.text, range, spoken,
                        fallback: fallback)
                } else {
                    let take = takes[choose(from: takes)]
                    append(
                        .phrase(take), frameCount: take.frameCount, text: character.text, range, spoken,
                        fallback: fallback)
                }
            }
        }
    }

    /// The word for a telephone number's leading `+` in the voice's language (`plus`, `プラス`), if it has one.
    private func plusSign(in run: TextRun, language voice: VoiceSettings) -> [Token] {
        let leading = run.text.utf16.prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }.count
        guard let first = run.text.utf16.dropFirst(leading).first, first == 0x2B || first == 0xFF0B,
            let verbalizer = Verbalizer.forLanguage(voice.primaryLanguages.first ?? "")
        else { return [] }
        return Tokenizer.tokens(in: verbalizer.plusSign).map {
            Token($0.text, $0.kind, sourceRange: leading..<leading + 1)
        }
    }

    /// The words of a `say-as` number, ordinal, date or time in the voice's language, as tokens that all point at
    /// the whole run; `nil`, with a warning, when the text is not one or the language has no words for it.
    private func sayAsTokens(_ run: TextRun, as interpretation: Interpretation, speaker voice: VoiceSettings)
        -> [Token]?
    {
        let sayAs = run.context.sayAs!
        let language = voice.primaryLanguages.first ?? ""
        do throws(VerbalizationError) {
            let words = try Verbalizer.words(
                for: run.text, as: interpretation, format: sayAs.format, language: language)
            return Tokenizer.tokens(inWords: words).map {
                Token($0.text, $0.kind, sourceRange: 0..<run.text.utf16.count)
            }
        } catch {
            warn("<say-as interpret-as=\"\(sayAs.interpretAs.rawValue)\"> read as plain text: \(error)")
            return nil
        }
    }

    /// A digit run read as a cardinal number in the voice's language, as tokens that point at the digits.
    private func numberTokens(_ token: Token, language voice: VoiceSettings) -> [Token]? {
        let language = voice.primaryLanguages.first ?? ""
        let key = language + " " + token.text
        let words: [Token]?
        if let remembered = numberWords[key] {
            words = remembered
        } else {
            words = (try? Verbalizer.words(for: token.text, as: .cardinal, format: nil, language: language)).map {
                Tokenizer.tokens(inWords: $0)
            }
            if numberWords.count == Self.rememberedNumbers { numberWords.removeAll(keepingCapacity: true) }
            numberWords[key] = words
        }
        guard var spoken = words?.map({ Token($0.text, $0.kind, sourceRange: token.sourceRange) }), !spoken.isEmpty
        else { return words }
        spoken[spoken.count - 1].punctuationAfter = token.punctuationAfter
        return spoken
    }

    /// The voice a run is spoken in: the one `<voice name>` names (identifier or name), else the best for its
    /// `xml:lang` (a primary language before a supported one, the whole tag before its language subtag), else
    /// the starting voice. A name or language no voice answers to is a warning.
    private func voiceIndex(for context: SpeechContext) -> Int {
        if let name = context.voiceName {
            if let index = planner.voices.firstIndex(where: {
                $0.voice.identifier == name || $0.voice.name.lowercased() == name.lowercased()
            }) {
                return index
            }
            warn(
                "no voice \"\(name)\" in the pack (voices: \(planner.voices.map(\.voice.identifier).joined(separator: ", "))); "
                    + "speaking with \(context.language == nil ? "the current voice" : "the voice for its language")")
        }
        guard let tag = context.language?.lowercased(), !tag.isEmpty else { return planner.startingVoice }
        let subtag = tag.split(separator: "-").first.map(String.init) ?? tag
        let matchers: [(VoiceSettings) -> Bool] = [
            { $0.primaryLanguages.contains { $0.lowercased() == tag } },
            { $0.supportedLanguages.contains { $0.lowercased() == tag } },
            { $0.primaryLanguages.contains { $0.lowercased().split(separator: "-").first.map(String.init) == subtag } },
            {
                $0.supportedLanguages.contains {
                    $0.lowercased().split(separator: "-").first.map(String.init) == subtag
                }
            },
        ]
        // The starting voice wins a tie, so a request in the starting voice's language never switches voice.
        for matches in matchers {
            if matches(planner.voices[planner.startingVoice].voice) { return planner.startingVoice }
            if let index = planner.voices.firstIndex(where: { matches($0.voice) }) { return index }
        }
        warn(
            "no voice for xml:lang=\"\(context.language ?? "")\" in the pack; speaking with \(planner.voices[planner.startingVoice].voice.identifier)"
        )
        return planner.startingVoice
    }
}

/// A segment placed after a phrase whose take is yet to be chosen, or such a phrase, with what its choice needs.
private struct HeldSegment {
    var segment: PlanSegment
    var choice: Choice?

    struct Choice {
        var takes: [ClipTake]
        /// What follows the phrase's last word.
        var punctuation: Token.Punctuation?
        var isFirst: Bool
    }
}

/// How a text run is spoken. (This and `TextCursor` are not generic, so the planner's inner loop looks up no
/// generic metadata.)
private struct Spoken {
    var context: SpeechContext
    /// The index of the voice in the planner's voices.
    var speaker: Int
    var speed: Double
    var pitchSemitones: Double
}

/// A text run being matched: the tokens read and not yet matched, and the text not yet read.
private struct TextCursor {
    var spoken: Spoken
    let windowBytes: Int
    /// Tokens read, with source ranges in the request; those before `head` are matched.
    var window: [Token] = []
    var head = 0
    /// The tokens since the last phrase that no phrase starts at.
    var unmatched: [Token] = []
    /// The run whose text is being read, and how far.
    private var run: TextRun?
    private var position = 0
    private var utf16Offset = 0
    /// Whether the next event goes on with this run's text.
    var isContinued = false

    init(spoken: Spoken, windowBytes: Int) {
        self.spoken = spoken
        self.windowBytes = windowBytes
    }

    var hasMoreText: Bool { run.map { position < $0.text.utf8.count } ?? false }

    /// Reads the next piece of a run: the first, or one that goes on from the last.
    mutating func append(_ next: TextRun) {
        run = next
        position = 0
        utf16Offset = 0
        isContinued = next.isContinued
    }

    /// Punctuation that a piece of text began with when no word of it was left to follow: it follows the phrase
    /// placed last, which the planner takes it to (`PlanStream.follow(with:)`).
    var punctuationAfterPlaced: Token.Punctuation?

    /// Reads about `windowBytes` more of the run's text into tokens; `false` when it is all read.
    ///
    /// Cuts where `PlainTextStream.isCut` allows, as a long text read a piece at a time is cut.
    mutating func readMoreText() -> Bool {
        guard let run, position < run.text.utf8.count else { return false }
        let utf8 = run.text.utf8
        var end = min(position + windowBytes, utf8.count)
        var index = utf8.index(utf8.startIndex, offsetBy: end)
        while index < utf8.endIndex {
            if PlainTextStream.isCut(between: utf8[utf8.index(before: index)], and: utf8[index]) { break }
            index = utf8.index(after: index)
            end += 1
        }
        let start = utf8.index(utf8.startIndex, offsetBy: position)
        let piece = String(decoding: utf8[start..<index], as: UTF8.self)
        if let punctuation = Tokenizer.leadingPunctuation(in: piece) {
            if head < window.count {
                window[window.count - 1].follow(with: punctuation)
            } else if !unmatched.isEmpty {
                unmatched[unmatched.count - 1].follow(with: punctuation)
            } else {
                punctuationAfterPlaced = punctuation
            }
        }
        window += Tokenizer.tokens(in: piece, utf16Offset: utf16Offset).map { $0.inRequest(of: run) }
        utf16Offset += piece.utf16.count
        position = end
        return true
    }

    /// Forgets matched tokens once they are most of the window.
    mutating func dropMatchedTokens() {
        guard head > 1_024 && head * 2 > window.count else { return }
        window.removeFirst(head)
        head = 0
    }
}

extension Token {
    /// Notes punctuation after the token, the strongest of all that follow it.
    fileprivate mutating func follow(with punctuation: Punctuation) {
        punctuationAfter = max(punctuationAfter ?? punctuation, punctuation)
    }

    /// The token with its source range in the request rather than in `run`'s text.
    fileprivate func inRequest(of run: TextRun) -> Token {
        Token(text, kind, sourceRange: run.sourceRange(forTextRange: sourceRange), punctuationAfter: punctuationAfter)
    }
}

/// A voice's phrase look-ups, each asked of the pack once and remembered: for the rest of a plan, and for the plans
/// after it while the lookup's `phrasesVersion` stays the same.
///
/// A plan reads one snapshot of the pack (`VoicePack.reading`), so the answers cannot change while it lasts; the
/// next plan keeps them only if it reads the same version of the pack. It remembers at most `capacity` answers of
/// each kind and starts afresh when full, so that a text with no end of different words keeps a bounded memory.
final class RememberedLookup<Lookup: PhraseLookup>: PhraseLookup {
    let lookup: Lookup
    let capacity: Int
    private var firstKeys: [KeyBytes: String?] = [:]
    private var takesByKey: [KeyBytes: [ClipTake]] = [:]
    /// The version the answers were given under; `nil` when they were given for one plan only.
    private var version: UInt64?

    init(_ lookup: Lookup, capacity: Int = 65_536) {
        self.lookup = lookup
        self.capacity = capacity
    }

    /// Called when a plan first looks up its voice's phrases: the answers are kept only if the lookup reads the
    /// version of the phrases they were given under.
    func beginPlan() {
        let current = lookup.phrasesVersion
        if current == nil || current != version {
            firstKeys.removeAll(keepingCapacity: true)
            takesByKey.removeAll(keepingCapacity: true)
        }
        version = current
    }

    func firstPhraseKey(atOrAfter key: String) throws -> String? {
        if let known = firstKeys[KeyBytes(key)] { return known }
        let found = try lookup.firstPhraseKey(atOrAfter: key)
        if firstKeys.count == capacity { firstKeys.removeAll(keepingCapacity: true) }
        firstKeys[KeyBytes(key)] = .some(found)
        return found
    }

    func takes(forPhraseKey key: String) throws -> [ClipTake] {
        if let known = takesByKey[KeyBytes(key)] { return known }
        let takes = try lookup.takes(forPhraseKey: key)
        if takesByKey.count == capacity { takesByKey.removeAll(keepingCapacity: true) }
        takesByKey[KeyBytes(key)] = takes
        return takes
    }
}

/// A phrase key hashed and compared as its UTF-8 bytes, as the pack compares it: keys are normalised already,
/// and `String`'s own hashing would normalise them again.
struct KeyBytes: Hashable {
    var key: String

    init(_ key: String) { self.key = key }

    static func == (left: KeyBytes, right: KeyBytes) -> Bool {
        var left = left.key
        var right = right.key
        return left.withUTF8 { leftBytes in right.withUTF8 { leftBytes.elementsEqual($0) } }
    }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
