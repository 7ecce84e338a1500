// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SSML
import SpeechCore

/// What to say and how: the content, the voice to start with, and the request's own rate, pitch and volume (as if
/// the request were wrapped in `<prosody>`).
///
/// ```swift
/// SpeechRequest(.text("Hello"), prosody: Prosody(rate: 2, pitchSemitones: -2))
/// SpeechRequest(.characters("a1"), voice: "org.concatsynth.en")
/// ```
public struct SpeechRequest: Equatable {
    /// What is spoken, as its caller means it: no caller writes SSML to say "plain text" or "spell this".
    public enum Content: Equatable {
        /// SSML 1.1, or plain text when it does not start with `<` (after a byte-order mark and whitespace): the rule
        /// every request from a person follows.
        case ssml(String)
        /// Plain text, spoken as it is even when it starts with `<` or holds `&`.
        case text(String)
        /// Plain text read a piece at a time (a long file or a pipe), spoken as it is read.
        case textStream(StreamedText)
        /// Characters spelled one at a time, as `<say-as interpret-as="characters">` spells them.
        case characters(String)

        public static func == (left: Content, right: Content) -> Bool {
            switch (left, right) {
            case (.ssml(let left), .ssml(let right)), (.text(let left), .text(let right)),
                (.characters(let left), .characters(let right)):
                return left == right
            case (.textStream(let left), .textStream(let right)): return left === right
            default: return false
            }
        }
    }

    public var content: Content
    /// The identifier of the voice to start with; `nil` for the synthesizer's.
    public var voice: String?
    public var prosody: Prosody
    /// Speak malformed SSML's text with a warning, and ignore bad attribute values: what a screen reader, which
    /// cannot afford silence, wants.
    public var isLenient: Bool
    /// Spell every text run of the content, whatever its markup says (speech-dispatcher's spelling mode).
    public var isSpelling: Bool

    public init(
        _ content: Content, voice: String? = nil, prosody: Prosody = .normal, isLenient: Bool = false,
        isSpelling: Bool = false
    ) {
        self.content = content
        self.voice = voice
        self.prosody = prosody
        self.isLenient = isLenient
        self.isSpelling = isSpelling
    }

    /// A request as a person gives it: SSML, or plain text when it does not start with `<`.
    public init(_ ssml: String, voice: String? = nil, prosody: Prosody = .normal, isLenient: Bool = false) {
        self.init(.ssml(ssml), voice: voice, prosody: prosody, isLenient: isLenient)
    }

    /// The plain text being streamed, if that is the content.
    public var textStream: StreamedText? {
        if case .textStream(let stream) = content { return stream }
        return nil
    }

    /// The request's events, or `nil` for a text stream, which the planner reads itself.
    ///
    /// - Throws: `SSMLError` for SSML that cannot be read (in lenient mode only what is refused in both modes).
    func events(reader: SSMLReader) throws(SSMLError) -> SSMLEventStream? {
        switch content {
        case .ssml(let ssml):
            return try reader.events(ssml, lenient: isLenient, prosody: prosody, spelling: isSpelling)
        case .text(let text): return reader.events(plainText: text, prosody: prosody, spelling: isSpelling)
        case .characters(let text): return reader.events(plainText: text, prosody: prosody, spelling: true)
        case .textStream: return nil
        }
    }

    /// The context a streamed text is spoken in.
    var streamContext: SpeechContext { SpeechContext(prosody, isSpelling: isSpelling) }
}

extension SpeechRequest {
    /// The text of SSML that even lenient reading refuses (a `<!DOCTYPE`, an entity of its own): the markup dropped
    /// as lenient reading drops it, entity references kept as their characters, never expanded. The last resort of
    /// a caller that cannot afford silence.
    public static func textOfRefusedMarkup(_ ssml: String) -> String { SSMLReader.textOfRefusedMarkup(ssml) }
}

extension Prosody {
    /// A rate given outside SSML (`2`, `200%`, `+20%`, `fast`), read as `<prosody rate>` reads it, as a multiple of
    /// the default rate; `nil` for anything else.
    public static func rate(parsing text: String) -> Double? { ProsodyValue.rate(text) }

    /// A pitch given outside SSML (`+2st`, `-10%`, `high`), read as `<prosody pitch>` reads it, as a shift in
    /// semitones; `nil` for anything else, Hz included (a voice of recorded clips has no base frequency).
    public static func pitchSemitones(parsing text: String) -> Double? { ProsodyValue.pitchSemitones(text) }

    /// What `rate(parsing:)` accepts, for a message.
    public static var acceptedRate: String { ProsodyValue.acceptedRate }
    /// What `pitchSemitones(parsing:)` accepts, for a message.
    public static var acceptedPitch: String { ProsodyValue.acceptedPitch }
}
