// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import ConcatSynth
import SpeechCore

extension ConcatSynthCommand {
    struct Voices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the voices of the default pack and of every installed pack, or of the --bank pack.",
            discussion: """
                One line a voice: identifier, name, languages, and its pack's name, version, path and attribution \
                (who recorded it, from the pack's manifest). A pack that \
                cannot be opened is left out with a warning. `render --voice ID` with no --bank speaks with the \
                pack listed here for ID.
                """)

        @OptionGroup var bank: BankOptions

        @Flag(help: "Print a JSON array of voices instead of a table.")
        var json = false

        func run() throws {
            let catalog = try VoiceCatalog(bank: bank.bank)
            var standardError = StandardError()
            for warning in catalog.warnings { print("warning: \(warning)", to: &standardError) }
            if json {
                try printJSON(catalog.voices.map(VoiceJSON.init))
                return
            }
            for entry in catalog.voices {
                let voice = entry.voice
                let pack = entry.pack
                print(
                    "\(voice.identifier)\t\(voice.name)\t\(voice.supportedLanguages.joined(separator: ","))\t"
                        + "\(pack.name ?? "(no name)")\t\(pack.version ?? "(no version)")\t\(pack.path)\t"
                        + (entry.attribution ?? "(no attribution)"))
            }
        }
    }
}

/// The fields of `concat-synth voices --json`: the voice's, named as in Apple's `AVSpeechSynthesisProviderVoice`,
/// then its pack's.
struct VoiceJSON: Encodable {
    var identifier: String
    var name: String
    var primaryLanguages: [String]
    var supportedLanguages: [String]
    /// The SSML rate at which the clips play as recorded.
    var normalRate: Double
    /// The pack's name and version from its manifest; absent where it has none.
    var pack: String?
    var packVersion: String?
    /// The pack's license, an SPDX expression; absent where it has none.
    var packLicense: String?
    var packPath: String
    /// Who is to be credited for the voice's recordings, as its pack's manifest says; absent where it says nobody
    /// for this voice.
    var packAttribution: String?
    /// How words no clip covers are spoken: `clip`, `spell` or `voice`.
    var fallback: String

    init(_ entry: VoiceCatalog.Entry) {
        let voice = entry.voice
        normalRate = voice.normalRate
        fallback = voice.fallbackMode.rawValue
        identifier = voice.identifier
        name = voice.name
        primaryLanguages = voice.primaryLanguages
        supportedLanguages = voice.supportedLanguages
        pack = entry.pack.name
        packVersion = entry.pack.version
        packLicense = entry.pack.license
        packPath = entry.pack.path
        packAttribution = entry.attribution
    }
}
