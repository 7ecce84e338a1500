import ArgumentParser
import AudioIO
import Foundation
import Voicebank

@main
struct VoicebankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicebank",
        abstract: "Create and fill concat-synth voice packs: one SQLite file of voices and their phrase clips.",
        discussion: """
            With no --bank, the commands use $\(VoicePackLocation.environmentVariable) if set, else the default \
            pack (\(VoicePackLocation.defaultPackPath)).
            """,
        subcommands: [Create.self, Import.self, List.self])
}

/// The `--bank` option every subcommand takes.
struct BankOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The voice pack file.", valueName: "path"),
        completion: .file(extensions: ["sqlite"]))
    var bank: String?

    var path: String { VoicePackLocation.resolve(bank) }
}

/// Standard error, for reports that are not the command's output.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
