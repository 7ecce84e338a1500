/// One message for the engine: the SSML to speak and the values it is spoken with.
public struct ModuleRequest: Equatable, Sendable {
    /// SSML, read leniently: speech-dispatcher sends SSML for every message, and a screen reader cannot afford
    /// silence over a stray `<`.
    public var ssml: String
    public var parameters: EngineParameters

    public init(ssml: String, parameters: EngineParameters) {
        self.ssml = ssml
        self.parameters = parameters
    }

    /// The request for a message of `kind` under `settings`: `CHAR`, and every message when `spelling_mode` is
    /// on, is spelled with SSML's `<say-as interpret-as="characters">` (how the engine spells: each character a
    /// token of its own); a `KEY`'s name is spoken with `_` read as a space (`shift_a` → "shift a").
    public init(message: String, kind: MessageKind, settings: ModuleSettings, voices: [ModuleVoice]) {
        self.init(
            message: message, kind: kind, settings: settings, parameters: EngineParameters(settings, voices: voices))
    }

    /// The same, with the parameters `settings` give worked out already.
    public init(message: String, kind: MessageKind, settings: ModuleSettings, parameters: EngineParameters) {
        switch kind {
        case .character:
            ssml = Self.spelledCharacter(message)
        case .key:
            let name = message == " " || message == "space" ? "space" : message
            ssml = name.count == 1 ? Self.spelledCharacter(name) : "<speak>\(Self.escaped(Self.keyWords(name)))</speak>"
        case .text, .soundIcon:
            if settings.isSpelling {
                ssml = Self.spellingEveryText(message)
            } else {
                ssml = message
            }
        }
        self.parameters = parameters
    }

    /// `<speak>` around one character spelled; a space is the word "space", which `say-as characters` would skip.
    static func spelledCharacter(_ character: String) -> String {
        if character == " " || character == "space" { return "<speak>space</speak>" }
        return "<speak><say-as interpret-as=\"characters\">\(escaped(character))</say-as></speak>"
    }

    private static func keyWords(_ name: String) -> String {
        name == "_" ? "underscore" : String(name.map { $0 == "_" ? " " : $0 })
    }

    /// `message` with each run of text between tags spelled: markup, marks and their names stay as they are.
    static func spellingEveryText(_ message: String) -> String {
        guard message.first == "<" else {
            return "<speak><say-as interpret-as=\"characters\">\(escaped(message))</say-as></speak>"
        }
        var out = ""
        var text = ""
        var isInTag = false
        func flushText() {
            if text.contains(where: { !$0.isWhitespace }) {
                out += "<say-as interpret-as=\"characters\">\(text)</say-as>"
            } else {
                out += text
            }
            text = ""
        }
        for character in message {
            if isInTag {
                out.append(character)
                if character == ">" { isInTag = false }
            } else if character == "<" {
                flushText()
                out.append(character)
                isInTag = true
            } else {
                text.append(character)
            }
        }
        flushText()
        return out
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
