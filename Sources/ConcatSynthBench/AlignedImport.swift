// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 23: how fast `voicebank import` takes a real voice's prompts, aligned (the default for English) and
/// `--no-align`. `promptCount` of the English voice's prompts (the default pack's, Allison's, unless `--pack` names
/// another), chosen evenly through its transcript, are exported with `voicebank export` and imported by the release
/// `voicebank` into a new English voice of a new pack, each way in turn; wall time, CPU time (voicebank and the
/// aligner processes it waits for) and the real-time factors, with the load average beside them, since the wall
/// figures are only as good as the machine is free.
struct AlignedImportBench {
    var promptCount: Int
    /// The pack whose English voice's prompts are imported; `nil` for the default pack.
    var pack: String?
    var runs: Int
    var work: WorkDirectory

    /// The imported voice's identifier, in the new pack.
    static let voice = "org.concatsynth.import-bench"

    func run() throws -> [TargetResult] {
        let source = pack ?? Locations.defaultPack
        let voice = try EverydayJudgeBench.englishVoice(in: source)
        let voicebank = Locations.binaries + "/voicebank"
        // The aligner runs in tools/python-env's environment; made now, so that its making is not timed.
        _ = try pythonEnvironment(work: work)

        let exported = work.file("import-prompts")
        try runChecked(voicebank, ["export", "--bank", source, "--voice", voice.identifier, exported])
        let folder = exported + "/" + voice.identifier
        let lines = try readText(folder + "/transcript.tsv").split(separator: "\n")
        guard let header = lines.first else { throw BenchError(description: "\(folder)/transcript.tsv is empty") }
        // file, text, role, position: the fallback clip is no prompt.
        let prompts = lines.dropFirst().filter {
            $0.split(separator: "\t", omittingEmptySubsequences: false)[2] != "fallback"
        }
        guard prompts.count >= promptCount else {
            throw BenchError(
                description:
                    "\(source): \(voice.identifier) has \(prompts.count) prompts; item 23 imports \(promptCount)")
        }
        let chosen = (0..<promptCount).map { prompts[$0 * prompts.count / promptCount] }
        // The chosen files in a folder of their own with their transcript, which imports them all and nothing else.
        let sources = try work.subdirectory("import-chosen")
        for line in chosen {
            let file = String(line.split(separator: "\t")[0])
            var parent = sources
            for folder in file.split(separator: "/").dropLast() {
                parent += "/\(folder)"
                mkdir(parent, 0o755)
            }
            guard link(folder + "/" + file, sources + "/" + file) == 0 else {
                throw BenchError(description: "cannot link \(folder)/\(file): \(String(cString: strerror(errno)))")
            }
        }
        let transcript = sources + "/transcript.tsv"
        try writeText(([header] + chosen).joined(separator: "\n") + "\n", to: transcript)

        struct Import {
            var name: String
            var flag: String
            var wall = Samples()
            var cpu = Samples()
            var loads: [String] = []
            var speechSeconds = 0.0
            var aligned = "n/a"
            var alignedCount = 0
        }
        var imports = [
            Import(name: "`--no-align`", flag: "--no-align"), Import(name: "aligned (the default)", flag: "--align"),
        ]
        for _ in 0..<runs {
            for index in imports.indices {
                let target = work.file("import-bench.sqlite")
                for suffix in ["", "-wal", "-shm"] { unlink(target + suffix) }
                try runChecked(
                    voicebank,
                    [
                        "create", "--bank", target, "--voice", Self.voice, "--name", "Import bench", "--language",
                        "en-US",
                    ])
                let before = Self.loadAverage()
                let run = try spawnAndWait(
                    voicebank,
                    [
                        "import", "--bank", target, "--strict-transcript", "--transcript", transcript,
                        imports[index].flag,
                    ],
                    showingErrors: true)
                guard run.status == 0 else {
                    throw BenchError(description: "voicebank import \(imports[index].flag) exited \(run.status)")
                }
                imports[index].loads.append("\(before)–\(Self.loadAverage())")
                let imported = try VoicePack(path: target, access: .readOnly)
                let clips = try imported.clips(voice: Self.voice)
                imports[index].speechSeconds = clips.map(\.source.durationSeconds).reduce(0, +)
                imports[index].wall.append(run.seconds)
                imports[index].cpu.append(run.cpuSeconds)
                if imports[index].flag == "--align" {
                    let aligned = try clips.filter { try imported.alignment(clipID: $0.id) != nil }.count
                    let failed = try imported.failedAlignments().count
                    imports[index].aligned = "\(aligned - failed) of \(clips.count) (\(failed) failed)"
                    imports[index].alignedCount = aligned - failed
                }
            }
        }

        let speech = imports[0].speechSeconds
        var table = Table(
            "23. Import of \(promptCount) of the English voice's prompts (\(decimal(speech, places: 0)) s of speech) "
                + "into a new English voice, \(Locations.binaries.hasSuffix("/release") ? "release" : "debug") build, "
                + (runs == 1 ? "one run" : "median (min–max) of \(runs) runs"),
            columns: [
                "import", "wall (s)", "CPU, user + system (s)", "real time, wall", "real time, CPU",
                "load average (1 min) before–after", "takes aligned",
            ])
        table.printHeader()
        for entry in imports {
            table.add([
                entry.name, Self.summary(entry.wall), Self.summary(entry.cpu),
                Unit.timesRealtime.summary(Samples(entry.wall.values.map { speech / $0 })) + "x",
                Unit.timesRealtime.summary(Samples(entry.cpu.values.map { speech / $0 })) + "x",
                entry.loads.joined(separator: ", "), entry.aligned,
            ])
        }
        let aligned = imports[1]
        let factor = speech / aligned.wall.median
        print(
            """

            \(ProcessorCount.online) cores online. Alignment's own cost is the difference of the two: \
            \(decimal(aligned.cpu.median - imports[0].cpu.median, places: 1)) s of CPU for \
            \(decimal(speech, places: 0)) s of speech.
            """)
        // An import that aligned nothing (no aligner found) says nothing of alignment's speed.
        return [
            TargetResult(
                target: "import with alignment ≥ 10x real time (wall; see the load average beside it)",
                measured: aligned.alignedCount == 0
                    ? "no take aligned"
                    : "\(decimal(factor, places: 1))x, load \(aligned.loads.joined(separator: ", "))",
                isMet: aligned.alignedCount == 0 ? nil : factor >= 10)
        ]
    }

    private static func summary(_ samples: Samples) -> String {
        let (median, low, high) = (samples.median, samples.min, samples.max)
        guard samples.count > 1 else { return decimal(median, places: 1) }
        return "\(decimal(median, places: 1)) (\(decimal(low, places: 1))–\(decimal(high, places: 1)))"
    }

    /// The load average of the last minute, as /proc/loadavg gives it.
    static func loadAverage() -> String {
        (try? readText("/proc/loadavg"))?.split(separator: " ").first.map(String.init) ?? "n/a"
    }
}
