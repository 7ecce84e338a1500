import SpeechCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Item 10: `concat-synth serve --http` under a Python client on kept-alive connections (`http.client`, the cheapest
/// client to measure with): time to the first byte of a `pcm` answer (24 kHz, converted from the render as it is
/// pulled), which is sent as it is rendered, and requests per second with 1, 10 and 50 clients at once, then item 9's
/// Wyoming load (22050 Hz, as rendered) in the same run, as the anchor of the HTTP server's rate.
struct HTTPBench {
    var pack: BenchPack
    var text: String
    /// Requests each row sends in all, shared among its clients.
    var requestCount: Int
    var work: WorkDirectory

    /// What the driver's `bench` prints.
    struct Load: Decodable {
        var requests: Int
        var errors: [String]
        var error_count: Int
        var seconds: Double
        var first_byte_ms: [Double]
    }

    func run() throws -> [TargetResult] {
        let http = try load()
        let wyoming = try WyomingBench(
            pack: pack, text: text, requestCount: requestCount, work: work,
            title: "10b. The Wyoming server in the same run, the same request (item 9's load)", hasTarget: false
        ).load()
        let ratios = zip(http.requestsPerSecond, wyoming.requestsPerSecond).map { $0 / $1 }
        print(
            "\nHTTP (24 kHz pcm) ÷ Wyoming (22050 Hz) requests per second: "
                + zip(WyomingBench.clientCounts, ratios).map { "\($0) client\($0 == 1 ? "" : "s") \(formatRatio($1))" }
                .joined(separator: ", ") + ".")
        return [
            TargetResult(
                target: "HTTP time to first byte ≤ 1 ms over loopback at one client",
                measured: http.oneClientFirstByte.map { "\(Unit.milliseconds.format($0)) ms" } ?? "n/a",
                isMet: http.oneClientFirstByte.map { $0 <= 1e-3 }),
            TargetResult(
                target: "HTTP requests/s at 24 kHz ≥ 0.5x the Wyoming server's at 1, 10 and 50 clients (worst)",
                measured: formatRatio(ratios.min()), isMet: ratios.min().map { $0 >= 0.5 }),
        ]
    }

    /// The server under 1, 10 and 50 clients, a table row each: the median time to first byte at one client, and
    /// the requests per second of each row.
    func load() throws -> (oneClientFirstByte: Double?, requestsPerSecond: [Double]) {
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/http_driver.py"
        let server = try ServeProcess(
            ["--bank", pack.path, "--http", "127.0.0.1:0"], log: work.file("serve-http.log"),
            readyPrefix: "HTTP listening on http://127.0.0.1:")
        let port = server.address
        // Stopped when this item ends, not after the address's last use.
        defer { withExtendedLifetime(server) {} }

        var table = Table(
            "10. HTTP server over loopback, \(pack.label)-clip pack, \"\(text)\" as pcm (client: Python's http.client)",
            columns: ["clients", "requests", "errors", "time to first byte (ms, median (min–max))", "requests/s"])
        table.printHeader()
        var oneClientFirstByte: Double?
        var requestsPerSecond: [Double] = []
        for clients in WyomingBench.clientCounts {
            let perClient = max(1, requestCount / clients)
            let output = try capture(
                work: work, python, [driver, "bench", "127.0.0.1", port, "\(clients)", "\(perClient)", text])
            let load = try JSONDecoder().decode(Load.self, from: Data(output.utf8))
            let firstByte = Samples(load.first_byte_ms.map { $0 / 1_000 })
            if clients == 1 { oneClientFirstByte = firstByte.isEmpty ? nil : firstByte.median }
            requestsPerSecond.append(Double(load.requests) / load.seconds)
            table.add([
                "\(clients)", "\(load.requests)", "\(load.error_count)", Unit.milliseconds.summary(firstByte),
                decimal(Double(load.requests) / load.seconds, places: 0),
            ])
            if !load.errors.isEmpty { print("note: first error with \(clients) clients: \(load.errors[0])") }
        }
        return (oneClientFirstByte, requestsPerSecond)
    }
}
