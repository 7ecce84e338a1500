// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import ConcatSynth
import Planning
import Recognition
import Rendering
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sentence of `tools/everyday-sentences.tsv` and the words a listener should hear in it.
struct EverydaySentence {
    var text: String
    /// Numbers written as words, as the engine and espeak-ng read them.
    var reference: [String]

    static var file: String { Locations.repository + "/tools/everyday-sentences.tsv" }

    /// The file's sentences: tab-separated lines of a request and its words; `#` starts a comment line.
    static func all(from path: String = file) throws -> [EverydaySentence] {
        try readText(path).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty else {
                throw BenchError(description: "\(path): expected a sentence, a tab and its words, not \"\(line)\"")
            }
            return EverydaySentence(text: String(fields[0]), reference: WordErrors.words(in: String(fields[1])))
        }
    }
}

/// Item 11: how well the words the default pack does not cover are heard. Each sentence is rendered with
/// a copy of the default pack in each fallback mode (`voicebank configure --fallback clip|spell|voice`) and by
/// espeak-ng alone through its library, and pocketsphinx hears each rendering free-form; the word error rate is the
/// word-level edit distance against the sentence's words. In `voice` mode, each join between a clip and the fallback
/// voice's speech is measured: the loudness (EBU R128) and F0 (aubio's YIN) of the half second on either side; and
/// each of the fallback voice's runs, whole, against the loudness the voice's clips play at.
struct FallbackQualityBench {
    var sentences: [EverydaySentence]
    var work: WorkDirectory

    static let voice = "org.concatsynth.en"
    static let modes = ["clip", "spell", "voice"]
    /// Audio measured on each side of a join, or the whole segment when it is shorter.
    static let joinWindowFrames = RenderFormat.sampleRate / 2

    /// A join between a clip and the fallback voice's speech, and how the two sides differ.
    struct Join {
        var sentence: Int
        var clip: String
        var fallback: String
        /// The fallback voice's side minus the clip's; `nil` when a side is too quiet to measure.
        var loudnessDifferenceLU: Double?
        /// The fallback voice's side against the clip's; `nil` when a side has no voiced part.
        var f0DifferenceSemitones: Double?
    }

    /// A run of the fallback voice and how loud it plays against the voice's clips.
    struct FallbackRun {
        var sentence: Int
        var text: String
        var durationSeconds: Double
        /// The run's loudness less the voice's (`FallbackVoiceSettings.loudnessLUFS`: its target, else its clips'
        /// median); `nil` when the run is too quiet to measure.
        var loudnessDifferenceLU: Double?
    }

    func run() throws -> [TargetResult] {
        let recognizer: Recognizer?
        do { recognizer = try Recognizer() } catch {
            print("note: item 11's word error rates read n/a: \(error)")
            recognizer = nil
        }
        var synthesizers: [Synthesizer] = []
        for mode in Self.modes {
            let path = try packCopy(fallback: mode, named: "quality-\(mode).sqlite", work: work)
            synthesizers.append(try Synthesizer(bank: path, voice: Self.voice))
        }

        var table = Table(
            "11. Fallback quality: word errors of \(sentences.count) everyday sentences, default pack (pocketsphinx, free-form)",
            columns: ["sentence", "words"] + Self.modes.map { "`\($0)` errors" } + ["espeak-ng alone, errors"])
        table.printHeader()
        var totals = [WordErrors](repeating: WordErrors(), count: Self.modes.count + 1)
        var joins: [Join] = []
        var runs: [FallbackRun] = []
        for (index, sentence) in sentences.enumerated() {
            var renderings: [[Float]] = []
            for (mode, synthesizer) in zip(Self.modes, synthesizers) {
                let plan = try synthesizer.renderPlan(SpeechRequest(sentence.text))
                let samples = try Self.render(plan, with: synthesizer)
                if mode == "voice" {
                    joins += try Self.joins(in: plan, samples: samples, sentence: index + 1)
                    runs += try Self.fallbackRuns(
                        in: plan, loudnessLUFS: synthesizer.voice.fallbackVoice.loudnessLUFS, sentence: index + 1)
                }
                renderings.append(samples)
            }
            renderings.append(try EspeakNG.shared.synthesize(sentence.text, language: "en-US"))
            var cells = ["\(index + 1). \(sentence.text)", "\(sentence.reference.count)"]
            for (column, samples) in renderings.enumerated() {
                guard let recognizer else {
                    cells.append("n/a")
                    continue
                }
                let heard = try recognizer.hear(samples, sampleRate: RenderFormat.sampleRate)
                let errors = WordErrors(reference: sentence.reference, hypothesis: heard)
                totals[column] = totals[column] + errors
                cells.append("\(errors.errorCount)")
            }
            table.add(cells)
        }
        let words = sentences.map(\.reference.count).reduce(0, +)
        table.add(
            ["word error rate, all \(sentences.count)", "\(words)"]
                + totals.map { recognizer == nil ? "n/a" : "**\(decimal($0.rate * 100, places: 1)) %**" })
        Self.report(joins)
        return [Self.report(runs)]
    }

