import ConcatSynth

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

    static let clientCounts = [1, 10, 50]

    /// What the driver's `load` prints.
    struct Load: Decodable {
        var requests: Int
        var errors: [String]
        var seconds: Double
        var first_chunk_ms: [Double]
    }

    func run() throws -> [TargetResult] {
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/wyoming_driver.py"
        let server = try ServeProcess(
            ["--bank", pack.path, "--uri", "tcp://127.0.0.1:0"], log: work.file("serve.log"),
            readyPrefix: "listening on ")
        // "listening on tcp://127.0.0.1:PORT with the voices of …"
        let uri = String(server.address.prefix { $0 != " " })
        // Stopped when this item ends, not after the address's last use.
        defer { withExtendedLifetime(server) {} }

        var table = Table(
            "9. Wyoming server over loopback, \(pack.label)-clip pack, \"\(text)\" (real client: wyoming from PyPI)",
            columns: ["clients", "requests", "errors", "time to first chunk (ms, median (min–max))", "requests/s"])
        table.printHeader()
        var oneClientFirstChunk: Double?
        for clients in Self.clientCounts {
            let perClient = max(1, requestCount / clients)
            let output = try capture(
                work: work,
                python, [driver, "load", uri, "--clients", "\(clients)", "--requests", "\(perClient)", text])
            let load = try JSONDecoder().decode(Load.self, from: Data(output.utf8))
            let firstChunk = Samples(load.first_chunk_ms.map { $0 / 1_000 })
            if clients == 1 { oneClientFirstChunk = firstChunk.isEmpty ? nil : firstChunk.median }
            table.add([
                "\(clients)", "\(load.requests)", "\(load.errors.count)", Unit.milliseconds.summary(firstChunk),
                decimal(Double(load.requests) / load.seconds, places: 0),
            ])
            if !load.errors.isEmpty { print("note: first error with \(clients) clients: \(load.errors[0])") }
        }

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
        return [
            TargetResult(
                target: "Wyoming time to first chunk ≤ 1 ms over loopback at one client",
                measured: oneClientFirstChunk.map { "\(Unit.milliseconds.format($0)) ms" } ?? "n/a",
                isMet: oneClientFirstChunk.map { $0 <= 1e-3 })
        ]
    }
}
