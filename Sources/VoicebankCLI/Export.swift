// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every clip's original audio back out as files, with a transcript per voice.",
            discussion: """
                FOLDER must be new or empty. It gets a folder per voice (named by its identifier) holding each \
                clip's original samples (same rate, channels and encoding; AIFF, CAF, WAV or FLAC as imported, \
                else WAV) and transcript.tsv (file, text, role), plus rebuild.sh, which makes the pack again with \
                voicebank create and voicebank import --transcript. Nothing is left behind if it fails.
                Example: voicebank export --bank my.sqlite exported && exported/rebuild.sh copy.sqlite
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("Only this voice; every voice if not given.", valueName: "id"))
        var voice: String?

        @Argument(help: ArgumentHelp("The folder to write; new or empty.", valueName: "folder"), completion: .directory)
        var folder: String

        func run() throws {
            let pack = try bank.open(.readOnly)
            let report = try pack.export(to: folder, voice: voice)
            for exported in report.voices {
                print(
                    "exported \(exported.files.count) clips of \(exported.voice.identifier) to \(exported.folder) (transcript \(exported.transcript))"
                )
            }
            print("rebuild the pack with: \(report.script) NEW.sqlite")
            var standardError = StandardError()
            for warning in report.warnings { print("warning: \(warning)", to: &standardError) }
        }
    }
}
