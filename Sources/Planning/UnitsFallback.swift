// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens
import Units

/// The words cut from the voice's own takes by their alignment (`FallbackMode.units`): left to right, the longest run
/// of words one take says whole plays from that take, cut at its aligned word boundaries (a `slice`, faded at its
/// cuts like any clip); a word no take says whole is built from phone-pair units chosen by Viterbi
/// (`UnitVoice.choose`), joined at pitch marks where their waveforms meet best, its F0 brought to the sentence's
/// contour from the F0 the word before it ended on (`UnitVoice.speak`). A word with a phone-pair no take has, or any
/// word when the voice has no units, goes to the next strategy (the fallback voice), with the words next to it that
/// also cannot be built, and is reported.
///
/// A run is spoken a word (or a take's words) at a time (`UnitsRun`): the first is placed as soon as it is chosen, and
/// the rest are chosen while it plays. Holds nothing across runs: the unit index and what was measured of the takes
/// are the voice's (`UnitVoice`).
final class UnitsFallback: FallbackStrategy {
    /// The voice's identifier, for the warning.
    let voice: String
    let units: UnitVoice?

    init(voice: String, units: UnitVoice?) {
        self.voice = voice
        self.units = units
    }

    var name: String { "units" }

    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws {
        guard let units, units.frontEnd != nil else {
            try output.decline(run, reason: "the voice has no units in its language")
            return
        }
        let index = try units.index()
        guard !index.takes.isEmpty else {
            try output.decline(run, reason: "the voice has no aligned takes (voicebank align)")
            return
        }
        let words = UnitsRun(run, voice: voice, units: units, index: index, output: output)
        if try !words.speakNext() { output.continueLater(words) }
    }
}

/// One run of the units fallback on its way out, a word (or the words one take says whole) at a time: where it has got
/// to, and the words before it that could not be built, held until the next word that can (or the run's end) so that
/// they go to the fallback voice together.
final class UnitsRun: FallbackRemainder {
    private let run: UncoveredRun
    private let voice: String
    private let units: UnitVoice
    private let index: UnitIndex
    private let words: [String]
    private let endsSentence: Bool
    /// Each word's phones, from the front end, for the run whole (a word is pronounced in its context), asked when
    /// the first word no take says whole is searched.
    private var phones: [[Phone]]?
    private var isPhonemized = false
    private let output: FallbackOutput
    private var position = 0
    private var declined: [Token] = []
    private var reasons: [String] = []
    /// The F0 the word placed last ended on, which a unit-built word right after it starts from.
    private var endFrequency: Double?

    init(_ run: UncoveredRun, voice: String, units: UnitVoice, index: UnitIndex, output: FallbackOutput) {
        self.run = run
        self.voice = voice
        self.units = units
        self.index = index
        self.output = output
        words = run.tokens.map(\.text)
        endsSentence = (run.tokens.last?.punctuationAfter).map { $0 >= .fullStop } ?? false
    }

    func speakNext() throws -> Bool {
        guard position < words.count else {
            try handOn()
            return true
        }
        if let span = index.longestSpan(
            of: words, from: position, startsSentence: run.startsSentence, endsSentence: endsSentence)
        {
            try handOn()
            let tokens = run.tokens[position..<position + span.count]
            let slice = try units.slice(ofWords: span.word..<span.word + span.count, inTake: span.take, in: index)
            output.note(
                run,
                "\"\(Tokenizer.displayText(tokens))\" from take #\(slice.clipID) \(slice.firstFrame)..<\(slice.firstFrame + slice.frameCount)"
            )
            place(.slice(slice), frameCount: slice.frameCount, tokens)
            endFrequency = try units.endFrequency(
                ofWords: span.word..<span.word + span.count, inTake: span.take, in: index)
            position += span.count
            return try finishIfSpoken()
        }
        if !isPhonemized {
            phones = try? units.frontEnd?.phones(for: words)
            isPhonemized = true
        }
        let wordPhones = phones?[position] ?? []
        let before = position > 0 ? phones?[position - 1].last : nil
        let after = position + 1 < words.count ? phones?[position + 1].first : nil
        // Words that cannot be built go on before this one is searched, so that their speech does not wait for it.
        if units.missingUnit(of: wordPhones, in: index) == nil { try handOn() }
        switch try units.choose(word: wordPhones, before: before, after: after, in: index) {
        case .built(let choice):
            try handOn()
            let spoken = try units.speak(
                choice, in: index,
                contour: WordContour(startFrequency: endFrequency, ending: Self.ending(after: run.tokens[position])))
            let samples = spoken.samples
            endFrequency = spoken.endFrequency
            output.note(
                run,
                "\"\(words[position])\" from \(choice.pieces.reduce(0) { $0 + $1.unitCount }) units in "
                    + "\(choice.pieces.count) \(choice.pieces.count == 1 ? "piece" : "pieces"): "
                    + choice.pieces.map { "#\(index.takes[$0.take].aligned.clipID) \($0.frames)" }.joined(
                        separator: ", "))
            place(
                .synthesized(SynthesizedSpeech(samples: samples)), frameCount: samples.count,
                run.tokens[position..<position + 1])
        case .missing(let what):
            declined.append(run.tokens[position])
            reasons.append("\"\(words[position])\": \(what == "no phones" ? "no phones" : "no take has \(what)")")
        }
        position += 1
        return try finishIfSpoken()
    }

    /// At the run's end, hands on the words held as declined; whether the run is spoken whole.
    private func finishIfSpoken() throws -> Bool {
        guard position == words.count else { return false }
        try handOn()
        return true
    }

    /// Hands the words held as declined on to the next strategy, with a warning naming why.
    private func handOn() throws {
        guard !declined.isEmpty else { return }
        endFrequency = nil
        let rest = UncoveredRun(
            tokens: declined, spoken: run.spoken, startsSentence: run.startsSentence && declined[0] == run.tokens[0])
        output.warn(
            "the units of \(voice) cannot build \"\(rest.words)\" (\(reasons.joined(separator: "; "))); the "
                + "fallback voice speaks it")
        declined.removeAll()
        reasons.removeAll()
        try output.decline(rest, reason: "no units")
    }

    /// Where a word stands at its sentence's end, from the punctuation after it.
    static func ending(after token: Token) -> WordContour.Ending {
        switch token.punctuationAfter {
        case .question: .question
        case .fullStop, .exclamation: .statement
        case .comma, nil: .continuing
        }
    }

    /// Places what speaks `tokens`, reported as units for those words.
    private func place(_ kind: PlanSegment.Kind, frameCount: Int, _ tokens: ArraySlice<Token>) {
        let text = Tokenizer.displayText(tokens)
        let range =
            tokens.first!.sourceRange
            .lowerBound..<max(
                tokens.first!.sourceRange.lowerBound, tokens.last!.sourceRange.upperBound)
        output.place(
            output.segment(
                kind, frameCount: frameCount, text: text, range, run.spoken,
                fallback: .init(mode: .units, words: text)))
    }
}
