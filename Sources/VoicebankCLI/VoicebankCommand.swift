import ArgumentParser
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

@main
struct VoicebankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicebank",
        abstract: "Create and fill concat-synth voice packs: one SQLite file of voices and their phrase clips.",
        discussion: BankOptions.discussion,
        subcommands: [
            Create.self, Import.self, List.self, Configure.self, Words.self, Migrate.self, Align.self,
            // The pack builder's tools (Sources/VoicebankCLI: Export, Info, Remove, Verify, Coverage).
            Export.self, Info.self, Verify.self, Remove.self, RemoveVoice.self, Coverage.self,
            // Sharing packs (Sources/VoicebankCLI/Sharing.swift).
            Manifest.self, Publish.self, Install.self, Uninstall.self, Packs.self,
            // Recording in the browser and on a terminal (Sources/VoicebankCLI/Studio.swift and Record.swift, module
            // Studio).
            StudioCommand.self, Record.self,
        ])
}

extension BankOptions {
    /// Opens the pack `--bank` names (else `$CONCAT_SYNTH_BANK`, else the default pack). Opened to write, a pack
    /// from an older schema is upgraded and its clips measured in one transaction (`VoicePack.openForChanges`).
    func open(_ access: VoicePack.Access) throws -> VoicePack {
        access == .readOnly
            ? try VoicePack(path: path, access: access) : try VoicePack.openForChanges(path: path, access: access)
    }
}
