// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import NIOHTTP1

#if canImport(FoundationEssentials)
    // JSON without the rest of Foundation (ICU), as the other servers read it.
    import FoundationEssentials
#else
    import Foundation
#endif

/// The OpenAI-compatible endpoints: `POST /v1/audio/speech`, `GET /v1/models`, `GET /v1/audio/voices`.
enum OpenAIAPI {
    /// The one model listed; `model` in a request is accepted whatever it says, as clients send their own default.
    static let modelName = "concat-synth"

    /// The body of `POST /v1/audio/speech`: `{model, input, voice, response_format, speed}`, and `sample_rate`, which
    /// is this server's; `instructions` and OpenAI's other fields are ignored.
    struct SpeechBody: Decodable {
        var input: String?
        var voice: String?
        var responseFormat: String?
        var speed: Double?
        var sampleRate: Int?

        enum CodingKeys: String, CodingKey {
            case input, voice, speed
            case responseFormat = "response_format"
            case sampleRate = "sample_rate"
        }
    }

    /// The speeds OpenAI accepts.
    static let speeds: ClosedRange<Double> = 0.25...4

    /// The rates `sample_rate` may ask for: from telephony's to a studio's, each converted as the answer is rendered.
    static let sampleRates = 8_000...48_000

    /// The formats `sample_rate` applies to: MP3 and Opus take only some rates, and keep their own.
    static let sampleRateFormats = ["pcm", "wav", "flac"]

    /// Reads a speech request's JSON body.
    ///
    /// - Throws: `APIError` (400) for a body that is not such JSON, no `input`, an unknown voice or format, or a
    ///   speed outside 0.25 to 4.
    static func order(body: [UInt8], voices: SynthesizerPools) throws(APIError) -> SpeechOrder {
        let fields: SpeechBody
        do {
            fields = try JSONDecoder().decode(SpeechBody.self, from: Data(body))
        } catch {
            throw .invalid(
                "the body is not the JSON object this endpoint takes; expected {\"model\": \"\(modelName)\", \"input\": \"Hello\", \"voice\": \"\(voices.voices[0].settings.identifier)\"}"
            )
        }
        guard let input = fields.input, !input.allSatisfy(\.isWhitespace) else {
            throw .invalid("the request has no input; expected \"input\" with the text or SSML to speak")
        }
        guard let format = AudioResponseFormat.openAI(fields.responseFormat) else {
            throw .invalid(
                "response_format \"\(fields.responseFormat ?? "")\" is not one this server writes; expected one of: \(AudioResponseFormat.openAINames.joined(separator: ", "))"
            )
        }
        let speed = fields.speed ?? 1
        guard speeds.contains(speed) else {
            throw .invalid("speed \(speed) is outside what this endpoint takes; expected 0.25 to 4 (1 is normal)")
        }
        if let sampleRate = fields.sampleRate {
            guard sampleRates.contains(sampleRate) else {
                throw .invalid(
                    "sample_rate \(sampleRate) is outside what this endpoint takes; expected \(sampleRates.lowerBound) to \(sampleRates.upperBound) (Hz)"
                )
            }
            let formatName = fields.responseFormat ?? "mp3"
            guard sampleRateFormats.contains(formatName) else {
                throw .invalid(
                    "sample_rate is not taken with response_format \(formatName), which keeps its own rate; expected one of: \(sampleRateFormats.joined(separator: ", "))"
                )
            }
        }
        let voice: SynthesizerPools.Voice
        if let name = fields.voice {
            guard let found = voices.voice(named: name) else { throw unknownVoice(name, voices) }
            voice = found
        } else {
            voice = voices.voices[0]
        }
        return SpeechOrder(
            input: input, isSSML: SpeechOrder.startsAsSSML(input), voice: voice, speed: speed, format: format,
            sampleRate: fields.sampleRate)
    }

    static func unknownVoice(_ name: String, _ voices: SynthesizerPools) -> APIError {
        .invalid(
            "voice \"\(name)\" is not one this server speaks; expected one of: \(voices.voices.map(\.settings.identifier).joined(separator: ", ")) (GET /v1/audio/voices lists them)"
        )
    }

    struct ModelList: Encodable {
        struct Model: Encodable {
            var id = OpenAIAPI.modelName
            var object = "model"
            var created = 0
            var ownedBy = "concat-synth"

            enum CodingKeys: String, CodingKey {
                case id, object, created
                case ownedBy = "owned_by"
            }
        }
        var object = "list"
        var data = [Model()]
    }

