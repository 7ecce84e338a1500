// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import ConcatSynth
import Planning
import Recognition
import SpeechCore
import Voicebank
import VoicebankAuthoring

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 16: whether takes chosen by place and join cost sound better than rotation. espeak-ng speaks every
/// word of a weather and time announcer's sentences (`tools/announcer-sentences.tsv`) three ways, "word," "word." and
/// "word?", which it intonates as continuation, final and question; the three takes are imported as the word's
/// medial, final and question takes (their files named `m.`, `e.`, `q.`). The sentences are rendered with `best`
/// takes, with `rotate`, and from a pack of the continuation takes only, and measured on the rendered audio: the F0
/// jump at each join between two clips that play one right after the other, and the word error rate pocketsphinx hears
/// listening for the pack's words (as an announcer's recogniser would) and free-form.
struct TakesQualityBench {
    var sentences: [EverydaySentence]
    var work: WorkDirectory

    static let voice = "org.concatsynth.announcer"
    static var sentenceFile: String { Locations.repository + "/tools/announcer-sentences.tsv" }
    /// The file prefix that tags a take (`ImportRequest.tagged`) and the punctuation espeak-ng says its word with.
    static let takes: [(prefix: String, punctuation: String)] = [("m.", ","), ("e.", "."), ("q.", "?")]

    /// A way of rendering the sentences.
    struct Rendering {
        var name: String
        var synthesizer: Synthesizer
    }

    /// A join between two clips that play one right after the other, and the F0 jump across it as played.
    struct Join {
        var sentence: Int
        var left: String
        var right: String
        /// The right clip's first voiced F0 against the left clip's last, in semitones; `nil` when either side has no
        /// voiced hop.
        var jumpSemitones: Double?
    }

    /// What one rendering measured over all the sentences.
    struct Outcome {
        var joins: [Join] = []
        /// Words heard among the pack's words, and free-form.
        var vocabularyErrors = WordErrors()
        var freeFormErrors = WordErrors()
        /// Phrases that had a choice of takes, and how many of them played a take recorded for their place.
        var phrasesWithChoice = 0
        var takesForPlace = 0
    }

