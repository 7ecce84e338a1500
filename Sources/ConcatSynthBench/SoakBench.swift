// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Item 19: one `concat-synth serve` with both the HTTP and the Wyoming server under mixed traffic over loopback for
/// a while (Fixtures/http_driver.py's `soak`: speech in every format, streamed `pcm`, the voice lists, MaryTTS,
/// Wyoming, with hang-ups, slow senders, oversized bodies and heads, malformed JSON, SSML and HTTP, unknown voices and
/// pipelined requests mixed in). It checks that no good request failed and every fault was answered as the API says,
/// that the first answer of each request is `concat-synth render`'s bytes (and every later one the same), that the
/// log has one line a request, and that the process's memory, descriptors and threads stay flat after the first
/// minute.
///
/// The same traffic runs a second time, as a control, on a copy of the pack whose voice falls back to its fallback
/// clip, so that espeak-ng is never loaded: the two runs side by side tell a rise that is espeak-ng's (the fallback
/// voice's, and the phonemes of the units) from one that is the server's own.
struct SoakBench {
    var pack: String
    var clients: Int
    var seconds: Int
    /// How often the process is sampled.
    var sampleSeconds: Int
    var work: WorkDirectory

    /// What the driver's `soak` prints.
    struct Traffic: Decodable {
        var requests: Int
        var counts: [String: Int]
        var failures: [String]
        var failure_count: Int
        var samples: [Sample]
    }

    /// The first answer of one request, to be compared with render's.
    struct Sample: Decodable {
        var file: String
        var kind: String
        var text: String
        var format: String
        var voice: String
    }

    /// The server process at one moment, from /proc.
    struct ProcessSample {
        var seconds: Double
        var residentMegabytes: Double
        /// Of the resident memory, what is the process's own (the heap, thread stacks: `RssAnon`) and what is pages of
        /// mapped files (the packs SQLite maps, the libraries: `RssFile`).
        var anonymousMegabytes: Double
        var fileMegabytes: Double
        var descriptors: Int
        var threads: Int
    }

    /// What one soak found.
    struct Soak {
        var traffic: Traffic
        var samples: [ProcessSample]
        /// The distinct requests rendered by `concat-synth render`, and those whose answers were its bytes.
        var rendered: Int
        var equal: Int
        var different: [String]
        var requestLines: Int
        var flatness: Flatness?
    }

    func run() throws -> [TargetResult] {
        let configured = try soak(pack, named: "soak")
        let control = try soak(
            packCopy(fallback: "clip", named: "soak-clip.sqlite", work: work, from: pack), named: "soak-clip")
        let runs = [("as configured", configured), ("`clip` control", control)]

        var kinds = Table(
            "19. Soak: one serve process, HTTP and Wyoming, \(clients) clients for \(Self.duration(seconds)) over "
                + "loopback (client: Fixtures/http_driver.py soak), the pack as configured and its `clip` control",
            columns: ["request"] + runs.map { "sent, \($0.0)" })
        kinds.printHeader()
        let kindNames = Set(runs.flatMap { $0.1.traffic.counts.keys }).sorted()
        for kind in kindNames { kinds.add([kind] + runs.map { "\($0.1.traffic.counts[kind] ?? 0)" }) }
        kinds.add(["all, as the server logs them"] + runs.map { "\($0.1.traffic.requests)" })
        for (name, soak) in runs {
            for failure in soak.traffic.failures { print("note (\(name)): \(failure)") }
        }

        let figures = ["RSS (MB)", "of it anonymous (MB)", "of it files (MB)", "open descriptors", "threads"]
        var process = Table(
            "19b. Soak: the server process each \(sampleSeconds) s (/proc/PID/status and /proc/PID/fd), as configured "
                + "and in the `clip` control",
            columns: ["time (s)"] + figures.map { "\($0), as configured" } + figures.map { "\($0), `clip`" })
        process.printHeader()
        for index in 0..<runs.map({ $0.1.samples.count }).max()! {
            let row = runs.map { $0.1.samples.indices.contains(index) ? $0.1.samples[index] : nil }
            let time = row.compactMap { $0 }.first.map { decimal($0.seconds, places: 0) } ?? ""
            process.add(
                [time]
                    + row.flatMap { sample in
                        sample.map {
                            [
                                decimal($0.residentMegabytes, places: 1), decimal($0.anonymousMegabytes, places: 1),
                                decimal($0.fileMegabytes, places: 1), "\($0.descriptors)", "\($0.threads)",
                            ]
                        } ?? Array(repeating: "", count: figures.count)
                    })
        }

        if let first = configured.flatness, let second = control.flatness {
            var flat = Table(
                "19c. Soak: each figure's peak in the first \(decimal(first.window, places: 0)) s → its peak in the "
                    + "last as long, and the slope a minute after the first",
                columns: ["figure"] + runs.map(\.0))
            flat.printHeader()
            for (mine, theirs) in zip(first.figures, second.figures) { flat.add([mine.name, mine.said, theirs.said]) }
        }

        return runs.flatMap { name, soak in
            [
                TargetResult(
                    target: "Soak (\(name)): no failed good request, every fault answered as the API says",
                    measured: "\(soak.traffic.failure_count) failed of \(soak.traffic.requests)",
                    isMet: soak.traffic.failure_count == 0),
                TargetResult(
                    target: "Soak (\(name)): answers byte-equal to concat-synth render (the first of each request; "
                        + "later ones equal it)",
                    measured: "\(soak.equal) of \(soak.rendered)"
                        + (soak.different.isEmpty
                            ? "" : "; differ: \(soak.different.prefix(3).joined(separator: ", "))"),
                    isMet: soak.rendered > 0 && soak.equal == soak.rendered),
                TargetResult(
                    target: "Soak (\(name)): the server's log has one line a request",
                    measured: "\(soak.requestLines) lines, \(soak.traffic.requests) requests",
                    isMet: soak.requestLines == soak.traffic.requests),
                TargetResult(
                    target: "Soak (\(name)): RSS, open descriptors and threads flat after the first minute",
                    measured: soak.flatness?.measured ?? "too few samples", isMet: soak.flatness?.isFlat),
            ]
        }
    }

