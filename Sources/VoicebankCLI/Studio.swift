// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import HTTPService
import NetworkServer
import Studio
import Verbalization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension VoicebankCommand {
    struct StudioCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio",
            abstract:
                "Record a voice's prompts in the browser: a page served by this process keeps each take in the pack.",
            discussion: """
                The prompts are what the voice's coverage of --texts says is missing, the prompt covering the most \
                missing words first, then a prompt for each place (final, question, …) the texts speak a phrase at \
                that has no take for it; or the lines of --prompts (one phrase a line, or piper-recording-studio's \
                id<TAB>text, a position as a prefix, e.York, or a third column) and the words of --words lists \
                (numbers, dates, …) the voice has no take of. Texts pasted into the page add their missing words at \
                the end. The first line on standard output is the page's address with its token; open it in a \
                browser on this machine. Keys: R records, Space stops, P plays, Enter keeps the take and moves on, \
                Backspace discards, the arrows move between prompts, S skips to the next prompt without a take, A \
                redoes the last kept take, O chooses the take's position. A kept take is imported at once, as \
                voicebank import imports a file: trimmed, measured, tagged with its position, in its own \
                transaction; then an English voice's take is listened to and the page says if other words were \
                heard. One line per request goes to standard error. It serves until stopped (Ctrl-C).
                Example: voicebank studio --bank my.sqlite --texts requests.txt
                """)

        @OptionGroup var script: ScriptOptions

        @Option(
            help: ArgumentHelp(
                "Where the page is served (port 0 for any free port); beyond loopback only with --allow-remote.",
                valueName: "host:port"))
        var listen = "127.0.0.1:0"

        @Flag(help: "Allow --listen on an address other machines can reach.")
        var allowRemote = false

        func validate() throws {
            let address: ServerAddress
            do { address = try HTTPServiceError.address(listen) } catch { throw ValidationError(error.description) }
            if !address.isLoopback && !allowRemote {
                throw ValidationError(
                    "--listen \(listen) is reachable from other machines; add --allow-remote to serve the studio there, or listen on 127.0.0.1"
                )
            }
        }

        func run() throws {
            TerminationSignals.block()
            let address = try HTTPServiceError.address(listen)
            var options = script.options
            if case .tcp(let host, let port) = address { (options.host, options.port) = (host, port) }
            let studio = try StudioServer.start(options) { line in
                var standardError = StandardError()
                print(line, to: &standardError)
            }
            print(studio.url)
            // The address is what a script waits for: it leaves now, not when the buffer fills.
            fflush(nil)
            var standardError = StandardError()
            for warning in studio.warnings { print("warning: \(warning)", to: &standardError) }
            if !address.isLoopback {
                print(
                    "warning: the studio on \(listen) is reachable from other machines; anyone with its address can change \(options.bank)",
                    to: &standardError)
            }
            print(
                "studio: \(studio.promptCount) prompt\(studio.promptCount == 1 ? "" : "s") for voice \(studio.voice) of \(options.bank)",
                to: &standardError)
            TerminationSignals.wait()
            try studio.close()
        }
    }
}

/// Where the script of `voicebank studio` and `voicebank record` comes from: the pack, its voice, and the texts or
/// prompts.
struct ScriptOptions: ParsableArguments {
    @OptionGroup var bank: BankOptions

    @Option(help: ArgumentHelp("The voice the takes are clips of; needed when the pack has several.", valueName: "id"))
    var voice: String?

    @Option(
        name: .customLong("texts"),
        help: ArgumentHelp(
            "Text or SSML the voice should speak: its missing words are the prompts, and the coverage is shown; repeat for several.",
            valueName: "file"), completion: .file())
    var textFiles: [String] = []

    @Option(
        help: ArgumentHelp(
            "The prompts to record instead: one phrase a line, or id<TAB>text lines; a position as e.York or a third column.",
            valueName: "file"),
        completion: .file())
    var prompts: String?

    @Option(
        name: .customLong("words"),
        help: ArgumentHelp(
            "A voicebank words list whose words the voice has no take of are prompts too, after --prompts; repeat for several.",
            valueName: "kind"))
    var wordLists: [Interpretation] = []

    @Option(
        help: ArgumentHelp(
            "How prompts are chosen: missing-words (the words of --texts that fall back) or phone-pairs (sentences that cover the phone-pairs the voice has no take of, --texts' own first, then --sentences or the project's set).",
            valueName: "choice"))
    var script: ScriptChoice = .missingWords

    @Option(
        name: .customLong("sentences"),
        help: ArgumentHelp(
            "With --script phone-pairs: sentences to choose from (one a line) instead of the project's set; repeat for several.",
            valueName: "file"), completion: .file())
    var sentenceFiles: [String] = []

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Align each English take kept to its words and phones, behind the keep, as import does (the default unless VOICEBANK_ALIGN=0)."
        ))
    var align: Bool?

    func validate() throws {
        if !sentenceFiles.isEmpty && script != .phonePairs {
            throw ValidationError("--sentences needs --script phone-pairs.")
        }
        if textFiles.isEmpty && prompts == nil && wordLists.isEmpty && script != .phonePairs {
            throw ValidationError(
                "Nothing to record: give --texts FILE, --prompts FILE, --words KIND or --script phone-pairs.")
        }
    }

    var options: StudioOptions {
        var options = StudioOptions(bank: bank.path, voice: voice)
        options.textFiles = textFiles
        options.promptFile = prompts
        options.wordLists = wordLists
        options.script = script
        options.sentenceFiles = sentenceFiles
        options.isAligning = isAligning(align)
        return options
    }
}

extension ScriptChoice: ExpressibleByArgument {}
