// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import SpeechCore
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

extension VoicebankCommand {
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: shown(error))
        }
    }

    /// What `voicebank` reports for `error`: the store's, authoring's and sharing's messages with their remedies
    /// worded as this tool's options, which the library does not name; anything else as `CommandLineMessage` shows it.
    static func shown(_ error: any Error) -> any Error {
        let message: String?
        switch error {
        case let error as VoicebankError: message = worded(error)
        case AuthoringError.store(let error), SharingError.store(let error): message = worded(error)
        case let error as AuthoringError: message = worded(error)
        case SharingError.emptyManifestValue(let key):
            message = "invalid manifest \(key) \"\"; expected a value that is not empty (`--unset \(key)` removes one)"
        default: message = nil
        }
        guard let message else { return CommandLineMessage.shown(error) }
        return CommandLineMessage(description: message)
    }

    private static func worded(_ error: VoicebankError) -> String? {
        switch error {
        case .noPack(let path): return CommandLineMessage.noPack(path: path)
        case .noVoice(let path): return CommandLineMessage.noVoice(path: path)
        case .damagedClip(let path, let clipID, let phrase, let damage):
            return CommandLineMessage.damagedClip(path: path, clipID: clipID, phrase: phrase, damage: "\(damage)")
        case .damagedVoice(let path, let voice, let field, let value, let expected):
            return CommandLineMessage.damagedVoice(
                path: path, voice: voice, setting: field, value: value, expected: expected)
        case .noLanguage: return "no language given; expected at least one --language TAG such as en-US"
        case .ambiguousVoice(let available, let path):
            return
                "voice pack \(path) has several voices; expected --voice with one of: \(available.joined(separator: ", "))"
        case .invalidSelectionWeight(let weight, let value):
            return "invalid --\(weight)-weight \(value); expected \(SelectionWeights.accepted)"
        default: return nil
        }
    }

    private static func worded(_ error: AuthoringError) -> String? {
        switch error {
        case .emptyPhrase(let file, let phrase):
            return
                "the phrase \"\(phrase)\" of \(file) has no words once normalised; expected --text with a phrase that has letters, digits or CJK characters"
        case .fallbackLanguage(let voice, let language):
            return
                "espeak-ng has no voice for \(language), the language of voice \(voice); expected a language espeak-ng speaks (espeak-ng --voices lists them), or --fallback clip or spell"
        case .lastFallback(let voice, let path):
            return
                "that would remove the last fallback clip of voice \(voice) in \(path), and words no clip covers could not be spoken; import another with `voicebank import --fallback` first, or give --allow-no-fallback"
        default: return nil
        }
    }
}
