import ArgumentParser
import Foundation
import Voicebank

/// The `--bank` option every subcommand of both tools takes.
public struct BankOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The voice pack file.", valueName: "path"),
        completion: .file(extensions: ["sqlite"]))
    public var bank: String?

    public init() {}

    /// `--bank`, else `$CONCAT_SYNTH_BANK`, else the default pack.
    public var path: String { VoicePackLocation.resolve(bank) }

    public func open(_ access: VoicePack.Access) throws -> VoicePack {
        try VoicePack(path: path, access: access)
    }

    /// The sentence both tools' `--help` ends with.
    public static let discussion = """
        With no --bank, the commands use $\(VoicePackLocation.environmentVariable) if set, else the default \
        pack (\(VoicePackLocation.defaultPackPath)).
        """
}

/// Standard error, for reports that are not the command's output: `print("warning: …", to: &standardError)`.
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
