// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth

/// A voice pack the benchmark made, and how many clips it holds.
struct BenchPack {
    var clipCount: Int
    var path: String

    var label: String { clipCount.formatted }
}

extension Int {
    /// `100000` as `100,000`.
    var formatted: String {
        let digits = Array(String(self))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }
}

/// Item 2: in-process time from the request string to the first filled buffer, and to the whole request, with
/// packs of growing size; the pack and synthesizer are opened once, as a screen reader's voice is.
struct InProcessBench {
    var requests: [Request]
    var packs: [BenchPack]
    var runs: Int
    /// Frames per pull: 512 at 22050 Hz is 23 ms, an Audio Unit's usual render block.
    static let blockFrameCount = 512

    func run() throws -> [TargetResult] {
        var firstAudio: [[Samples]] = []
        var whole: [[Samples]] = []
        var opening: [Samples] = []
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.blockFrameCount)
        defer { buffer.deallocate() }
        for pack in packs {
            var open = Samples()
            var synthesizer: Synthesizer?
            for _ in 0..<3 {
                open.append(
                    try seconds { synthesizer = try Synthesizer(bank: pack.path) })
            }
            opening.append(open)
            var packFirst: [Samples] = []
            var packWhole: [Samples] = []
            for request in requests {
                let plan = try synthesizer!.renderPlan(request.text)
                if !plan.fallbacks.isEmpty {
                    print(
                        "note: \(request.name) needs the fallback clip in the \(pack.label)-clip pack: \(plan.fallbacks.map(\.text))"
                    )
                }
                var first = Samples()
                var all = Samples()
                for round in 0..<(runs + 3) {
                    let start = now()
                    let renderer = try synthesizer!.renderingRenderer(for: synthesizer!.renderPlan(request.text))
                    var pulled = try renderer.render(into: buffer)
                    while pulled.frameCount == 0 && !pulled.isComplete { pulled = try renderer.render(into: buffer) }
                    let firstFilled = now()
                    while !pulled.isComplete { pulled = try renderer.render(into: buffer) }
                    let end = now()
                    if round >= 3 {
                        first.append(firstFilled - start)
                        all.append(end - start)
                    }
                }
                packFirst.append(first)
                packWhole.append(all)
            }
            firstAudio.append(packFirst)
            whole.append(packWhole)
        }

        let labels = packs.map(\.label)
        var table = Table(
            "2. In-process time to first audio (\(Self.blockFrameCount)-frame pull) and to the whole request (µs, median (min–max) of \(runs) runs)",
            columns: ["request"] + labels.map { "first audio, \($0) clips" } + labels.map { "whole, \($0) clips" })
        table.printHeader()
        table.add(
            ["(open pack and voice)"] + opening.map { Unit.milliseconds.summary($0) + " ms" } + labels.map { _ in "" })
        var worst = 0.0
        for (index, request) in requests.enumerated() {
            table.add(
                [request.name] + firstAudio.map { Unit.microseconds.summary($0[index]) }
                    + whole.map { Unit.microseconds.summary($0[index]) })
            worst = max(worst, firstAudio.last![index].median)
        }
        let largest = packs.last!.label
        return [
            TargetResult(
                target: "in-process time to first audio < 0.5 ms with the \(largest)-clip pack (worst request)",
                measured: "\(Unit.microseconds.format(worst)) µs", isMet: worst < 0.5e-3)
        ]
    }
}