    /// `GET /v1/audio/voices`: each voice with its languages, its pack's name and version, and its attribution.
    struct VoiceList: Encodable {
        struct Voice: Encodable {
            var id: String
            var name: String
            var languages: [String]
            var pack: String?
            var packVersion: String?
            var attribution: String?
        }
        var voices: [Voice]

        init(_ pools: SynthesizerPools) {
            voices = pools.voices.map {
                Voice(
                    id: $0.settings.identifier, name: $0.settings.name, languages: $0.settings.supportedLanguages,
                    pack: $0.pack.name, packVersion: $0.pack.version, attribution: $0.attribution)
            }
        }
    }
}

/// The MaryTTS-compatible endpoints that MaryTTS clients call (Home Assistant's and openHAB's integrations, the
/// `speak2mary` package): `/process`, `/voices`, `/locales`, `/version`.
enum MaryAPI {
    /// `GET /process?INPUT_TEXT=…` or `POST /process` with the same parameters form-encoded.
    ///
    /// - Throws: `APIError` (400) for no `INPUT_TEXT`, an `INPUT_TYPE` other than `TEXT` or `SSML`, an `OUTPUT_TYPE`
    ///   other than `AUDIO`, an unknown `AUDIO`, or a `VOICE` and `LOCALE` no voice has.
    static func order(parameters: [String: String], voices: SynthesizerPools) throws(APIError) -> SpeechOrder {
        guard let text = parameters["INPUT_TEXT"], !text.allSatisfy(\.isWhitespace) else {
            throw .invalid("the request has no INPUT_TEXT; expected INPUT_TEXT with the text or SSML to speak")
        }
        let inputType = parameters["INPUT_TYPE"] ?? "TEXT"
        guard inputType == "TEXT" || inputType == "SSML" else {
            throw .invalid("INPUT_TYPE \"\(inputType)\" is not one this server reads; expected TEXT or SSML")
        }
        let outputType = parameters["OUTPUT_TYPE"] ?? "AUDIO"
        guard outputType == "AUDIO" else {
            throw .invalid("OUTPUT_TYPE \"\(outputType)\" is not one this server writes; expected AUDIO")
        }
        guard let format = AudioResponseFormat.mary(parameters["AUDIO"]) else {
            throw .invalid(
                "AUDIO \"\(parameters["AUDIO"] ?? "")\" is not one this server writes; expected one of: \(AudioResponseFormat.maryNames.joined(separator: ", "))"
            )
        }
        // MaryTTS clients send a VOICE of MaryTTS's own (cmu-slt-hsmm) unless told otherwise: a voice of ours by that
        // name first, else one for the LOCALE.
        let voice =
            parameters["VOICE"].flatMap { voices.voice(named: $0) }
            ?? parameters["LOCALE"].flatMap { voices.voice(language: $0) }
        guard let voice else {
            throw .invalid(
                "neither VOICE \"\(parameters["VOICE"] ?? "")\" nor LOCALE \"\(parameters["LOCALE"] ?? "")\" names a voice this server speaks; expected a VOICE or LOCALE from GET /voices: \(voiceLines(voices).split(separator: "\n").joined(separator: "; "))"
            )
        }
        return SpeechOrder(
            input: text, isSSML: inputType == "SSML" || SpeechOrder.startsAsSSML(text), voice: voice, speed: 1,
            format: format)
    }

    /// `GET /voices`: a line `name locale gender` for each voice, as MaryTTS lists its own; a clip voice has no
    /// gender on record, so it says `unknown`.
    static func voiceLines(_ voices: SynthesizerPools) -> String {
        voices.voices.map { "\($0.settings.identifier) \(locale($0.settings.primaryLanguages[0])) unknown\n" }.joined()
    }

    /// `GET /locales`: each language the voices speak, once, in MaryTTS's form (`en_US`).
    static func localeLines(_ voices: SynthesizerPools) -> String {
        var seen: Set<String> = []
        return voices.voices.flatMap(\.settings.supportedLanguages).map(locale).filter { seen.insert($0).inserted }
            .map { $0 + "\n" }.joined()
    }

    /// `GET /version`.
    static let version = "Mary TTS server 5.2.1 (compatible: concat-synth)\n"

    /// `en-US` as MaryTTS writes a locale: `en_US`.
    static func locale(_ tag: String) -> String { String(tag.map { $0 == "-" ? "_" : $0 }) }
}
