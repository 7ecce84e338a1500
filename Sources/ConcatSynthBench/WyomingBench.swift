// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 6: `concat-synth serve` under the real Wyoming client (the `wyoming` package from PyPI, in tools/python-env's
/// environment, through the tests' driver): time to first audio chunk and requests per second with 1, 10 and 50
/// clients at once, each sending its requests one after another on its own connection, next to the same request
/// rendered in process.
struct WyomingBench {
    var pack: BenchPack
    var text: String
    /// Requests each row sends in all, shared among its clients.
    var requestCount: Int
    var work: WorkDirectory
    /// The table's title; item 9's when `nil`.
    var title: String? = nil
    /// Whether the run gives item 9's target (time to first chunk at one client).
    var hasTarget = true

    static let clientCounts = [1, 10, 50]

    /// What the driver's `load` prints.
    struct Load: Decodable {
        var requests: Int
        var errors: [String]
        var seconds: Double
        var first_chunk_ms: [Double]

        var requestsPerSecond: Double { Double(requests) / seconds }
    }

    func run() throws -> [TargetResult] {
        let oneClientFirstChunk = try load().oneClientFirstChunk

        // The same request in process, pulled a chunk (2205 frames, 100 ms) at a time as the server pulls it.
        let synthesizer = try Synthesizer(bank: pack.path)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2_205)
        defer { buffer.deallocate() }
        var first = Samples()
        var whole = Samples()
        for round in 0..<(requestCount + 3) {
            let start = now()
            let renderer = try synthesizer.renderer(for: SpeechRequest(text, isLenient: true))
            var pulled = try renderer.render(into: buffer)
            let firstChunk = now()
            while !pulled.isComplete { pulled = try renderer.render(into: buffer) }
            if round >= 3 {
                first.append(firstChunk - start)
                whole.append(now() - start)
            }
        }
        print(
            "\nIn process, the same request: first 100 ms chunk \(Unit.microseconds.summary(first)) µs, "
                + "whole request \(Unit.microseconds.summary(whole)) µs (median (min–max) of \(requestCount) runs).")
        guard hasTarget else { return [] }
        return [
            TargetResult(
                target: "Wyoming time to first chunk ≤ 1 ms over loopback at one client",
                measured: oneClientFirstChunk.map { "\(Unit.milliseconds.format($0)) ms" } ?? "n/a",
                isMet: oneClientFirstChunk.map { $0 <= 1e-3 })
        ]
    }

    /// The server under 1, 10 and 50 clients, a table row each: the median time to first chunk at one client, and
    /// the requests per second of each row.
    func load() throws -> (oneClientFirstChunk: Double?, requestsPerSecond: [Double]) {
        let server = try Self.server(pack: pack, work: work)
        // Stopped when this item ends, not after the address's last use.
        defer { withExtendedLifetime(server) {} }

        var table = Table(
            title
                ?? "9. Wyoming server over loopback, \(pack.label)-clip pack, \"\(text)\" "
                + "(real client: wyoming from PyPI)",
            columns: ["clients", "requests", "errors", "time to first chunk (ms, median (min–max))", "requests/s"])
        table.printHeader()
        var oneClientFirstChunk: Double?
        var requestsPerSecond: [Double] = []
        for clients in Self.clientCounts {
            let load = try self.load(server, clients: clients)
            let firstChunk = Samples(load.first_chunk_ms.map { $0 / 1_000 })
            if clients == 1 { oneClientFirstChunk = firstChunk.isEmpty ? nil : firstChunk.median }
            requestsPerSecond.append(load.requestsPerSecond)
            table.add([
                "\(clients)", "\(load.requests)", "\(load.errors.count)", Unit.milliseconds.summary(firstChunk),
                decimal(load.requestsPerSecond, places: 0),
            ])
            if !load.errors.isEmpty { print("note: first error with \(clients) clients: \(load.errors[0])") }
        }
        return (oneClientFirstChunk, requestsPerSecond)
    }

    /// `concat-synth serve` on `pack`'s Wyoming port.
    static func server(pack: BenchPack, work: WorkDirectory) throws -> ServeProcess {
        try ServeProcess(
            ["--bank", pack.path, "--uri", "tcp://127.0.0.1:0"], log: work.file("serve.log"),
            readyPrefix: "listening on ")
    }

    /// `requestCount` requests from `clients` clients at once to `server`.
    func load(_ server: ServeProcess, clients: Int) throws -> Load {
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/wyoming_driver.py"
        // "listening on tcp://127.0.0.1:PORT with the voices of …"
        let uri = String(server.address.prefix { $0 != " " })
        let perClient = max(1, requestCount / clients)
        let output = try capture(
            work: work, python, [driver, "load", uri, "--clients", "\(clients)", "--requests", "\(perClient)", text])
        return try JSONDecoder().decode(Load.self, from: Data(output.utf8))
    }
}

/// Item 13: what serializing espeak-ng costs the Wyoming server when every request needs the fallback
/// voice. espeak-ng keeps global state, so the fallback voice synthesizes one run at a time in the whole process:
/// item 9's load on the default pack (`voice` mode), with a request whose first words no clip covers, next to the
/// time one request holds espeak-ng.
struct WyomingFallbackBench {
    var requestCount: Int
    var work: WorkDirectory

    static let text = FallbackFirstAudioBench.requests[0]

    func run() throws -> [TargetResult] {
        // Planning a request in `voice` mode synthesizes its uncovered runs: the part of a request spent in
        // espeak-ng's one lock.
        let synthesizer = try Synthesizer(bank: Locations.screenReaderPack)
        var planning = Samples()
        for round in 0..<13 {
            let elapsed = try seconds { _ = try synthesizer.renderPlan(Self.text) }
            if round >= 3 { planning.append(elapsed) }
        }
        let runs = try synthesizer.renderPlan(Self.text).fallbacks.compactMap(\.fallback?.words)
        _ = try WyomingBench(
            pack: BenchPack(clipCount: 0, path: Locations.screenReaderPack), text: Self.text,
            requestCount: requestCount,
            work: work,
            title:
                "13. Wyoming server over loopback, requests that need the fallback voice: default pack (`voice` mode), "
                + "\"\(Self.text)\"",
            hasTarget: false
        ).run()
        // The same load with the fallback clip in place of the fallback voice: what the voice, serialized, costs.
        let clipPack = try packCopy(fallback: "clip", named: "wyoming-clip.sqlite", work: work)
        _ = try WyomingBench(
            pack: BenchPack(clipCount: 0, path: clipPack), text: Self.text, requestCount: requestCount, work: work,
            title:
                "13b. The same requests with the fallback clip instead: a copy of the default pack in `clip` mode",
            hasTarget: false
        ).run()
        print(
            """
            Each request's fallback voice speaks \(runs.map { "\"\($0)\"" }.joined(separator: ", ")). In process, \
            planning the request, which synthesizes that under espeak-ng's one lock, takes \
            \(Unit.milliseconds.summary(planning)) ms (median (min–max) of 10 runs): the server answers at most \
            \(decimal(1 / planning.median, places: 0)) such requests a second however many clients and cores, and \
            with 50 clients a request can wait for 49 others.
            """)
        return []
    }
}
