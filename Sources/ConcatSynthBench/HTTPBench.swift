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

/// Item 10: `concat-synth serve --http` under Python clients on kept-alive connections (asyncio tasks on one thread, as
/// item 9's Wyoming clients are): time to the first byte of a `pcm` answer at 16, 24 (OpenAI's) and 48 kHz, converted from
/// the render as it is pulled and sent as it is rendered, and requests per second with 1, 10 and 50 clients at once,
/// each row next to item 9's Wyoming load (22050 Hz, as rendered) measured just before it in the same run, the anchor
/// of the HTTP server's rate. Each row says the server's own CPU time per request too, which the client's share of the
/// two cores does not change.
struct HTTPBench {
    var pack: BenchPack
    var text: String
    /// Requests each row sends in all, shared among its clients.
    var requestCount: Int
    var work: WorkDirectory

    static let sampleRates = [16_000, 24_000, 48_000]

    /// What the driver's `bench` prints.
    struct Load: Decodable {
        var requests: Int
        var errors: [String]
        var error_count: Int
        var seconds: Double
        var first_byte_ms: [Double]
    }

    func run() throws -> [TargetResult] {
        let wyoming = WyomingBench(pack: pack, text: text, requestCount: requestCount, work: work)
        let wyomingServer = try WyomingBench.server(pack: pack, work: work)
        let python = try pythonEnvironment(work: work)
        let driver = Locations.repository + "/Tests/SpeechServiceTests/Fixtures/http_driver.py"
        let server = try ServeProcess(
            ["--bank", pack.path, "--http", "127.0.0.1:0"], log: work.file("serve-http.log"),
            readyPrefix: "HTTP listening on http://127.0.0.1:")
        // Both stopped when this item ends, not after their last use.
        defer { withExtendedLifetime((server, wyomingServer)) {} }

        var table = Table(
            "10. HTTP server over loopback, \(pack.label)-clip pack, \"\(text)\" as pcm at each rate (clients: asyncio tasks in one Python process), after the Wyoming server's load (item 9's) in the same run",
            columns: [
                "clients", "server", "requests", "errors", "time to first byte or chunk (ms, median (min–max))",
                "requests/s", "÷ Wyoming", "server CPU per request (ms)",
            ])
        table.printHeader()
        var oneClientFirstByte: [Int: Double] = [:]
        var ratios: [Int: [Double]] = [:]
        for clients in WyomingBench.clientCounts {
            let wyomingCPU = try Self.cpuSeconds(of: wyomingServer) {
                try wyoming.load(wyomingServer, clients: clients)
            }
            let anchor = wyomingCPU.result
            table.add([
                "\(clients)", "Wyoming, 22050 Hz", "\(anchor.requests)", "\(anchor.errors.count)",
                Unit.milliseconds.summary(Samples(anchor.first_chunk_ms.map { $0 / 1_000 })),
                decimal(anchor.requestsPerSecond, places: 0), "",
                Unit.milliseconds.format(wyomingCPU.seconds / Double(anchor.requests)),
            ])
            if !anchor.errors.isEmpty {
                print("note: first Wyoming error with \(clients) clients: \(anchor.errors[0])")
            }
            for rate in Self.sampleRates {
                let perClient = max(1, requestCount / clients)
                let measured = try Self.cpuSeconds(of: server) {
                    try capture(
                        work: work, python,
                        [driver, "bench", "127.0.0.1", server.address, "\(clients)", "\(perClient)", text, "\(rate)"])
                }
                let load = try JSONDecoder().decode(Load.self, from: Data(measured.result.utf8))
                let firstByte = Samples(load.first_byte_ms.map { $0 / 1_000 })
                if clients == 1 && !firstByte.isEmpty { oneClientFirstByte[rate] = firstByte.median }
                let requestsPerSecond = Double(load.requests) / load.seconds
                let ratio = requestsPerSecond / anchor.requestsPerSecond
                ratios[rate, default: []].append(ratio)
                table.add([
                    "\(clients)", "HTTP pcm, \(rate) Hz", "\(load.requests)", "\(load.error_count)",
                    Unit.milliseconds.summary(firstByte), decimal(requestsPerSecond, places: 0), formatRatio(ratio),
                    Unit.milliseconds.format(measured.seconds / Double(load.requests)),
                ])
                if !load.errors.isEmpty { print("note: first error with \(clients) clients: \(load.errors[0])") }
            }
        }
        let worstFirstByte = Self.sampleRates.count == oneClientFirstByte.count ? oneClientFirstByte.values.max() : nil
        let worstRatio = ratios.values.joined().min()
        return [
            TargetResult(
                target: "HTTP time to first byte ≤ 1 ms over loopback at one client, at 16, 24 and 48 kHz (worst)",
                measured: worstFirstByte.map { "\(Unit.milliseconds.format($0)) ms" } ?? "n/a",
                isMet: worstFirstByte.map { $0 <= 1e-3 }),
            TargetResult(
                target:
                    "HTTP requests/s at 16, 24 and 48 kHz ≥ 0.5x the Wyoming server's at 1, 10 and 50 clients (worst)",
                measured: formatRatio(worstRatio), isMet: worstRatio.map { $0 >= 0.5 }),
        ]
    }

    /// What `body` returns, and the CPU seconds (user and system) `server` spent while it ran.
    static func cpuSeconds<Result>(of server: ServeProcess, during body: () throws -> Result) throws
        -> (result: Result, seconds: Double)
    {
        let before = try cpuSeconds(server.pid)
        let result = try body()
        return (result, try cpuSeconds(server.pid) - before)
    }

    /// A process's CPU time so far, from /proc/PID/stat (its fields 14 and 15, in clock ticks).
    static func cpuSeconds(_ pid: pid_t) throws -> Double {
        let stat = try readText("/proc/\(pid)/stat")
        // The command name, in parentheses, may hold spaces: the fields are counted after it.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
