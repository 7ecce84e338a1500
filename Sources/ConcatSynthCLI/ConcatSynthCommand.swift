// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport

@main
struct ConcatSynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat-synth",
        abstract: "Speak SSML or text with a voice pack of recorded phrase clips.",
        discussion: BankOptions.discussion
            + " With no --bank, `voices` and `serve` also take the voices of every installed pack (voicebank packs "
            + "lists them), and `--voice ID` finds the pack that has ID among them.",
        subcommands: [Render.self, Say.self, Serve.self, Voices.self])

    /// A `render` whose arguments `RenderArguments.parse` reads and that validate runs without ArgumentParser's
    /// parse, the largest cost of a short request's process; everything else (help, usage errors, other
    /// subcommands) goes through ArgumentParser. Errors are reported the same way either way.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "render", let render = RenderArguments.parse(arguments.dropFirst()),
            (try? render.validate()) != nil
        {
            do { try render.run() } catch { exit(withError: CommandLineMessage.shown(error)) }
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: CommandLineMessage.shown(error))
        }
    }
}
