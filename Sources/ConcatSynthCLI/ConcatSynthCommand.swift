import ArgumentParser
import CommandLineSupport

@main
struct ConcatSynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat-synth",
        abstract: "Speak SSML or text with a voice pack of recorded phrase clips.",
        discussion: BankOptions.discussion,
        subcommands: [Render.self, Voices.self])
}
