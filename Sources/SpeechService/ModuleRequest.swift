// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth

/// One message for the engine: what to speak, as the engine's request content, and the values it is spoken with.
public struct ModuleRequest: Equatable {
    /// SSML (or plain text), a key's words, or characters to spell; SSML is read leniently: speech-dispatcher sends
    /// SSML for every message, and a screen reader cannot afford silence over a stray `<`.
    public var content: SpeechRequest.Content
    /// Every text run of `content` spelled: `spelling_mode` on.
    public var isSpelling: Bool
    public var parameters: EngineParameters

    public init(content: SpeechRequest.Content, isSpelling: Bool = false, parameters: EngineParameters) {
        self.content = content
        self.isSpelling = isSpelling
        self.parameters = parameters
    }

    /// The request for a message of `kind` under `settings`: `CHAR`, and every message when `spelling_mode` is
    /// on, is spelled (each character a token of its own); a `KEY`'s name is spoken with `_` read as a space
    /// (`shift_a` → "shift a").
    public init(message: String, kind: MessageKind, settings: ModuleSettings, voices: [ModuleVoice]) {
        self.init(
            message: message, kind: kind, settings: settings, parameters: EngineParameters(settings, voices: voices))
    }

    /// The same, with the parameters `settings` give worked out already.
    public init(message: String, kind: MessageKind, settings: ModuleSettings, parameters: EngineParameters) {
        self.parameters = parameters
        isSpelling = false
        switch kind {
        case .character:
            content = Self.spelledCharacter(message)
        case .key:
            let name = message == " " || message == "space" ? "space" : message
            content = name.count == 1 ? Self.spelledCharacter(name) : .text(String(name.map { $0 == "_" ? " " : $0 }))
        case .text, .soundIcon:
            content = .ssml(message)
            isSpelling = settings.isSpelling
        }
    }

    /// One character spelled; a space is the word "space", which spelling would skip.
    static func spelledCharacter(_ character: String) -> SpeechRequest.Content {
        character == " " || character == "space" ? .text("space") : .characters(character)
    }

    /// The message as given, for errors and logs.
    var text: String {
        switch content {
        case .ssml(let text), .text(let text), .characters(let text): return text
        case .textStream(let stream): return stream.source
        }
    }
}