    func run() throws -> [TargetResult] {
        let words = Array(Set(sentences.flatMap(\.reference))).sorted()
        let full = work.file("announcer.sqlite")
        let continuation = work.file("announcer-continuation.sqlite")
        try Self.makePacks(
            words: words, folder: try work.subdirectory("announcer-takes"), full: full,
            continuation: continuation)
        let renderings = [
            Rendering(name: "best", synthesizer: try Synthesizer(bank: full, takeChoice: .best)),
            Rendering(name: "rotate", synthesizer: try Synthesizer(bank: full, takeChoice: .rotate)),
            Rendering(name: "continuation takes only", synthesizer: try Synthesizer(bank: continuation)),
        ]
        let recognizers: (vocabulary: Recognizer, freeForm: Recognizer)?
        do {
            let vocabulary = try Self.vocabularyModel(words: words, path: work.file("announcer-words.lm"))
            recognizers = (try Recognizer(model: vocabulary), try Recognizer())
        } catch {
            print("note: item 16's word error rates read n/a: \(error)")
            recognizers = nil
        }

        let analyzer = try TakeAnalyzer()
        var outcomes = [Outcome](repeating: Outcome(), count: renderings.count)
        for (index, sentence) in sentences.enumerated() {
            for (column, rendering) in renderings.enumerated() {
                let plan = try rendering.synthesizer.renderPlan(SpeechRequest(sentence.text))
                if let missing = plan.fallbacks.first {
                    throw BenchError(
                        description:
                            "\(Self.sentenceFile), sentence \(index + 1): no take of \"\(missing.text)\"; expected its words in the sentence's word column"
                    )
                }
                let samples = try FallbackQualityBench.render(plan, with: rendering.synthesizer)
                outcomes[column].joins += try Self.joins(in: plan, samples: samples, sentence: index + 1, analyzer)
                for segment in plan.segments {
                    guard let take = segment.take, let selection = segment.selection else { continue }
                    outcomes[column].phrasesWithChoice += 1
                    if take.position == selection.place.position { outcomes[column].takesForPlace += 1 }
                }
                if let recognizers {
                    let sampleRate = RenderFormat.sampleRate
                    outcomes[column].vocabularyErrors =
                        outcomes[column].vocabularyErrors
                        + WordErrors(
                            reference: sentence.reference,
                            hypothesis: try recognizers.vocabulary.hear(samples, sampleRate: sampleRate))
                    outcomes[column].freeFormErrors =
                        outcomes[column].freeFormErrors
                        + WordErrors(
                            reference: sentence.reference,
                            hypothesis: try recognizers.freeForm.hear(samples, sampleRate: sampleRate))
                }
            }
        }

        var table = Table(
            "16. Takes by place: F0 jumps at joins and word errors, \(sentences.count) announcements spoken from a pack of \(words.count) words espeak-ng said three ways (`word,` `word.` `word?`)",
            columns: [
                "takes", "median F0 jump (st)", "90th percentile (st)", "joins measured",
                "phrases playing a take of their place", "word error rate, pack's words", "word error rate, free-form",
            ])
        table.printHeader()
        for (rendering, outcome) in zip(renderings, outcomes) {
            let jumps = outcome.joins.compactMap(\.jumpSemitones)
            table.add([
                rendering.name, jumps.isEmpty ? "n/a" : decimal(Samples(jumps).median, places: 2),
                jumps.isEmpty ? "n/a" : decimal(Self.percentile(90, of: jumps), places: 2),
                "\(jumps.count) of \(outcome.joins.count)",
                outcome.phrasesWithChoice == 0 ? "n/a" : "\(outcome.takesForPlace) of \(outcome.phrasesWithChoice)",
                recognizers == nil ? "n/a" : "\(decimal(outcome.vocabularyErrors.rate * 100, places: 1)) %",
                recognizers == nil ? "n/a" : "\(decimal(outcome.freeFormErrors.rate * 100, places: 1)) %",
            ])
        }
        Self.reportLargest(outcomes[0].joins, of: renderings[0].name)
        if recognizers != nil {
            // What kind of errors the rates are made of: a recogniser that drops words reads differently from one that
            // mishears them.
            print("\nWord errors, listening for the pack's words:")
            for (rendering, outcome) in zip(renderings, outcomes) {
                print("- \(rendering.name): \(outcome.vocabularyErrors)")
            }
        }
        return Self.targets(best: outcomes[0], rotate: outcomes[1], hasRecognizer: recognizers != nil)
    }

    /// US English listening for `words` alone, in any order and number: a language model of one-word grams in which
    /// every word, and the end of the sentence, is equally likely, written to `path` (ARPA text). It is the word loop
    /// `( word1 | word2 | … )+` an announcer's grammar would be; `Recognizer`'s grammars are lists of whole phrases,
    /// and its language model is a file, so the loop is given as one.
    static func vocabularyModel(words: [String], path: String) throws -> RecognitionModel {
        let log10Probability = decimal(-log10(Double(words.count + 1)), places: 6)
        let grams = ["-99 <s>", "\(log10Probability) </s>"] + words.map { "\(log10Probability) \($0)" }
        let text = (["\\data\\", "ngram 1=\(grams.count)", "", "\\1-grams:"] + grams + ["", "\\end\\", ""])
            .joined(separator: "\n")
        try writeText(text, to: path)
        var model = RecognitionModel.english
        model.languageModel = path
        return model
    }

    /// Speaks each word three ways into `folder` and imports the takes into a new pack at `full`, and the continuation
    /// takes alone into one at `continuation`, through the library as `voicebank import` does (the names' prefixes tag
    /// them). Rotation plays a phrase's takes in the order they were imported, so the order turns from word to word:
    /// the first take of a third of the words is their continuation take, of a third their final, of a third their
    /// question take, a choice that knows nothing of place, as rotation is.
    static func makePacks(words: [String], folder: String, full: String, continuation: String) throws {
        var all: [ImportRequest] = []
        var continuations: [ImportRequest] = []
        for (index, word) in words.enumerated() {
            for turn in 0..<takes.count {
                let take = takes[(index + turn) % takes.count]
                let path = "\(folder)/\(take.prefix)\(word).wav"
                let samples = try EspeakNG.shared.synthesize(word + take.punctuation, language: "en-US")
                let writer = try AudioFileWriter(
                    path: path, format: AudioFileFormat(.wav, .float32), sampleRate: RenderFormat.sampleRate)
                try writer.write(samples)
                try writer.commit()
                let request = try ImportRequest.tagged(path: path)
                all.append(request)
                if take.prefix == "m." { continuations.append(request) }
            }
        }
        for (path, requests) in [(full, all), (continuation, continuations)] {
            let pack = try VoicePack(path: path, access: .create)
            try pack.addVoice(Voice(identifier: voice, name: "Announcer", primaryLanguages: ["en-US"]))
            _ = try pack.importFiles(requests, into: voice)
        }
    }

