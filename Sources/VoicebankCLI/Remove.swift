// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove clips by id or by phrase, in one transaction.",
            discussion: """
                --phrase removes every take of the phrase in the voice (compared as phrase keys: "Hello!" is \
                "hello"). Ids are those voicebank list shows. If any id or phrase is not in the pack, nothing is \
                removed. Removing a voice's last fallback clip is refused unless --allow-no-fallback is given: \
                import the new fallback clip first. Example: voicebank remove --bank my.sqlite --phrase "Good morning"
                """)

        @OptionGroup var bank: BankOptions

        @Option(
            help: ArgumentHelp(
                "The voice whose phrases --phrase names; needed when the pack has several.", valueName: "id"))
        var voice: String?

        @Option(
            name: .customLong("clip"), help: ArgumentHelp("A clip id to remove; repeat for several.", valueName: "id"))
        var clipIDs: [Int] = []

        @Option(
            name: .customLong("phrase"),
            help: ArgumentHelp("A phrase whose takes to remove; repeat for several.", valueName: "text"))
        var phrases: [String] = []

        @Flag(help: "Allow removing a voice's last fallback clip.")
        var allowNoFallback = false

        func validate() throws {
            if clipIDs.isEmpty && phrases.isEmpty {
                throw ValidationError("Nothing to remove: give --clip ID or --phrase TEXT.")
            }
            if voice != nil && phrases.isEmpty {
                throw ValidationError("--voice applies to --phrase only; clip ids are unique in the pack.")
            }
        }

        func run() throws {
            let pack = try bank.open(.readWrite)
            let removed = try pack.removeClips(
                ids: clipIDs, phrases: phrases, voice: voice, allowNoFallback: allowNoFallback)
            for clip in removed {
                print(
                    "removed #\(clip.id) \(clip.voice) \"\(clip.phrase)\"\(clip.isFallback ? " (fallback)" : "") from \(clip.sourceName)"
                )
            }
            print("\(removed.count) clip\(removed.count == 1 ? "" : "s") removed from \(pack.path)")
        }
    }

    struct RemoveVoice: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-voice",
            abstract: "Remove a voice and all its clips, in one transaction.",
            discussion: "Example: voicebank remove-voice --bank my.sqlite --voice com.example.old")

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The voice to remove.", valueName: "id"))
        var voice: String

        func run() throws {
            let pack = try bank.open(.readWrite)
            let (removed, clipCount) = try pack.removeVoice(voice)
            print("removed voice \(removed) and its \(clipCount) clip\(clipCount == 1 ? "" : "s") from \(pack.path)")
        }
    }
}
