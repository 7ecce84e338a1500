// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import SpeechCore
import Voicebank

/// The clip pipeline the seed article implies: one `sox` process per clip converting its 24 kHz source to
/// 22050 Hz Float32, then one `sox` that concatenates them with the silences (`pad LENGTH@POSITION`).
struct SoxPipeline {
    var commands: [[String]]

    init(request: Request, pack: VoicePack, output: String, scratch: String) throws {
        let plan = try Synthesizer(pack: pack, voice: request.defaultPackVoice).renderPlan(request.text)
        let format = ["-r", "22050", "-c", "1", "-e", "floating-point", "-b", "32"]
        func seconds(_ frames: Int) -> String { decimal(Double(frames) / 22_050, places: 6) }
        var commands: [[String]] = []
        var converted: [String] = []
        var pads: [(frames: Int, position: Int)] = []
        var position = 0
        for segment in plan.segments {
            switch segment.kind {
            case .phrase(let take), .fallback(let take):
                let clip = try pack.clip(id: take.clipID)
                let folder = clip.voice.split(separator: ".").last.map(String.init) ?? ""
                let target = "\(scratch)/clip\(converted.count).wav"
                commands.append(["\(Locations.clipSources(folder))/\(clip.sourceName)"] + format + [target])
                converted.append(target)
                position += take.frameCount
            case .silence where segment.frameCount > 0:
                if pads.last?.position == position {
                    pads[pads.count - 1].frames += segment.frameCount
                } else {
                    pads.append((segment.frameCount, position))
                }
            default: break
            }
        }
        if converted.isEmpty {
            // Silence only (a request that is one <break>): sox makes it from nothing.
            let total = plan.segments.reduce(0) { $0 + $1.frameCount }
            commands.append(["-n"] + format + [output, "trim", "0", seconds(total)])
        } else {
            // A pad with no position goes at the end: sox's lengths may differ from ours by a frame.
            let padding = pads.map {
                $0.position == position ? seconds($0.frames) : "\(seconds($0.frames))@\(seconds($0.position))"
            }
            commands.append(converted + [output] + (padding.isEmpty ? [] : ["pad"] + padding))
        }
        self.commands = commands
    }

    var processCount: Int { commands.count }
}

extension LatencyBench {
    /// What a process costs before any work, next to what concat-synth costs for a request with nothing in it:
    /// the floor under the ratios of item 1.
    func printFloors(concatSynth: String, sox: String?) throws {
        var table = Table(
            "1c. Floors: processes that do (almost) nothing (ms, median (min–max) of \(runs) runs; wall, then CPU)",
            columns: ["process", "latency", "CPU"])
        table.printHeader()
        let output = work.file("floor.wav")
        var floors: [(String, String, [String])] = [
            ("/bin/true (a C program)", "/bin/true", []),
            (
                "concat-synth render of <speak/> (start, open the pack, write an empty WAV)", concatSynth,
                [
                    "render", "--bank", Locations.screenReaderPack, "--voice", "org.concatsynth.en", "-o", output,
                    "<speak/>",
                ]
            ),
        ]
        if let sox { floors.insert(("sox --version (sox's start with its libraries)", sox, ["--version"]), at: 1) }
        for (name, executable, arguments) in floors {
            var latency = Samples()
            var cpu = Samples()
            for round in 0..<(runs + 1) {
                let time = try spawnAndWait(executable, arguments)
                guard time.status == 0 else {
                    throw BenchError(description: "\(executable) \(arguments) exited \(time.status)")
                }
                if round > 0 {
                    latency.append(time.seconds)
                    cpu.append(time.cpuSeconds)
                }
            }
            table.add([name, Unit.milliseconds.summary(latency), Unit.milliseconds.summary(cpu)])
        }
    }
}

/// Item 1: whole-process latency of one request rendered to a WAV file, next to espeak-ng, flite and the naive
/// sox pipeline on the same request, runs interleaved so that the machine's other load hits all alike.
struct LatencyBench {
    var requests: [Request]
    var runs: Int
    var work: WorkDirectory
    /// A pack of the benchmark's own, timed too: the default pack is small, a user's may not be.
    var largePack: BenchPack

