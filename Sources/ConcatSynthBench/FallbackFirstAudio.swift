// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CEspeakNG
import ConcatSynth
import Rendering
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 12: in-process time to the first audio of a request that starts with words the default pack does
/// not cover, spoken by the fallback voice (`voice` mode, the default pack's), against espeak-ng's own first audio
/// of the same text through its library, measured in the same run.
///
/// Ours is timed as a screen reader's voice is used: the synthesizer open, from the request to the first filled
/// 512-frame pull, each request `pauseSeconds` after the last as a listener's messages come; the fallback voice speaks
/// each run on a libespeak-ng made fresh after the last synthesis (for identical output every time), which the pause
/// leaves time for. The same requests back to back show what waiting for that costs. espeak-ng's is timed in a helper
/// process of its own (`EspeakFirstAudio`), since its callback and state are the process's: from `espeak_Synth` to the
/// first samples its callback receives, libespeak-ng initialised once, with the fallback voice's voice, parameters and
/// 50 ms buffers, each synthesis `pauseSeconds` after the last, as ours.
struct FallbackFirstAudioBench {
    var runs: Int
    var work: WorkDirectory

    /// How long after the last request each is made: longer than making libespeak-ng fresh takes, so that each
    /// request finds it fresh.
    static let pauseSeconds = 0.1

    /// Requests whose first words no clip of the default English voice covers.
    static let requests = [
        "Zebra crossing ahead. Double tap to open.",
        "The weather today is sunny with a high of 24 degrees.",
    ]

    func run() throws -> [TargetResult] {
        let synthesizer = try Synthesizer(bank: Locations.screenReaderPack, voice: FallbackQualityBench.voice)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: InProcessBench.blockFrameCount)
        defer { buffer.deallocate() }
        var table = Table(
            "12. First audio of a request that starts with uncovered words: default pack (`voice` mode) against espeak-ng's library (ms, median (min–max) of \(runs) runs)",
            columns: [
                "request", "first uncovered run",
                "concat-synth, \(Int(Self.pauseSeconds * 1_000)) ms after the last request",
                "concat-synth, back to back",
                "espeak-ng's own first audio, \(Int(Self.pauseSeconds * 1_000)) ms after the last", "ratio (≤ 2)",
            ])
        table.printHeader()
        var worst: Double?
        let settings = synthesizer.voice.fallbackVoice
        for text in Self.requests {
            let plan = try synthesizer.renderPlan(text)
            guard let run = plan.fallbacks.first?.fallback?.words, plan.fallbacks.first?.frame == 0 else {
                throw BenchError(description: "\"\(text)\" does not start with words the default pack does not cover")
            }
            let ours = try firstAudio(text, synthesizer, pause: Self.pauseSeconds, rounds: runs, into: buffer)
            let backToBack = try firstAudio(text, synthesizer, pause: 0, rounds: runs, into: buffer)
            let voiceName =
                synthesizer.voice.language.lowercased() + (settings.variant.isEmpty ? "" : "+\(settings.variant)")
            let theirs = try EspeakFirstAudio.measure(
                text, voice: voiceName, settings: settings, runs: runs, pause: Self.pauseSeconds, work: work)
            let ratio = ours.median / theirs.median
            worst = max(worst ?? ratio, ratio)
            table.add([
                text, "\"\(run)\"", Unit.milliseconds.summary(ours), Unit.milliseconds.summary(backToBack),
                Unit.milliseconds.summary(theirs), "\(decimal(ratio, places: 2))x",
            ])
        }
        return [
            TargetResult(
                target: "first audio of a request starting with uncovered words ≤ 2x espeak-ng's own (worst request)",
                measured: worst.map { "\(decimal($0, places: 2))x" } ?? "n/a", isMet: worst.map { $0 <= 2 }),
            try coveredFirst(synthesizer, buffer: buffer),
        ]
    }

    /// Requests that start with words the default pack covers and fall back later, in the first sentence (inside
    /// the planner's look-ahead, so the fallback voice is asked before the first audio) or the second.
    static let coveredFirstRequests = [
        "Hello Bob, nice to meet you.",
        "Double tap to open. Zebra crossing ahead.",
        "Good morning. The weather today is sunny with a high of 24 degrees.",
    ]

    /// Item 12b: the first audio of requests that start covered, with the default pack's `voice` mode against a copy
    /// of it in `clip` mode, the same requests alternately: the fallback voice should cost them nothing.
    private func coveredFirst(_ synthesizer: Synthesizer, buffer: UnsafeMutableBufferPointer<Float>) throws
        -> TargetResult
    {
        let clipPack = try packCopy(fallback: "clip", named: "first-audio-clip.sqlite", work: work)
        let clipSynthesizer = try Synthesizer(bank: clipPack, voice: FallbackQualityBench.voice)
        var table = Table(
            "12b. First audio of requests that start with covered words: default pack in `voice` mode and in `clip` mode, each request \(Int(Self.pauseSeconds * 1_000)) ms after the last (µs, median (min–max) of \(runs) runs)",
            columns: ["request", "`voice` mode", "`clip` mode", "ratio"])
        table.printHeader()
        var worst: Double?
        for text in Self.coveredFirstRequests {
            var voice = Samples()
            var clip = Samples()
            for round in 0..<(runs + 3) {
                let voiceTime = try firstAudio(text, synthesizer, pause: Self.pauseSeconds, into: buffer)
                let clipTime = try firstAudio(text, clipSynthesizer, pause: Self.pauseSeconds, into: buffer)
                guard round >= 3 else { continue }
                voice.append(voiceTime)
                clip.append(clipTime)
            }
            let ratio = voice.median / clip.median
            worst = max(worst ?? ratio, ratio)
            table.add([
                text, Unit.microseconds.summary(voice), Unit.microseconds.summary(clip),
                "\(decimal(ratio, places: 2))x",
            ])
        }
        return TargetResult(
            target:
                "first audio of a request starting with covered words, `voice` mode ≤ 1.1x `clip` mode (worst request)",
            measured: worst.map { "\(decimal($0, places: 2))x" } ?? "n/a", isMet: worst.map { $0 <= 1.1 })
    }
}