    /// The plan's samples, pulled as a render pulls them.
    static func render(_ plan: RenderPlan, with synthesizer: Synthesizer) throws -> [Float] {
        let renderer = synthesizer.renderingRenderer(for: plan)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { buffer.deallocate() }
        var samples: [Float] = []
        samples.reserveCapacity(plan.frameCount)
        var pulled = Rendering.Renderer.Pull(frameCount: 0, isComplete: false)
        while !pulled.isComplete {
            pulled = try renderer.render(into: buffer)
            samples += buffer.prefix(pulled.frameCount)
        }
        return samples
    }

    /// The joins of `plan` between a phrase's clip and the fallback voice's speech (`RenderPlan
    /// .fallbackVoiceJoinFrames` also counts its joins with silence), measured on the rendered samples.
    static func joins(in plan: RenderPlan, samples: [Float], sentence: Int) throws -> [Join] {
        let frames = Set(plan.fallbackVoiceJoinFrames)
        let sounding = plan.segments.filter { $0.isSounding && $0.frameCount > 0 }
        var joins: [Join] = []
        for (before, after) in zip(sounding, sounding.dropFirst()) where frames.contains(after.frame) {
            let clip: [Float]
            let fallback: [Float]
            // The half second before the join, and the half second after it.
            let end = min(before.endFrame, samples.count)
            let first = Array(samples[max(before.frame, end - joinWindowFrames)..<end])
            let second = Array(
                samples[after.frame..<min(after.endFrame, after.frame + joinWindowFrames, samples.count)])
            switch (before.kind, after.kind) {
            case (.phrase, .synthesized): (clip, fallback) = (first, second)
            case (.synthesized, .phrase): (clip, fallback) = (second, first)
            default: continue
            }
            let clipText = before.isSynthesized ? after.text : before.text
            let fallbackText = before.isSynthesized ? before.text : after.text
            var join = Join(sentence: sentence, clip: clipText, fallback: fallbackText)
            if let clipLUFS = try Loudness(clip).clipLUFS, let fallbackLUFS = try Loudness(fallback).clipLUFS {
                join.loudnessDifferenceLU = fallbackLUFS - clipLUFS
            }
            if let clipF0 = try PitchTracker.medianFrequency(of: clip),
                let fallbackF0 = try PitchTracker.medianFrequency(of: fallback)
            {
                join.f0DifferenceSemitones = 12 * log2(fallbackF0 / clipF0)
            }
            joins.append(join)
        }
        return joins
    }

    /// The fallback voice's runs in `plan`, each measured whole as it plays (its samples out of the follower, at the
    /// segment's gain) against the voice's loudness `loudnessLUFS`.
    static func fallbackRuns(in plan: RenderPlan, loudnessLUFS: Double?, sentence: Int) throws -> [FallbackRun] {
        try plan.segments.compactMap { timed -> FallbackRun? in
            guard case .synthesized(let speech) = timed.kind, timed.frameCount > 0 else { return nil }
            var run = FallbackRun(
                sentence: sentence, text: timed.text,
                durationSeconds: Double(speech.samples.count) / Double(RenderFormat.sampleRate))
            if let loudnessLUFS, let runLUFS = try Loudness(speech.samples, measuringTruePeak: false).clipLUFS {
                run.loudnessDifferenceLU = runLUFS + speech.levelDecibels - loudnessLUFS
            }
            return run
        }
    }

