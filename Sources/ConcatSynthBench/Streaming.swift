// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import Planning
import Rendering
import SpeechCore
import Voicebank

/// Item 7: speaking rate. A long render at 1x, 2x and 4x next to libsonic's C API stretching the same clips in
/// one stream (what a program that time-stretches speech does), and the time to first audio at 4x. Both measure
/// the stretch itself: the synthesizer keeps no stretched clips. A last column renders as the tools do, keeping
/// them (a long text says its clips many times).
struct RateBench {
    var pack: BenchPack
    var text: String
    /// How long the text speaks at 1x.
    var audioSeconds: Double
    var requests: [Request]
    var runs: Int
    var inProcessRuns: Int
    static let speeds: [Double] = [1, 2, 4]

    func run() throws -> [TargetResult] {
        let synthesizer = try Synthesizer(pack: VoicePack(path: pack.path, access: .readOnly), stretchCacheCapacity: 0)
        let keeping = try Synthesizer(pack: VoicePack(path: pack.path, access: .readOnly))
        let normalRate = synthesizer.voice.normalRate
        let clips = try VoicePack(path: pack.path, access: .readOnly).clipIndexes()[0]
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { block.deallocate() }

        var table = Table(
            "7. Long render at a speaking rate: \(decimal(audioSeconds / 60, places: 1)) minutes of speech at 1x, \(pack.label)-clip pack (x-realtime of the 1x length, median (min–max) of \(runs) runs)",
            columns: [
                "speed", "concat-synth: plan, stretch, render", "anchor: libsonic C API, one stream", "ratio (≥ 0.8)",
                "concat-synth, stretched clips kept",
            ])
        table.printHeader()
        var worst: Double?
        for speed in Self.speeds {
            let request = SpeechRequest(text, prosody: Prosody(rate: speed * normalRate))
            let plan = try synthesizer.renderPlan(request)
            var ours = Samples()
            var anchor = Samples()
            var kept = Samples()
            func render(with synthesizer: Synthesizer) throws -> Double {
                try seconds {
                    let renderer = try synthesizer.renderer(for: request)
                    while !(try renderer.render(into: block)).isComplete {}
                }
            }
            for round in 0..<(runs + 1) {
                let rendering = try render(with: synthesizer)
                let stretch = try seconds { try stretchWithSonic(plan, clips: clips, speed: speed, block: block) }
                let keepingRender = try render(with: keeping)
                if round > 0 {
                    ours.append(audioSeconds / rendering)
                    anchor.append(audioSeconds / stretch)
                    kept.append(audioSeconds / keepingRender)
                }
            }
            let measured = ratio(ours, anchor)
            worst = [worst, measured].compactMap { $0 }.min()
            table.add([
                "\(decimal(speed, places: 0))x", Unit.timesRealtime.summary(ours), Unit.timesRealtime.summary(anchor),
                formatRatio(measured), Unit.timesRealtime.summary(kept),
            ])
        }

        // A screen reader at 4x: the pack opened once, each request's first pull timed. The request is spoken at
        // four times its own speed: a request without a rate at 4x the voice's normal rate; VoiceOver's requests,
        // which carry the rate VoiceOver means as normal (400% on a voice whose normal rate is 400%), inside a
        // rate of 4 (a reader at 4x would send 1600%).
        var first = Samples()
        let pull = UnsafeMutableBufferPointer<Float>.allocate(capacity: InProcessBench.blockFrameCount)
        defer { pull.deallocate() }
        var slowest = 0.0
        for request in requests {
            var times = Samples()
            for _ in 0..<inProcessRuns {
                times.append(
                    try seconds {
                        let renderer = try synthesizer.renderer(
                            for: request.speech(atSpeed: 4, normalRate: normalRate))
                        _ = try renderer.render(into: pull)
                    })
            }
            slowest = max(slowest, times.median)
            first.append(times.median)
        }
        var firstTable = Table(
            "7b. In-process time to first audio at 4x each request's own speed (512-frame pull), \(pack.label)-clip pack (µs, median over requests of each request's median of \(inProcessRuns) runs)",
            columns: ["what", "µs"])
        firstTable.printHeader()
        firstTable.add(["every request", Unit.microseconds.summary(first)])
        return [
            TargetResult(
                target: "long render at 1x, 2x, 4x ≥ 0.8x libsonic's C API on the same clips (worst speed)",
                measured: formatRatio(worst), isMet: worst.map { $0 >= 0.8 }),
            TargetResult(
                target: "time to first audio at 4x < 0.5 ms with the \(pack.label)-clip pack (worst request)",
                measured: "\(Unit.microseconds.format(slowest)) µs", isMet: slowest < 0.000_5),
        ]
    }

