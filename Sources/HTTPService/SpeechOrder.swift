// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth

/// What an HTTP client asked to hear, read from an OpenAI-compatible or a MaryTTS request: the words, the voice, the
/// speed, and the audio format of the answer. A value the protocols' requests become, so that each adapter is a
/// parser and the render is one path.
struct SpeechOrder: Sendable {
    /// The request's text or SSML.
    var input: String
    var isSSML: Bool
    var voice: SynthesizerPools.Voice
    /// A multiple of the voice's normal speed; 1 plays the clips as recorded.
    var speed: Double
    var format: AudioResponseFormat
    /// The rate the answer is converted to, or `nil` for the format's own: 24 kHz for `pcm`, the render's 22050 Hz for
    /// a file.
    var sampleRate: Int? = nil

    /// Whether an input is SSML by its start, as everywhere else: `<speak` after any white space.
    static func startsAsSSML(_ input: String) -> Bool { input.drop(while: \.isWhitespace).hasPrefix("<speak") }

    /// The typed request the synthesizer renders. SSML is read strictly, as `concat-synth render` reads it: malformed
    /// markup is a 400 naming its line and column, which the app that sent it can fix.
    var request: SpeechRequest {
        // Prosody's rate is SSML's, a multiple of SSML's default rate: the voice's normal rate times the speed.
        let prosody = speed == 1 ? Prosody.normal : Prosody(rate: speed * voice.settings.normalRate)
        return SpeechRequest(
            isSSML ? .ssml(input) : .text(input), voice: voice.settings.identifier, prosody: prosody)
    }
}

/// The audio an HTTP answer carries.
enum AudioResponseFormat: Sendable, Equatable {
    /// A file as `concat-synth render -o NAME.EXTENSION` writes it (with `encoding`, when given), sent whole once it is
    /// rendered: its header holds its length, or (FLAC, MP3, Opus) the encoder's own framing.
    case file(extension: String, encoding: OutputEncoding?, contentType: String)
    /// Raw 16-bit little-endian mono at 24 kHz, as OpenAI's `pcm` is, sent as it is rendered.
    case pcm

    /// The sample rate of raw `pcm`: OpenAI's clients play it at 24 kHz.
    static let pcmSampleRate = 24_000

    var contentType: String {
        switch self {
        case .file(_, _, let contentType): contentType
        case .pcm: "audio/pcm"
        }
    }

    /// The name of the format in the log.
    var name: String {
        switch self {
        case .file(let fileExtension, let encoding, _): fileExtension + (encoding.map { " \($0.rawValue)" } ?? "")
        case .pcm: "pcm"
        }
    }

    /// OpenAI's `response_format` values this server writes, in the order its errors list them.
    static let openAINames = ["mp3", "opus", "wav", "flac", "pcm"]

    /// OpenAI's `response_format`: MP3 when none is given, as OpenAI's own default.
    static func openAI(_ name: String?) -> AudioResponseFormat? {
        switch name ?? "mp3" {
        case "mp3": .file(extension: "mp3", encoding: nil, contentType: "audio/mpeg")
        case "opus": .file(extension: "opus", encoding: nil, contentType: "audio/ogg")
        case "wav": .file(extension: "wav", encoding: nil, contentType: "audio/wav")
        case "flac": .file(extension: "flac", encoding: nil, contentType: "audio/flac")
        case "pcm": .pcm
        default: nil
        }
    }

    /// MaryTTS's `AUDIO` values this server writes.
    static let maryNames = ["WAVE_FILE", "WAVE", "AU_FILE", "AIFF_FILE"]

    /// MaryTTS's `AUDIO`: 16-bit files, as MaryTTS's own server writes (`WAVE_FILE` when none is given).
    static func mary(_ name: String?) -> AudioResponseFormat? {
        switch name ?? "WAVE_FILE" {
        case "WAVE_FILE", "WAVE": .file(extension: "wav", encoding: .s16, contentType: "audio/x-wav")
        case "AU_FILE": .file(extension: "au", encoding: .s16, contentType: "audio/basic")
        case "AIFF_FILE": .file(extension: "aiff", encoding: .s16, contentType: "audio/x-aiff")
        default: nil
        }
    }
}