    /// One soak of one server on `pack`, its files named after `name` in the work directory.
    func soak(_ pack: String, named name: String) throws -> Soak {
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/http_driver.py"
        let log = work.file("serve-\(name).log")
        // A short request timeout, so that the slow senders among the faults hold a client for seconds, not ten.
        let server = try ServeProcess(
            [
                "--bank", pack, "--uri", "tcp://127.0.0.1:0", "--http", "127.0.0.1:0", "--request-timeout", "2",
            ], log: log, readyPrefix: "HTTP listening on http://127.0.0.1:")
        defer { withExtendedLifetime(server) {} }
        let wyomingPrefix = "listening on tcp://127.0.0.1:"
        guard
            let wyomingPort = try readText(log).split(separator: "\n").first(where: { $0.hasPrefix(wyomingPrefix) })?
                .dropFirst(wyomingPrefix.count).split(separator: " ").first
        else { throw BenchError(description: "the soak's server printed no Wyoming address: \(log)") }

        let answers = try work.subdirectory(name)
        let output = work.file("\(name).json")
        let traffic = try spawnBackground(
            python,
            [
                driver, "soak", "http://127.0.0.1:\(server.address)", String(wyomingPort), "\(clients)", "\(seconds)",
                answers,
            ], standardOutput: output)
        var status: Int32 = 0
        var isRunning = true
        // Timed from the traffic's start, once the driver's interpreter has loaded its clients.
        while isRunning && access(answers + "/started", F_OK) != 0 {
            usleep(100_000)
            isRunning = waitpid(traffic, &status, WNOHANG) == 0
        }
        let started = Date()
        var samples: [ProcessSample] = []
        while isRunning {
            if let sample = Self.sample(server.pid, at: Date().timeIntervalSince(started)) { samples.append(sample) }
            for _ in 0..<(sampleSeconds * 10) {
                usleep(100_000)
                if waitpid(traffic, &status, WNOHANG) != 0 {
                    isRunning = false
                    break
                }
            }
        }
        let result = try JSONDecoder().decode(Traffic.self, from: Data(try readText(output).utf8))

        var rendered = 0
        var equal = 0
        var different: [String] = []
        for sample in result.samples {
            let reference = work.file("\(name)-render-\(sample.file).\(Self.fileExtension(sample))")
            _ = try capture(
                work: work, Locations.binaries + "/concat-synth",
                ["render", "--bank", pack, "--voice", sample.voice, "-o", reference] + Self.renderOptions(sample)
                    + [sample.text])
            rendered += 1
            if try Data(contentsOf: URL(fileURLWithPath: answers + "/" + sample.file))
                == Data(contentsOf: URL(fileURLWithPath: reference))
            {
                equal += 1
            } else {
                different.append("\(sample.kind) \(sample.format) \"\(sample.text)\"")
            }
        }
        let requestLines = try readText(log).split(separator: "\n").filter {
            $0.hasPrefix("client ") && !$0.contains(" closed: idle for ")
        }.count
        return Soak(
            traffic: result, samples: samples, rendered: rendered, equal: equal, different: different,
            requestLines: requestLines, flatness: Flatness(samples, firstWindow: min(60, Double(seconds) / 3)))
    }

