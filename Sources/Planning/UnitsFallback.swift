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
/// Holds nothing across runs: the unit index and what was measured of the takes are the voice's (`UnitVoice`).
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
        let words = run.tokens.map(\.text)
        let endsSentence = (run.tokens.last?.punctuationAfter).map { $0 >= .fullStop } ?? false
        var phones: [[Phone]]?
        var declined: [Token] = []
        var reasons: [String] = []
        // The F0 the word placed last ended on, which a unit-built word right after it starts from.
        var endFrequency: Double?
        func handOn() throws {
            guard !declined.isEmpty else { return }
            endFrequency = nil
            let rest = UncoveredRun(
                tokens: declined, spoken: run.spoken, startsSentence: run.startsSentence && declined[0] == run.tokens[0]
            )
            output.warn(
                "the units of \(voice) cannot build \"\(rest.words)\" (\(reasons.joined(separator: "; "))); the "
                    + "fallback voice speaks it")
            declined.removeAll()
            reasons.removeAll()
            try output.decline(rest, reason: "no units")
        }
        var position = 0
        while position < words.count {
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
                place(.slice(slice), frameCount: slice.frameCount, tokens, run, output)
                endFrequency = try units.endFrequency(
                    ofWords: span.word..<span.word + span.count, inTake: span.take, in: index)
                position += span.count
                continue
            }
            if phones == nil { phones = try? units.frontEnd!.phones(for: words) }
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
                    contour: WordContour(
                        startFrequency: endFrequency, ending: Self.ending(after: run.tokens[position])))
                let samples = spoken.samples
                endFrequency = spoken.endFrequency
                let tokens = run.tokens[position..<position + 1]
                output.note(
                    run,
                    "\"\(words[position])\" from \(choice.pieces.reduce(0) { $0 + $1.unitCount }) units in "
                        + "\(choice.pieces.count) \(choice.pieces.count == 1 ? "piece" : "pieces"): "
                        + choice.pieces.map { "#\(index.takes[$0.take].aligned.clipID) \($0.frames)" }.joined(
                            separator: ", "))
                place(.synthesized(SynthesizedSpeech(samples: samples)), frameCount: samples.count, tokens, run, output)
            case .missing(let what):
                declined.append(run.tokens[position])
                reasons.append("\"\(words[position])\": \(what == "no phones" ? "no phones" : "no take has \(what)")")
            }
            position += 1
        }
        try handOn()
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
    private func place(
        _ kind: PlanSegment.Kind, frameCount: Int, _ tokens: ArraySlice<Token>, _ run: UncoveredRun,
        _ output: FallbackOutput
    ) {
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