    /// The joins of `plan` between two phrases' clips with nothing sounding in between, measured on the rendered
    /// samples: each clip over the frames it plays alone (past the crossfades at its ends), its edge F0 as
    /// `TakeAnalyzer` measures it at import (the median of the voiced hops nearest the edge).
    static func joins(
        in plan: RenderPlan, samples: [Float], sentence: Int, _ analyzer: TakeAnalyzer
    ) throws -> [Join] {
        let sounding = plan.segments.filter { $0.isSounding && $0.frameCount > 0 }
        var joins: [Join] = []
        for (left, right) in zip(sounding, sounding.dropFirst()) {
            guard case .phrase = left.kind, case .phrase = right.kind else { continue }
            let leftEdge = try analyzer.measure(played(left, in: samples)).edges.lastF0Hz
            let rightEdge = try analyzer.measure(played(right, in: samples)).edges.firstF0Hz
            var join = Join(sentence: sentence, left: left.text, right: right.text)
            if let leftEdge, let rightEdge {
                join.jumpSemitones = abs(Prosody.semitones(from: leftEdge, to: rightEdge))
            }
            joins.append(join)
        }
        return joins
    }

    /// The samples `segment` plays alone in the output.
    static func played(_ segment: TimedSegment, in samples: [Float]) -> [Float] {
        let end = min(segment.endFrame - segment.overlapWithNext, samples.count)
        let start = min(segment.frame + segment.overlapWithPrevious, end)
        return Array(samples[start..<end])
    }

    /// The `percent`-th percentile of `values` by nearest rank.
    static func percentile(_ percent: Int, of values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[max(0, (sorted.count * percent + 99) / 100 - 1)]
    }

    /// The five largest jumps, so that a reader can see where the rest of the difference lies.
    static func reportLargest(_ joins: [Join], of rendering: String) {
        let largest = joins.filter { $0.jumpSemitones != nil }.sorted { $0.jumpSemitones! > $1.jumpSemitones! }
        print("\nLargest F0 jumps with \(rendering) takes:")
        for join in largest.prefix(5) {
            print(
                "- sentence \(join.sentence), \"\(join.left)\" → \"\(join.right)\": \(decimal(join.jumpSemitones!, places: 1)) st"
            )
        }
    }

    static func targets(best: Outcome, rotate: Outcome, hasRecognizer: Bool) -> [TargetResult] {
        let bestJumps = best.joins.compactMap(\.jumpSemitones)
        let rotateJumps = rotate.joins.compactMap(\.jumpSemitones)
        var jump = TargetResult(
            target: "best takes cut the median F0 jump at joins by ≥ 30 % against rotation (item 16)",
            measured: "n/a", isMet: nil)
        if !bestJumps.isEmpty, !rotateJumps.isEmpty {
            let (bestMedian, rotateMedian) = (Samples(bestJumps).median, Samples(rotateJumps).median)
            let cut = rotateMedian > 0 ? 1 - bestMedian / rotateMedian : 0
            jump.measured =
                "\(decimal(bestMedian, places: 2)) st against \(decimal(rotateMedian, places: 2)) st (\(decimal(cut * 100, places: 0)) % less)"
            jump.isMet = cut >= 0.3
        }
        var errors = TargetResult(
            target: "best takes' word error rate, listening for the pack's words, no worse than rotation's (item 16)",
            measured: "n/a", isMet: nil)
        if hasRecognizer {
            let (bestErrors, rotateErrors) = (best.vocabularyErrors, rotate.vocabularyErrors)
            let (bestRate, rotateRate) = (bestErrors.rate * 100, rotateErrors.rate * 100)
            errors.measured = "\(decimal(bestRate, places: 1)) % against \(decimal(rotateRate, places: 1)) %"
            errors.isMet = bestErrors.errorCount <= rotateErrors.errorCount
        }
        return [jump, errors]
    }
}