    func run() throws -> [TargetResult] {
        let concatSynth = Locations.binaries + "/concat-synth"
        let espeak = which("espeak-ng")
        let flite = which("flite")
        let sox = which("sox")
        let pack = try VoicePack(path: Locations.screenReaderPack, access: .readOnly)
        let scratch = try work.subdirectory("sox")
        var table = Table(
            "1. Whole-process latency: one request to a WAV file, default pack (ms, median (min–max) of \(runs) runs)",
            columns: [
                "request", "concat-synth", "espeak-ng", "flite", "sox pipeline", "÷ espeak-ng (≤ 0.6)", "÷ sox (≤ 0.2)",
                "concat-synth, \(largePack.label)-clip pack",
            ])
        table.printHeader()
        var cpuRows: [[String]] = []
        var worstEspeak: Double?
        var worstSox: Double?
        var espeakMissing = espeak == nil
        var soxMissing = sox == nil
        for request in requests {
            let output = work.file("latency.wav")
            var ours = [
                "render", "--bank", Locations.screenReaderPack, "--voice", request.defaultPackVoice, "-o", output,
            ]
            if let file = request.file { ours += ["--file", file] } else { ours.append(request.text) }
            var espeakArguments = (request.isSSML ? ["-m"] : []) + ["-v", request.espeakVoice, "-w", output]
            if let file = request.file {
                espeakArguments += ["-f", file]
            } else {
                espeakArguments.append(request.text)
            }
            var fliteArguments = request.isSSML ? ["-ssml"] : []
            if let file = request.file {
                fliteArguments += ["-f", file]
            } else {
                fliteArguments += ["-t", request.text]
            }
            fliteArguments += ["-o", output]
            let pipeline = try SoxPipeline(request: request, pack: pack, output: output, scratch: scratch)
            var large = ["render", "--bank", largePack.path, "-o", output]
            if let file = request.file { large += ["--file", file] } else { large.append(request.text) }

            try runChecked(concatSynth, ours)  // fails loudly, with the tool's message, if the request does not render
            var oursSamples = Samples()
            var espeakSamples = Samples()
            var fliteSamples = Samples()
            var soxSamples = Samples()
            var largeSamples = Samples()
            var oursCPU = Samples()
            var espeakCPU = Samples()
            var fliteCPU = Samples()
            var soxCPU = Samples()
            for round in 0..<(runs + 1) {
                let isWarmUp = round == 0
                let time = try spawnAndWait(concatSynth, ours)
                guard time.status == 0 else {
                    throw BenchError(description: "concat-synth \(ours) exited \(time.status)")
                }
                if !isWarmUp {
                    oursSamples.append(time.seconds)
                    oursCPU.append(time.cpuSeconds)
                }
                let largeTime = try spawnAndWait(concatSynth, large)
                guard largeTime.status == 0 else {
                    throw BenchError(description: "concat-synth \(large) exited \(largeTime.status)")
                }
                if !isWarmUp { largeSamples.append(largeTime.seconds) }
                if let espeak {
                    let time = try spawnAndWait(espeak, espeakArguments)
                    if !isWarmUp && time.status == 0 {
                        espeakSamples.append(time.seconds)
                        espeakCPU.append(time.cpuSeconds)
                    }
                }
                if let flite {
                    let time = try spawnAndWait(flite, fliteArguments)
                    if !isWarmUp && time.status == 0 {
                        fliteSamples.append(time.seconds)
                        fliteCPU.append(time.cpuSeconds)
                    }
                }
                if let sox {
                    var total = 0.0
                    var cpu = 0.0
                    var failed = false
                    for command in pipeline.commands {
                        let time = try spawnAndWait(sox, command)
                        total += time.seconds
                        cpu += time.cpuSeconds
                        failed = failed || time.status != 0
                    }
                    if !isWarmUp && !failed {
                        soxSamples.append(total)
                        soxCPU.append(cpu)
                    }
                }
            }
            let toEspeak = ratio(oursSamples, espeakSamples)
            let toSox = ratio(oursSamples, soxSamples)
            if let toEspeak { worstEspeak = max(worstEspeak ?? 0, toEspeak) } else { espeakMissing = true }
            if let toSox { worstSox = max(worstSox ?? 0, toSox) } else { soxMissing = true }
            table.add([
                request.name, Unit.milliseconds.summary(oursSamples), Unit.milliseconds.summary(espeakSamples),
                Unit.milliseconds.summary(fliteSamples),
                soxSamples.isEmpty ? "n/a" : "\(Unit.milliseconds.summary(soxSamples)) [\(pipeline.processCount) proc]",
                formatRatio(toEspeak), formatRatio(toSox), Unit.milliseconds.summary(largeSamples),
            ])
            cpuRows.append([
                request.name, Unit.milliseconds.summary(oursCPU), Unit.milliseconds.summary(espeakCPU),
                Unit.milliseconds.summary(fliteCPU), Unit.milliseconds.summary(soxCPU),
                formatRatio(ratio(oursCPU, espeakCPU)), formatRatio(ratio(oursCPU, soxCPU)),
            ])
        }
        // The same runs' CPU time: what each tool costs, which the machine's other load moves much less than latency.
        var cpuTable = Table(
            "1b. The same runs' CPU time, user + system (ms, median (min–max)): not a target, a view through the machine's other load",
            columns: ["request", "concat-synth", "espeak-ng", "flite", "sox pipeline", "÷ espeak-ng", "÷ sox"])
        cpuTable.printHeader()
        for row in cpuRows { cpuTable.add(row) }
        print("\nflite has only English voices: it reads the Japanese requests as what little it can spell out.")
        try printFloors(concatSynth: concatSynth, sox: sox)
        return [
            TargetResult(
                target: "whole-process latency ≤ 0.6x espeak-ng's (worst request)", measured: formatRatio(worstEspeak),
                isMet: espeakMissing ? nil : worstEspeak.map { $0 <= 0.6 }),
            TargetResult(
                target: "whole-process latency ≤ 0.2x the naive sox pipeline's (worst request)",
                measured: formatRatio(worstSox), isMet: soxMissing ? nil : worstSox.map { $0 <= 0.2 }),
        ]
    }
}