    /// The runs' table, then how many are within the target's 1 LU of the voice's loudness, the median and the worst;
    /// met when every run is.
    static func report(_ runs: [FallbackRun]) -> TargetResult {
        var table = Table(
            "11b (runs). Fallback quality: the fallback voice's runs, each whole, against the voice's loudness (`voice` mode)",
            columns: ["sentence", "fallback voice", "length (s)", "loudness, run − voice (LU)"])
        table.printHeader()
        for run in runs {
            table.add([
                "\(run.sentence)", run.text, decimal(run.durationSeconds, places: 2),
                run.loudnessDifferenceLU.map { ($0 > 0 ? "+" : "") + decimal($0, places: 1) } ?? "n/a",
            ])
        }
        let differences = runs.compactMap(\.loudnessDifferenceLU)
        var target = TargetResult(
            target: "every run of the fallback voice within 1 LU of the voice's loudness (item 11's sentences)",
            measured: "n/a")
        guard let worst = differences.max(by: { abs($0) < abs($1) }) else {
            print("\n\(runs.count) runs of the fallback voice, none measured.")
            return target
        }
        func signed(_ value: Double) -> String { (value > 0 ? "+" : "") + decimal(value, places: 1) }
        let within = differences.filter { abs($0) <= 1 }.count
        print(
            """

            \(runs.count) runs of the fallback voice: \(within) of \(differences.count) \
            within 1 LU of the voice's loudness; median difference \(signed(Samples(differences).median)) LU, \
            median |difference| \(decimal(Samples(differences.map(abs)).median, places: 1)) LU, worst \
            \(signed(worst)) LU.
            """)
        target.measured = "\(within) of \(differences.count), worst \(signed(worst)) LU"
        target.isMet = within == differences.count
        return target
    }

    /// The joins' table, then their medians and how many are within the targets' 1 LU and 2 semitones.
    static func report(_ joins: [Join]) {
        var table = Table(
            "11b. Fallback quality: joins between a clip and the fallback voice (`voice` mode), ± 0.5 s around each",
            columns: [
                "sentence", "clip", "fallback voice", "loudness, fallback − clip (LU)", "F0, fallback − clip (st)",
            ])
        table.printHeader()
        func signed(_ value: Double?) -> String {
            guard let value else { return "n/a" }
            return (value > 0 ? "+" : "") + decimal(value, places: 1)
        }
        for join in joins {
            table.add([
                "\(join.sentence)", join.clip, join.fallback, signed(join.loudnessDifferenceLU),
                signed(join.f0DifferenceSemitones),
            ])
        }
        let loudness = joins.compactMap(\.loudnessDifferenceLU).map(abs)
        let f0 = joins.compactMap(\.f0DifferenceSemitones).map(abs)
        func summary(_ values: [Double], unit: String, within limit: Double) -> String {
            guard !values.isEmpty else { return "none measured" }
            return
                "median |difference| \(decimal(Samples(values).median, places: 1)) \(unit), largest \(decimal(values.max()!, places: 1)) \(unit), \(values.filter { $0 <= limit }.count) of \(values.count) within \(decimal(limit, places: 0)) \(unit)"
        }
        print(
            """

            \(joins.count) joins between a clip and the fallback voice. Loudness: \
            \(summary(loudness, unit: "LU", within: 1)). F0: \(summary(f0, unit: "st", within: 2)) \
            (\(joins.count - f0.count) with a side that has no voiced part).
            """)
    }
}

/// A copy of the screen-reader pack (or of `source`), made in `work` as `name`, whose English voice
/// (`FallbackQualityBench.voice`, or `voice`) falls back in `mode` (`clip`, `spell`, `voice`).
func packCopy(
    fallback mode: String, named name: String, work: WorkDirectory, from source: String = Locations.screenReaderPack,
    voice: String = FallbackQualityBench.voice
) throws -> String {
    let path = work.file(name)
    _ = try runChecked("/bin/cp", [source, path])
    _ = try runChecked(
        Locations.binaries + "/voicebank", ["configure", "--bank", path, "--voice", voice, "--fallback", mode])
    return path
}
