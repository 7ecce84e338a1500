import ArgumentParser
import CommandLineSupport
import WyomingService

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConcatSynthCommand {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the pack's voices to Wyoming clients such as Home Assistant.",
            discussion: """
                A Wyoming text-to-speech server: clients describe it to list the pack's voices, and send text or \
                SSML to receive 22050 Hz 16-bit mono audio in chunks of 100 ms, as it is rendered. Streamed text \
                is spoken a sentence at a time. One line per request goes to standard error. It serves until \
                stopped (Ctrl-C, or SIGTERM from systemd).
                Examples:
                  concat-synth serve                                  # tcp://127.0.0.1:10200, this machine only
                  concat-synth serve --uri tcp://0.0.0.0:10200        # for Home Assistant on another machine
                  concat-synth serve --uri unix:///run/concat-synth/wyoming.sock
                """)

        @OptionGroup var bank: BankOptions

        @Option(
            help: ArgumentHelp(
                "Where to listen: tcp://HOST:PORT (port 0 for any free port) or unix:///PATH.", valueName: "uri"))
        var uri = "tcp://127.0.0.1:10200"

        func validate() throws {
            do { _ = try WyomingAddress(uri) } catch { throw ValidationError(error.description) }
        }

        func run() throws {
            Self.stopOnTerminationSignals()
            var standardError = StandardError()
            let server = try WyomingServer.start(address: WyomingAddress(uri), packPath: bank.path) { line in
                var standardError = StandardError()
                print(line, to: &standardError)
            }
            print("listening on \(server.address) with the voices of \(bank.path)", to: &standardError)
            try server.waitUntilClosed()
        }

        /// SIGINT and SIGTERM end the server as they end any process, even when the parent started it with them
        /// blocked or ignored (Foundation's `Process` passes on its threads' blocked signals); the threads the
        /// server starts inherit this mask. A Unix socket file left behind is replaced at the next start.
        private static func stopOnTerminationSignals() {
            var signals = sigset_t()
            sigemptyset(&signals)
            for signal in [SIGINT, SIGTERM] {
                sigaddset(&signals, signal)
                _ = Glibc.signal(signal, SIG_DFL)
            }
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        }
    }
}
