import ArgumentParser
import CommandLineSupport

@main
struct VoicebankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicebank",
        abstract: "Create and fill concat-synth voice packs: one SQLite file of voices and their phrase clips.",
        discussion: BankOptions.discussion,
        subcommands: [
            Create.self, Import.self, List.self, Configure.self, Words.self,
            // The pack builder's tools (Sources/VoicebankCLI: Export, Info, Remove, Verify, Coverage).
            Export.self, Info.self, Verify.self, Remove.self, RemoveVoice.self, Coverage.self,
        ])
}
