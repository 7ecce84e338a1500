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
            abstract: "Serve the voices of the default and installed packs, or of --bank, to Wyoming clients.",
            discussion: """
                A Wyoming text-to-speech server for Home Assistant and other clients: they describe it to list the \
                voices, each with its pack's attribution and version, and send text or SSML to receive 22050 Hz \
                16-bit mono audio in chunks of 100 ms, as it is rendered. Streamed text is spoken a sentence at a \
                time. With no --bank, a pack that cannot be opened is left out with a warning, and a voice in two \
                packs is spoken from the first listed by concat-synth voices. One line per request goes to standard \
                error. It serves until stopped (Ctrl-C, or SIGTERM from systemd).
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
            let server = try WyomingServer.start(address: WyomingAddress(uri), bank: bank.bank) { line in
                var standardError = StandardError()
                print(line, to: &standardError)
            }
            print(
                "listening on \(server.address) with the voices of \(server.packPaths.joined(separator: ", "))",
                to: &standardError)
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