/// Seconds from `text`'s request to its first filled pull of `buffer`, made `pause` seconds after the last request.
func firstAudio(
    _ text: String, _ synthesizer: Synthesizer, pause: Double, into buffer: UnsafeMutableBufferPointer<Float>
) throws -> Double {
    if pause > 0 { usleep(UInt32(pause * 1e6)) }
    let start = now()
    let renderer = try synthesizer.renderer(for: SpeechRequest(text))
    var pulled = try renderer.render(into: buffer)
    while pulled.frameCount == 0 && !pulled.isComplete { pulled = try renderer.render(into: buffer) }
    return now() - start
}

/// `firstAudio` of `rounds` requests after three that are not measured.
func firstAudio(
    _ text: String, _ synthesizer: Synthesizer, pause: Double, rounds: Int,
    into buffer: UnsafeMutableBufferPointer<Float>
) throws -> Samples {
    for _ in 0..<3 { _ = try firstAudio(text, synthesizer, pause: pause, into: buffer) }
    return Samples(try (0..<rounds).map { _ in try firstAudio(text, synthesizer, pause: pause, into: buffer) })
}

/// espeak-ng's own first audio, timed in a fresh `concat-synth-bench --espeak-first-audio` process.
enum EspeakFirstAudio {
    static let helperFlag = "--espeak-first-audio"

    /// Seconds from `espeak_Synth` to the first samples of `text` spoken by espeak-ng's `voice` with `settings`'
    /// parameters, `runs` times after three unmeasured ones, each `pause` seconds after the last.
    static func measure(
        _ text: String, voice: String, settings: FallbackVoiceSettings, runs: Int, pause: Double, work: WorkDirectory
    ) throws -> Samples {
        let result = work.file("espeak-first-audio.txt")
        let helper = try spawnAndWait(
            Locations.binaries + "/concat-synth-bench",
            [
                helperFlag, result, "\(runs)", voice, "\(settings.wordsPerMinute)", "\(settings.pitch)",
                "\(settings.pitchRange)", text,
            ], showingErrors: true)
        guard helper.status == 0 else {
            throw BenchError(description: "the espeak-ng first-audio helper exited \(helper.status)")
        }
        return Samples(try readText(result).split(separator: "\n").compactMap { Double($0) })
    }

    /// The helper's work: loads libespeak-ng, then speaks `text` `runs + 3` times with `voice` and the parameters,
    /// each `FallbackFirstAudioBench.pauseSeconds` after the last, and writes the time to the first samples of each
    /// measured run to `file`, one a line.
    static func helper(
        file: String, runs: Int, voice: String, wordsPerMinute: Int32, pitch: Int32, pitchRange: Int32, text: String
    ) throws {
        guard let espeak = concat_synth_espeak_load() else {
            throw BenchError(
                description: "cannot load libespeak-ng: \(String(cString: concat_synth_espeak_load_error()))")
        }
        let rate = espeak.pointee.espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, 50, nil, espeakINITIALIZE_DONT_EXIT)
        guard rate > 0 else { throw BenchError(description: "espeak_Initialize failed") }
        espeak.pointee.espeak_SetSynthCallback(firstSamples)
        guard espeak.pointee.espeak_SetVoiceByName(voice) == EE_OK else {
            throw BenchError(description: "espeak-ng has no voice \(voice)")
        }
        for (parameter, value) in [(espeakRATE, wordsPerMinute), (espeakPITCH, pitch), (espeakRANGE, pitchRange)] {
            guard espeak.pointee.espeak_SetParameter(parameter, value, 0) == EE_OK else {
                throw BenchError(description: "espeak-ng refused parameter \(parameter.rawValue) = \(value)")
            }
        }
        var lines: [String] = []
        for round in 0..<(runs + 3) {
            usleep(UInt32(FallbackFirstAudioBench.pauseSeconds * 1e6))
            firstSamplesTime = nil
            let start = now()
            let status = text.withCString {
                espeak.pointee.espeak_Synth(
                    $0, text.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
            }
            guard status == EE_OK, let first = firstSamplesTime else {
                throw BenchError(description: "espeak_Synth gave no samples (status \(status.rawValue))")
            }
            if round >= 3 { lines.append("\(first - start)") }
        }
        try writeText(lines.joined(separator: "\n") + "\n", to: file)
    }
}

/// When the helper's synthesis first gave samples; set by `firstSamples`, on the helper's only thread.
nonisolated(unsafe) private var firstSamplesTime: Double?

/// espeak-ng's callback in the helper: notes the time of the first samples and stops the synthesis (1), which is all
/// the helper measures.
private func firstSamples(
    _ samples: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard samples != nil, count > 0 else { return 0 }
    if firstSamplesTime == nil { firstSamplesTime = now() }
    return 1
}
