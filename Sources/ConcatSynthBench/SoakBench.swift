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
/// a while (Fixtures/http_driver.py's `soak`: speech in every format, streamed `pcm`, the voice lists, MaryTTS, Wyoming,
/// with hang-ups, slow senders, oversized bodies and heads, malformed JSON, SSML and HTTP, unknown voices and
/// pipelined requests mixed in). It checks that no good request failed and every fault was answered as the API says,
/// that the first answer of each request is `concat-synth render`'s bytes (and every later one the same), that the
/// log has one line a request, and that the process's memory, descriptors and threads stay flat after the first
/// minute.
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

    func run() throws -> [TargetResult] {
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/http_driver.py"
        let log = work.file("serve-soak.log")
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

        let answers = try work.subdirectory("soak")
        let output = work.file("soak.json")
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
            let reference = work.file("soak-render-\(sample.file).\(Self.fileExtension(sample))")
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

        var kinds = Table(
            "19. Soak: one serve process, HTTP and Wyoming, \(clients) clients for \(Self.duration(seconds)) over "
                + "loopback (client: Fixtures/http_driver.py soak)",
            columns: ["request", "sent"])
        kinds.printHeader()
        for (kind, count) in result.counts.sorted(by: { $0.key < $1.key }) { kinds.add([kind, "\(count)"]) }
        kinds.add(["all, as the server logs them", "\(result.requests)"])
        for failure in result.failures { print("note: \(failure)") }

        var process = Table(
            "19b. Soak: the server process each \(sampleSeconds) s (/proc/PID/status and /proc/PID/fd)",
            columns: [
                "time (s)", "RSS (MB)", "of it anonymous (MB)", "of it files (MB)", "open descriptors", "threads",
            ])
        process.printHeader()
        for sample in samples {
            process.add([
                decimal(sample.seconds, places: 0), decimal(sample.residentMegabytes, places: 1),
                decimal(sample.anonymousMegabytes, places: 1), decimal(sample.fileMegabytes, places: 1),
                "\(sample.descriptors)", "\(sample.threads)",
            ])
        }
        let flat = Flatness(samples, firstWindow: min(60, Double(seconds) / 3))
        if let flat { print("\n" + flat.summary) }

        return [
            TargetResult(
                target: "Soak: no failed good request, every fault answered as the API says",
                measured: "\(result.failure_count) failed of \(result.requests)", isMet: result.failure_count == 0),
            TargetResult(
                target:
                    "Soak: answers byte-equal to concat-synth render (the first of each request; later ones equal it)",
                measured: "\(equal) of \(rendered)"
                    + (different.isEmpty ? "" : "; differ: \(different.prefix(3).joined(separator: ", "))"),
                isMet: rendered > 0 && equal == rendered),
            TargetResult(
                target: "Soak: the server's log has one line a request",
                measured: "\(requestLines) lines, \(result.requests) requests",
                isMet: requestLines == result.requests),
            TargetResult(
                target: "Soak: RSS, open descriptors and threads flat after the first minute",
                measured: flat?.measured ?? "too few samples", isMet: flat?.isFlat),
        ]
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
    var summary: String
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
        var lines: [String] = []
        var figures: [String] = []
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
            lines.append("- \(figure.name): peak in the first window → peak in the last, \(said)")
            if figure.isTarget { figures.append("\(figure.name) \(said)") }
        }
        summary =
            "The server process, its first \(decimal(firstWindow, places: 0)) s against its last "
            + "(the slope over the samples after the first):\n" + lines.joined(separator: "\n")
        measured = figures.joined(separator: "; ")
        self.isFlat = isFlat
    }
}
