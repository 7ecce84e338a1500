// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite
import ConcatSynth
import Planning
import Rendering
import SpeechCore

/// Item 3: rendering a long text in x-realtime, next to the machine's limit for it: the same clips' blobs read
/// straight out of SQLite into one buffer, with nothing of ours in between.
struct LongRenderBench {
    var pack: BenchPack
    var text: String
    var audioSeconds: Double
    var runs: Int

    func run() throws -> [TargetResult] {
        let synthesizer = try Synthesizer(bank: pack.path)
        let plan = try synthesizer.renderPlan(text)
        // The reads the renderer makes: the stretch each take plays (past its trimmed silence), where the output
        // reaches it.
        var reads: [ClipTake] = []
        var longest = 0
        for segment in plan.segments {
            switch segment.kind {
            case .phrase(let take), .fallback(let take):
                reads.append(take)
                longest = max(longest, take.frameCount)
            default:
                break
            }
        }
        let raw = try RawDatabase(path: pack.path, readOnly: true)
        // SQLite's fastest way to read a pack: through the file's memory map, as the store does.
        try raw.execute("PRAGMA mmap_size = \(1 << 40)")
        let clipBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: longest * 4, alignment: 16)
        defer { clipBuffer.deallocate() }
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { block.deallocate() }

        var ours = Samples()
        var planning = Samples()
        var rendering = Samples()
        var anchor = Samples()
        for round in 0..<(runs + 1) {
            var plan: RenderPlan?
            let planSeconds = try seconds { plan = try synthesizer.renderPlan(text) }
            let pullSeconds = try seconds {
                let renderer = synthesizer.renderingRenderer(for: plan!)
                while !(try renderer.render(into: block)).isComplete {}
            }
            let renderSeconds = planSeconds + pullSeconds
            let readSeconds = try seconds {
                var blob: OpaquePointer?
                defer { if let blob { sqlite3_blob_close(blob) } }
                for take in reads {
                    let status =
                        blob == nil
                        ? sqlite3_blob_open(raw.handle, "main", "clip", "pcm", sqlite3_int64(take.clipID), 0, &blob)
                        : sqlite3_blob_reopen(blob, sqlite3_int64(take.clipID))
                    try raw.check(status, "opening the blob of clip \(take.clipID)")
                    let byteCount = min(take.frameCount * 4, Int(sqlite3_blob_bytes(blob)) - take.firstFrame * 4)
                    try raw.check(
                        sqlite3_blob_read(blob, clipBuffer.baseAddress, Int32(byteCount), Int32(take.firstFrame * 4)),
                        "reading clip \(take.clipID)")
                }
            }
            if round > 0 {
                ours.append(audioSeconds / renderSeconds)
                planning.append(audioSeconds / planSeconds)
                rendering.append(audioSeconds / pullSeconds)
                anchor.append(audioSeconds / readSeconds)
            }
        }
        var table = Table(
            "3. Long render: \(decimal(audioSeconds / 60, places: 1)) minutes of speech, \(pack.label)-clip pack (x-realtime, median (min–max) of \(runs) runs)",
            columns: ["what", "x-realtime"])
        table.printHeader()
        table.add(["concat-synth: plan and render to memory, 4096-frame pulls", Unit.timesRealtime.summary(ours)])
        table.add(["… its planning alone (SSML, tokens, matching)", Unit.timesRealtime.summary(planning)])
        table.add(["… its pulls alone (clip reads, fades, copies)", Unit.timesRealtime.summary(rendering)])
        table.add([
            "anchor: the same \(reads.count) clip blobs read straight out of SQLite (C API, memory-mapped)",
            Unit.timesRealtime.summary(anchor),
        ])
        let measured = ratio(ours, anchor)
        table.add(["ratio (≥ 0.5)", formatRatio(measured)])
        return [
            TargetResult(
                target: "long render ≥ 0.5x the raw SQLite blob-read rate", measured: formatRatio(measured),
                isMet: measured.map { $0 >= 0.5 })
        ]
    }
}
