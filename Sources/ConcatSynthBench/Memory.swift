// SPDX-License-Identifier: GPL-3.0-or-later
/// Peak RSS of a child process, measured by a fresh `concat-synth-bench --peak-rss-of` helper.
enum PeakRSS {
    static let helperFlag = "--peak-rss-of"

    /// The exit status and peak RSS in bytes of `executable` run with `arguments`.
    static func measure(_ executable: String, _ arguments: [String], work: WorkDirectory) throws -> (
        status: Int32, bytes: Int
    ) {
        let result = work.file("peak-rss.txt")
        let helper = try spawnAndWait(
            Locations.binaries + "/concat-synth-bench", [helperFlag, result, executable] + arguments,
            showingErrors: true)
        guard helper.status == 0 else { throw BenchError(description: "the peak RSS helper exited \(helper.status)") }
        let fields = try readText(result).split(separator: " ")
        guard fields.count == 2, let status = Int32(fields[0]), let bytes = Int(fields[1].prefix { $0.isNumber }) else {
            throw BenchError(description: "the peak RSS helper wrote something else: \(fields)")
        }
        return (status, bytes)
    }
}

/// Item 5: peak resident memory of `concat-synth render` processes, the same requests with the smallest and
/// the largest pack.
struct MemoryBench {
    var packs: [BenchPack]
    var requests: [(name: String, file: String)]
    var runs: Int
    var work: WorkDirectory

    func run() throws -> [TargetResult] {
        let concatSynth = Locations.binaries + "/concat-synth"
        var table = Table(
            "5. Peak RSS of a concat-synth render process (MB, median (min–max) of \(runs) runs)",
            columns: ["request"] + packs.map { "\($0.label)-clip pack" } + ["difference (≤ 10 MB)"])
        table.printHeader()
        var worst = 0.0
        // Any child's peak includes the helper's own RSS at the spawn: /bin/true shows that floor.
        var floor = Samples()
        for _ in 0..<runs { floor.append(Double(try PeakRSS.measure("/bin/true", [], work: work).bytes) / 1_048_576) }
        table.add(["(floor: /bin/true from the same helper)"] + packs.map { _ in Unit.megabytes.summary(floor) } + [""])
        for request in requests {
            var perPack: [Samples] = packs.map { _ in Samples() }
            for _ in 0..<runs {
                for (index, pack) in packs.enumerated() {
                    let run = try PeakRSS.measure(
                        concatSynth,
                        ["render", "--bank", pack.path, "-o", work.file("memory.wav"), "--file", request.file],
                        work: work)
                    guard run.status == 0 else {
                        throw BenchError(description: "concat-synth render exited \(run.status)")
                    }
                    perPack[index].append(Double(run.bytes) / 1_048_576)
                }
            }
            let difference = perPack.last!.median - perPack.first!.median
            worst = max(worst, difference)
            table.add([request.name] + perPack.map { Unit.megabytes.summary($0) } + [Unit.megabytes.format(difference)])
        }
        return [
            TargetResult(
                target:
                    "peak RSS with the \(packs.last!.label)-clip pack within 10 MB of the \(packs.first!.label)-clip pack's",
                measured: "+\(Unit.megabytes.format(worst)) MB", isMet: worst <= 10)
        ]
    }
}
