// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore
import Voicebank

/// Item 14: what choosing takes by place and join costs, with 5 takes of every phrase in a pack of the largest size:
/// in-process first audio at 1x and 4x, and long-render throughput, with `best` beside `rotate` (today's rotation,
/// which looks at no feature) in the same run.
struct TakesBench {
    var pack: BenchPack
    var requests: [Request]
    var runs: Int
    var longRenderRuns: Int
    var longSeconds: Double

    static let takesPerPhrase = 5
    static let speeds: [Double] = [1, 4]

    func run() throws -> [TargetResult] {
        let choices: [TakeChoice] = [.best, .rotate]
        let synthesizers = try choices.map {
            try Synthesizer(pack: VoicePack(path: pack.path, access: .readOnly), takeChoice: $0)
        }
        let normalRate = synthesizers[0].voice.normalRate
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: InProcessBench.blockFrameCount)
        defer { buffer.deallocate() }

        var firstAudio = Table(
            "14. Takes by place and join cost: in-process time to first audio with \(Self.takesPerPhrase) takes of every phrase, \(pack.label)-clip pack (µs, median (min–max) of \(runs) runs)",
            columns: ["request"] + Self.speeds.flatMap { speed in choices.map { "\($0.rawValue), \(Int(speed))x" } })
        firstAudio.printHeader()
        var worst = 0.0
        for request in requests {
            var row = [request.name]
            for speed in Self.speeds {
                for (index, synthesizer) in synthesizers.enumerated() {
                    let speech = request.speech(atSpeed: speed, normalRate: normalRate)
                    var first = Samples()
                    for round in 0..<(runs + 3) {
                        let start = now()
                        let renderer = try synthesizer.renderer(for: speech)
                        var pulled = try renderer.render(into: buffer)
                        while pulled.frameCount == 0 && !pulled.isComplete {
                            pulled = try renderer.render(into: buffer)
                        }
                        if round >= 3 { first.append(now() - start) }
                    }
                    row.append(Unit.microseconds.summary(first))
                    if choices[index] == .best { worst = max(worst, first.median) }
                }
            }
            firstAudio.add(row)
        }

        let long = try longText(speakingFor: longSeconds, with: synthesizers[0])
        var throughput = Table(
            "14. Takes: long render of \(decimal(long.seconds / 60, places: 1)) minutes of speech, \(pack.label)-clip pack with \(Self.takesPerPhrase) takes a phrase (x-realtime, median (min–max) of \(longRenderRuns) runs)",
            columns: ["best: plan, choose, render", "rotate: plan, render", "ratio (≥ 0.8)"])
        throughput.printHeader()
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { block.deallocate() }
        var speeds: [Samples] = []
        for synthesizer in synthesizers {
            var realtime = Samples()
            for round in 0..<(longRenderRuns + 1) {
                let elapsed = try seconds {
                    let renderer = try synthesizer.renderer(for: SpeechRequest(long.text))
                    while !(try renderer.render(into: block)).isComplete {}
                }
                if round > 0 { realtime.append(long.seconds / elapsed) }
            }
            speeds.append(realtime)
        }
        let ratio = speeds[0].median / speeds[1].median
        throughput.add([
            Unit.timesRealtime.summary(speeds[0]), Unit.timesRealtime.summary(speeds[1]), decimal(ratio, places: 2),
        ])
        return [
            TargetResult(
                target:
                    "in-process first audio ≤ 0.5 ms at 1x and 4x with \(Self.takesPerPhrase) takes a phrase, \(pack.label)-clip pack (worst request)",
                measured: "\(Unit.microseconds.format(worst)) µs", isMet: worst <= 0.5e-3),
            TargetResult(
                target: "long render with best takes ≥ 0.8x of rotation's throughput",
                measured: "\(decimal(ratio, places: 2))x", isMet: ratio >= 0.8),
        ]
    }
}
