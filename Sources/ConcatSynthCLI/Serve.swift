// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import HTTPService
import NetworkServer
import WyomingService

extension ConcatSynthCommand {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the voices of the default and installed packs, or of --bank, to Wyoming and HTTP clients.",
            discussion: """
                A Wyoming text-to-speech server for Home Assistant and other clients: they describe it to list the \
                voices, each with its pack's attribution and version, and send text or SSML to receive 22050 Hz \
                16-bit mono audio in chunks of 100 ms, as it is rendered. Streamed text is spoken a sentence at a \
                time. With --http, an HTTP server too (or alone, when --uri is not given): OpenAI's \
                POST /v1/audio/speech, GET /v1/models and GET /v1/audio/voices, and MaryTTS's /process, /voices, \
                /locales and /version. With no --bank, a pack that cannot be opened is left out with a warning, and \
                a voice in two packs is spoken from the first listed by concat-synth voices. One line per request \
                goes to standard error. It serves until stopped (Ctrl-C, or SIGTERM from systemd).
                Examples:
                  concat-synth serve                                  # Wyoming on tcp://127.0.0.1:10200
                  concat-synth serve --uri tcp://0.0.0.0:10200        # for Home Assistant on another machine
                  concat-synth serve --http 127.0.0.1:8080            # HTTP only
                  concat-synth serve --uri tcp://127.0.0.1:10200 --http 127.0.0.1:59125   # both
                """)

        @OptionGroup var bank: BankOptions

        @Option(
            help: ArgumentHelp(
                "Where Wyoming listens: tcp://HOST:PORT (port 0 for any free port) or unix:///PATH; tcp://127.0.0.1:10200 when neither this nor --http is given.",
                valueName: "uri"))
        var uri: String?

        @Option(
            help: ArgumentHelp(
                "Serve the HTTP speech API on HOST:PORT too (port 0 for any free port).", valueName: "host:port"))
        var http: String?

        @Option(
            name: .customLong("api-key"),
            help: ArgumentHelp(
                "Require Authorization: Bearer KEY on every HTTP request (MaryTTS clients cannot send one).",
                valueName: "key"))
        var apiKey: String?

        @Option(
            name: .customLong("request-timeout"),
            help: ArgumentHelp(
                "Seconds an HTTP client may take to send a whole request; it gets 408 after.", valueName: "seconds"))
        var requestTimeout: Int64 = HTTPLimits().requestSeconds

        @Option(
            name: .customLong("idle-timeout"),
            help: ArgumentHelp(
                "Seconds a kept-alive HTTP connection may wait for its next request before it is closed.",
                valueName: "seconds"))
        var idleTimeout: Int64 = HTTPLimits().idleSeconds

        @Option(
            name: .customLong("file-limit"),
            help: ArgumentHelp(
                "Seconds of audio an HTTP answer rendered whole into a file (wav, mp3, …) may hold; pcm streams and has no limit.",
                valueName: "seconds"))
        var fileLimit = HTTPLimits().maximumFileSeconds

        static let defaultURI = "tcp://127.0.0.1:10200"

        func validate() throws {
            do { _ = try WyomingError.address(uri ?? Self.defaultURI) } catch {
                throw ValidationError(error.description)
            }
            if let http {
                do { _ = try HTTPServiceError.address(http) } catch { throw ValidationError(error.description) }
            }
            if apiKey != nil && http == nil {
                throw ValidationError("--api-key is for the HTTP server; give --http too")
            }
            if fileLimit < 1 {
                throw ValidationError("--file-limit \(fileLimit) is out of range; expected 1 or more seconds")
            }
            for (option, seconds) in [("--request-timeout", requestTimeout), ("--idle-timeout", idleTimeout)]
            where !(1...3_600).contains(seconds) {
                throw ValidationError("\(option) \(seconds) is out of range; expected 1 to 3600 seconds")
            }
            if let apiKey, apiKey.isEmpty || apiKey.contains(where: { $0.isWhitespace || $0.isNewline }) {
                throw ValidationError("--api-key must be one word with no spaces, such as a random token")
            }
        }

        func run() throws {
            TerminationSignals.block()
            // One write a line, its newline with it: the HTTP and Wyoming servers log from threads of their own, and
            // `print` writes a line and its terminator apart, so two servers' lines could run together.
            let log: @Sendable (String) -> Void = { line in
                var standardError = StandardError()
                standardError.write(line + "\n")
            }
            var wyoming: WyomingServer?
            if uri != nil || http == nil {
                let server = try WyomingServer.start(
                    address: WyomingError.address(uri ?? Self.defaultURI), bank: bank.bank, log: log)
                log(server.listeningLine)
                wyoming = server
            }
            var httpServer: HTTPServer?
            if let http {
                let address = try HTTPServiceError.address(http)
                if !address.isLoopback && apiKey == nil {
                    log(
                        "warning: the HTTP server on \(http) is reachable from other machines and asks for no key; give --api-key KEY, or listen on 127.0.0.1"
                    )
                }
                var limits = HTTPLimits()
                limits.requestSeconds = requestTimeout
                limits.idleSeconds = idleTimeout
                limits.maximumFileSeconds = fileLimit
                do {
                    let server = try HTTPServer.start(
                        address: address, bank: bank.bank, apiKey: apiKey, limits: limits, log: log)
                    log(server.listeningLine)
                    httpServer = server
                } catch {
                    try? wyoming?.close()
                    throw error
                }
            }
            TerminationSignals.wait()
            try httpServer?.close()
            try wyoming?.close()
        }
    }
}
