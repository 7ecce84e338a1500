// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import SpeechCore
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a voice to a pack, making the pack file if it does not exist.",
            discussion: """
                An English voice (en, en-…) starts in the units fallback: the words no clip covers are cut from its \
                takes, aligned as they are imported, and spoken by espeak-ng, matched to its clips, while it has no \
                aligned takes. A voice of another language starts with its fallback clip. \
                Example: voicebank create --bank my.sqlite --voice com.example.ann --name Ann --language en-US
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The voice's reverse-DNS identifier, unique in the pack.", valueName: "id"))
        var voice: String

        @Option(help: ArgumentHelp("The voice's display name.", valueName: "name"))
        var name: String

        @Option(
            name: .customLong("language"),
            help: ArgumentHelp("A primary language, as a BCP 47 tag; repeat for several.", valueName: "tag"))
        var languages: [String] = []

        @Option(
            name: .customLong("supported-language"),
            help: ArgumentHelp("A further language the voice can speak; repeat for several.", valueName: "tag"))
        var supportedLanguages: [String] = []

        @Option(
            help: ArgumentHelp(
                "The SSML rate the clips play at as recorded: a multiple or a percentage.", valueName: "rate"))
        var normalRate = RateArgument(argument: "100%")!

        @Option(
            help: ArgumentHelp(
                "How words no clip covers are spoken, as `voicebank configure --fallback` sets it: units for an English voice (cut from its aligned takes, espeak-ng for a word they cannot build), clip for the others.",
                valueName: "mode"))
        var fallback: FallbackMode?

        func validate() throws {
            if languages.isEmpty { throw ValidationError("Missing --language TAG (a BCP 47 tag such as en-US).") }
        }

        func run() throws {
            var voice = try Voice(
                identifier: voice, name: name, primaryLanguages: languages, supportedLanguages: supportedLanguages,
                normalRate: normalRate.multiple)
            voice.fallbackMode = fallback ?? voice.newVoiceFallbackMode
            try VoicePack.checkFallbackMode(voice.fallbackMode, of: voice)
            let pack = try bank.open(.create)
            try pack.addVoice(voice)
            print("added voice \(voice) to \(pack.path)")
        }
    }
}