    /// The anchor: every clip of the plan read out of the pack and stretched by one libsonic stream.
    private func stretchWithSonic(
        _ plan: RenderPlan, clips: ClipIndex, speed: Double, block: UnsafeMutableBufferPointer<Float>
    ) throws {
        let stretcher = TimeStretcher(speed: speed, pitch: 1)
        for segment in plan.segments {
            guard case .phrase(let take) = segment.kind else {
                if case .fallback(let take) = segment.kind { try feed(take) }
                continue
            }
            try feed(take)
        }
        stretcher.flush()
        while stretcher.read(into: block) > 0 {}

        func feed(_ take: ClipTake) throws {
            var start = 0
            while true {
                let count = try clips.readRenderReadyPCM(take, from: start, into: block)
                guard count > 0 else { break }
                stretcher.write(UnsafeBufferPointer(rebasing: block[..<count]))
                while stretcher.read(into: block) > 0 {}
                start += count
            }
        }
    }
}

/// Item 8: peak resident memory of renders of long requests: SSML from a file, plain text on standard input.
struct LongInputMemoryBench {
    var ssmlFile: String
    var textFile: String
    var work: WorkDirectory

    func run() throws -> [TargetResult] {
        let concatSynth = Locations.binaries + "/concat-synth"
        var table = Table(
            "8. Peak RSS of a render of a long request, default pack (MB, one run each)",
            columns: ["request", "input (MB)", "peak RSS (MB)", "render time (s)"])
        table.printHeader()
        var worst = 0.0
        let cases = [
            (
                "SSML file (--file): one paragraph of sentences, marks and breaks", ssmlFile,
                "--file \(quoted(ssmlFile))"
            ),
            ("plain text on standard input", textFile, "- < \(quoted(textFile))"),
        ]
        for (name, file, input) in cases {
            // The shell replaces itself with concat-synth, so the peak is the render's.
            let command = "exec \(quoted(concatSynth)) render -o - \(input) > /dev/null 2>&1"
            var run: (status: Int32, bytes: Int) = (0, 0)
            let elapsed = try seconds { run = try PeakRSS.measure("/bin/sh", ["-c", command], work: work) }
            guard run.status == 0 else { throw BenchError(description: "concat-synth render exited \(run.status)") }
            let megabytes = Double(run.bytes) / 1_048_576
            worst = max(worst, megabytes)
            table.add([
                name, decimal(Double(fileSize(file) ?? 0) / 1_048_576, places: 1), decimal(megabytes, places: 1),
                decimal(elapsed, places: 1),
            ])
        }
        return [
            TargetResult(
                target: "peak RSS ≤ 64 MB for a long SSML file and a long text on standard input",
                measured: "\(decimal(worst, places: 1)) MB", isMet: worst <= 64)
        ]
    }

    /// `path` as one shell word.
    private func quoted(_ path: String) -> String {
        "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `bytes` of SSML: sentences of the default pack's phrases, with marks, breaks and emphasis.
    static func ssml(bytes: Int) -> String {
        let sentences = [
            "Good morning, double tap to open.", "Hello, nice to meet you!", "Thank you. Goodbye.",
        ]
        var parts = ["<speak><p>"]
        var size = 0
        var index = 0
        while size < bytes {
            let sentence = sentences[index % sentences.count]
            let part =
                index % 2 == 0
                ? #"<s>\#(sentence)</s><mark name="m\#(index)"/>"#
                : #"<s><emphasis>\#(sentence)</emphasis> <break time="100ms"/></s>"#
            parts.append(part)
            size += part.utf8.count
            index += 1
        }
        parts.append("</p></speak>")
        return parts.joined()
    }

    /// `bytes` of plain text the default pack speaks.
    static func text(bytes: Int) -> String {
        let unit = "Good morning, double tap to open. Hello, nice to meet you! Thank you. Goodbye.\n"
        return String(repeating: unit, count: max(1, bytes / unit.utf8.count))
    }
}
