import ArgumentParser
import CommandLineSupport
import ConcatSynth
import SpeechCore

extension ConcatSynthCommand {
    struct Voices: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the voices of a pack.")

        @OptionGroup var bank: BankOptions

        @Flag(help: "Print a JSON array of voices instead of a table.")
        var json = false

        func run() throws {
            let voices = try Synthesizer.voices(bank: bank.bank)
            if json {
                try printJSON(voices.map(VoiceJSON.init))
                return
            }
            for voice in voices {
                print("\(voice.identifier)\t\(voice.name)\t\(voice.supportedLanguages.joined(separator: ","))")
            }
        }
    }
}

/// The fields of `concat-synth voices --json`, named as in Apple's `AVSpeechSynthesisProviderVoice`.
struct VoiceJSON: Encodable {
    var identifier: String
    var name: String
    var primaryLanguages: [String]
    var supportedLanguages: [String]
    /// The SSML rate at which the clips play as recorded.
    var normalRate: Double
    /// How words no clip covers are spoken: `clip`, `spell` or `voice`.
    var fallback: String

    init(_ voice: VoiceSettings) {
        normalRate = voice.normalRate
        fallback = voice.fallbackMode.rawValue
        identifier = voice.identifier
        name = voice.name
        primaryLanguages = voice.primaryLanguages
        supportedLanguages = voice.supportedLanguages
    }
}