    /// The process's resident memory, open descriptors and threads, or nil once it has gone.
    static func sample(_ pid: pid_t, at seconds: Double) -> ProcessSample? {
        guard let status = try? readText("/proc/\(pid)/status") else { return nil }
        func field(_ name: String) -> Double? {
            // `VmRSS:	  123456 kB`
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Double($0) }
        }
        guard let resident = field("VmRSS"), let anonymous = field("RssAnon"), let files = field("RssFile"),
            let threads = field("Threads"),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        else { return nil }
        return ProcessSample(
            seconds: seconds, residentMegabytes: resident / 1_024, anonymousMegabytes: anonymous / 1_024,
            fileMegabytes: files / 1_024, descriptors: descriptors, threads: Int(threads))
    }

    static func fileExtension(_ sample: Sample) -> String {
        switch (sample.kind, sample.format) {
        case ("openai", "pcm"), ("wyoming", _): return "raw"
        case ("mary", _): return "wav"
        default: return sample.format
        }
    }

    /// What `render` is told to write the server's bytes for the request: pcm is 24 kHz 16-bit, MaryTTS's and
    /// Wyoming's 16-bit at the voice's rate.
    static func renderOptions(_ sample: Sample) -> [String] {
        switch (sample.kind, sample.format) {
        case ("openai", "pcm"): return ["--sample-rate", "24000", "--encoding", "s16"]
        case ("mary", _), ("wyoming", _): return ["--encoding", "s16"]
        default: return []
        }
    }

    static func duration(_ seconds: Int) -> String {
        seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}

/// Whether a process's figures stay flat after its first minute: each figure's peak in the first window against its
/// peak in a window as long at the end (a leak shows as a peak that keeps rising; the connections' coming and going
/// does not), with the least-squares slope of the samples after the first window, per minute, said beside. Flat when
/// the last peak is at most a tenth above the first (for descriptors and threads, a tenth and two).
struct Flatness {
    /// One figure: its name, and its peaks and slope as said (`85.8 → 144.6, slope 6.60/min`).
    struct Figure {
        var name: String
        var said: String
    }

    /// The first window, in seconds.
    var window: Double
    var figures: [Figure]
    var measured: String
    var isFlat: Bool

    init?(_ samples: [SoakBench.ProcessSample], firstWindow: Double) {
        guard let end = samples.last?.seconds else { return nil }
        let first = samples.filter { $0.seconds <= firstWindow }
        let after = samples.filter { $0.seconds > firstWindow }
        let last = samples.filter { $0.seconds >= end - firstWindow && $0.seconds > firstWindow }
        guard !first.isEmpty, after.count >= 2, !last.isEmpty else { return nil }
        func slope(_ values: [Double]) -> Double {
            let times = after.map(\.seconds)
            let meanTime = times.reduce(0, +) / Double(times.count)
            let meanValue = values.reduce(0, +) / Double(values.count)
            let covariance = zip(times, values).map { ($0 - meanTime) * ($1 - meanValue) }.reduce(0, +)
            let variance = times.map { ($0 - meanTime) * ($0 - meanTime) }.reduce(0, +)
            return variance > 0 ? covariance / variance * 60 : 0
        }
        var figures: [Figure] = []
        var measured: [String] = []
        var isFlat = true
        // RSS's two parts are said, to tell a heap that grows from files mapped further, but RSS itself is the target.
        let series:
            [(name: String, value: (SoakBench.ProcessSample) -> Double, places: Int, slack: Double, isTarget: Bool)] = [
                ("RSS (MB)", { $0.residentMegabytes }, 1, 0, true),
                ("of it anonymous (MB)", { $0.anonymousMegabytes }, 1, 0, false),
                ("of it files (MB)", { $0.fileMegabytes }, 1, 0, false),
                ("open descriptors", { Double($0.descriptors) }, 0, 2, true),
                ("threads", { Double($0.threads) }, 0, 2, true),
            ]
        for figure in series {
            let firstPeak = first.map(figure.value).max()!
            let lastPeak = last.map(figure.value).max()!
            let rise = slope(after.map(figure.value))
            if figure.isTarget { isFlat = isFlat && lastPeak <= firstPeak * 1.1 + figure.slack }
            let said =
                "\(decimal(firstPeak, places: figure.places)) → \(decimal(lastPeak, places: figure.places)), "
                + "slope \(decimal(rise, places: 2))/min"
            figures.append(Figure(name: figure.name, said: said))
            if figure.isTarget { measured.append("\(figure.name) \(said)") }
        }
        window = firstWindow
        self.figures = figures
        self.measured = measured.joined(separator: "; ")
        self.isFlat = isFlat
    }
}
