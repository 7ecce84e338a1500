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
        for request in requests {
            var perPack: [Samples] = packs.map { _ in Samples() }
            for _ in 0..<runs {
                for (index, pack) in packs.enumerated() {
                    let time = try spawnAndWait(
                        concatSynth, ["render", "--bank", pack.path, "-o", work.file("memory.wav"), "--file", request.file],
                        showingErrors: true)
                    guard time.status == 0 else { throw BenchError(description: "concat-synth render exited \(time.status)") }
                    perPack[index].append(Double(time.peakResidentBytes) / 1_048_576)
                }
            }
            let difference = perPack.last!.median - perPack.first!.median
            worst = max(worst, difference)
            table.add([request.name] + perPack.map { Unit.megabytes.summary($0) } + [Unit.megabytes.format(difference)])
        }
        return [
            TargetResult(
                target: "peak RSS with the \(packs.last!.label)-clip pack within 10 MB of the \(packs.first!.label)-clip pack's",
                measured: "+\(Unit.megabytes.format(worst)) MB", isMet: worst <= 10)
        ]
    }
}
