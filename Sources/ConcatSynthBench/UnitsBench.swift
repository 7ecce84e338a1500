// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore

/// Item 20: the `units` fallback's speed and memory with an aligned English voice (the pack `--pack` names, the default
/// pack by default): the first audio of requests that start with a word built from phone-pair units, in process
/// (item 12's way), against espeak-ng's own first audio of the same text; a long render's speed; and the peak RSS of a
/// render process in `units` mode against `voice` mode, which is what the unit index costs.
struct UnitsBench {
    var runs: Int
    /// The pack whose voice speaks; copies of it are configured to `units` and `voice`.
    var pack: String
    var voice: String
    var work: WorkDirectory

    /// Requests whose first word no clip or take of Allison's prompts says whole, built from units.
    static let requests = ["Zoology is fun.", "Bluish tourism, wonderful."]

    /// The targets, in the order `run()` gives them.
    static let targets = [
        "first audio of a request starting with a unit-built word ≤ espeak-ng's own (worst request)",
        "a long `units` render ≥ 100x real time", "a `units` render's peak RSS within 16 MB of a `voice` render's",
    ]

    func run() throws -> [TargetResult] {
        let unitsPack = try packCopy(fallback: "units", named: "units.sqlite", work: work, from: pack, voice: voice)
        let voicePack = try packCopy(
            fallback: "voice", named: "units-voice.sqlite", work: work, from: pack, voice: voice)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: InProcessBench.blockFrameCount)
        defer { buffer.deallocate() }
        let synthesizer = try Synthesizer(bank: unitsPack, voice: voice)
        let voiceSynthesizer = try Synthesizer(bank: voicePack, voice: voice)
        var results: [TargetResult] = []
        guard try synthesizer.renderPlan(Self.requests[0]).fallbacks.first?.fallback?.mode == .units else {
            print("note: item 20 needs a pack whose English takes are aligned (voicebank align); \(pack)'s are not\n")
            return Self.targets.map { TargetResult(target: $0, measured: "n/a", isMet: nil) }
        }

        var table = Table(
            "20. First audio of a request that starts with a word built from units: `units` mode, in process, against espeak-ng's library (ms, median (min–max) of \(runs) runs)",
            columns: [
                "request", "first unit-built word", "first request of a synthesizer just opened",
                "concat-synth, \(Int(FallbackFirstAudioBench.pauseSeconds * 1_000)) ms after the last request",
                "the same in `voice` mode (espeak-ng speaks the run)",
                "espeak-ng's own first audio, \(Int(FallbackFirstAudioBench.pauseSeconds * 1_000)) ms after the last",
                "ratio (≤ 1)",
            ])
        table.printHeader()
        var worst: Double?
        for text in Self.requests {
            let plan = try synthesizer.renderPlan(text)
            guard let first = plan.fallbacks.first, first.frame == 0, first.fallback?.mode == .units else {
                throw BenchError(description: "\"\(text)\" does not start with words the units speak")
            }
            // A synthesizer just opened reads the unit index and works out the stress of the takes it weighs.
            let cold = try firstAudio(text, Synthesizer(bank: unitsPack, voice: voice), pause: 0, into: buffer)
            let ours = try firstAudio(
                text, synthesizer, pause: FallbackFirstAudioBench.pauseSeconds, rounds: runs, into: buffer)
            let spoken = try firstAudio(
                text, voiceSynthesizer, pause: FallbackFirstAudioBench.pauseSeconds, rounds: runs, into: buffer)
            let settings = synthesizer.voice.fallbackVoice
            let espeakVoice =
                synthesizer.voice.language.lowercased() + (settings.variant.isEmpty ? "" : "+\(settings.variant)")
            let theirs = try EspeakFirstAudio.measure(
                text, voice: espeakVoice, settings: settings, runs: runs, pause: FallbackFirstAudioBench.pauseSeconds,
                work: work)
            let ratio = ours.median / theirs.median
            worst = max(worst ?? ratio, ratio)
            table.add([
                text, "\"\(first.text)\"", Unit.milliseconds.format(cold), Unit.milliseconds.summary(ours),
                Unit.milliseconds.summary(spoken),
                Unit.milliseconds.summary(theirs), "\(decimal(ratio, places: 2))x",
            ])
        }
        results.append(
            TargetResult(
                target: Self.targets[0],
                measured: worst.map { "\(decimal($0, places: 2))x" } ?? "n/a", isMet: worst.map { $0 <= 1 }))

        results.append(try longRender(synthesizer, buffer: buffer))
        results.append(try memory(units: unitsPack, voice: voicePack))
        return results
    }

    /// The everyday sentences as one request, rendered whole in process with the synthesizer open: x real time.
    private func longRender(_ synthesizer: Synthesizer, buffer: UnsafeMutableBufferPointer<Float>) throws
        -> TargetResult
    {
        let text = try EverydaySentence.all().map(\.text).joined(separator: " ")
        var speed = Samples()
        var audioSeconds = 0.0
        for _ in 0..<max(1, runs / 20) {
            var frames = 0
            let elapsed = try seconds {
                let renderer = try synthesizer.renderer(for: SpeechRequest(text))
                while true {
                    let pulled = try renderer.render(into: buffer)
                    frames += pulled.frameCount
                    if pulled.isComplete { break }
                }
            }
            audioSeconds = Double(frames) / Double(RenderFormat.sampleRate)
            speed.append(audioSeconds / elapsed)
        }
        var table = Table(
            "20b. A long `units` render in process: the everyday sentences as one request (x real time, median (min–max) of \(speed.count) runs)",
            columns: ["request", "audio", "speed (≥ 100x)"])
        table.printHeader()
        table.add([
            "the \(try EverydaySentence.all().count) everyday sentences", "\(decimal(audioSeconds, places: 1)) s",
            Unit.timesRealtime.summary(speed),
        ])
        return TargetResult(
            target: Self.targets[1], measured: "\(Unit.timesRealtime.format(speed.median))x",
            isMet: speed.median >= 100)
    }

    /// Peak RSS of `concat-synth render` processes of the same requests in `units` and `voice` mode.
    private func memory(units: String, voice: String) throws -> TargetResult {
        let concatSynth = Locations.binaries + "/concat-synth"
        var table = Table(
            "20c. Peak RSS of a concat-synth render process, `units` mode against `voice` mode (MB, median (min–max) of \(max(1, runs / 20)) runs)",
            columns: ["request", "`units` mode", "`voice` mode", "difference (≤ 16 MB)"])
        table.printHeader()
        var worst = 0.0
        for text in Self.requests + ["Bluetooth is off."] {
            var measured = [Samples(), Samples()]
            for _ in 0..<max(1, runs / 20) {
                for (index, pack) in [units, voice].enumerated() {
                    let run = try PeakRSS.measure(
                        concatSynth, ["render", "--bank", pack, "-o", work.file("units-memory.wav"), text], work: work)
                    guard run.status == 0 else {
                        throw BenchError(description: "concat-synth render exited \(run.status)")
                    }
                    measured[index].append(Double(run.bytes) / 1_048_576)
                }
            }
            let difference = measured[0].median - measured[1].median
            worst = max(worst, difference)
            table.add(
                [text] + measured.map { Unit.megabytes.summary($0) } + [Unit.megabytes.format(difference)])
        }
        return TargetResult(
            target: Self.targets[2], measured: "+\(Unit.megabytes.format(worst)) MB",
            isMet: worst <= 16)
    }
}
