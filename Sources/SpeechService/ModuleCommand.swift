// SPDX-License-Identifier: GPL-3.0-or-later
/// What a message to speak is, as the command that brought it says.
public enum MessageKind: String, Equatable, Sendable {
    /// `SPEAK`: SSML (speech-dispatcher wraps plain text in `<speak>` and adds `__spd_` marks).
    case text
    /// `CHAR`: one character, to be spelled.
    case character
    /// `KEY`: a key name such as `a`, `shift_a` or `Return`.
    case key
    /// `SOUND_ICON`: the name of a sound icon such as `message`.
    case soundIcon
}

/// One command line of speech-dispatcher's module protocol, as the server sends it (speechd 0.11).
///
/// ```swift
/// ModuleCommand("LIST VOICES en")   // .listVoices(language: "en", variant: nil)
/// ```
public enum ModuleCommand: Equatable, Sendable {
    case initialize
    /// `AUDIO`, followed by `key=value` lines and `.`.
    case audio
    /// `LOGLEVEL`, followed by `log_level=N` and `.`.
    case logLevel
    /// `DEBUG ON FILE` or `DEBUG OFF`.
    case debug(file: String?)
    case listVoices(language: String?, variant: String?)
    /// `SET`, followed by `key=value` lines and `.`.
    case set
    /// `SPEAK`, `CHAR`, `KEY` or `SOUND_ICON`, followed by the message's dot-stuffed lines and `.`.
    case speak(MessageKind)
    case stop
    case pause
    case quit
    case unknown(String)

    /// Reads a command line, without its newline.
    public init(_ line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch line {
        case "INIT": self = .initialize
        case "AUDIO": self = .audio
        case "LOGLEVEL": self = .logLevel
        case "SET": self = .set
        case "SPEAK": self = .speak(.text)
        case "CHAR": self = .speak(.character)
        case "KEY": self = .speak(.key)
        case "SOUND_ICON": self = .speak(.soundIcon)
        case "STOP": self = .stop
        case "PAUSE": self = .pause
        case "QUIT": self = .quit
        default:
            if words.count >= 2, words[0] == "LIST", words[1] == "VOICES" {
                self = .listVoices(
                    language: words.count > 2 ? words[2] : nil, variant: words.count > 3 ? words[3] : nil)
            } else if words.first == "DEBUG", words.count >= 2, words[1] == "ON" || words[1] == "OFF" {
                self = .debug(file: words[1] == "ON" && words.count > 2 ? words[2] : nil)
            } else {
                self = .unknown(line)
            }
        }
    }
}

/// The lines of a message as the server sends them, dot-stuffed: a line that starts with `.` has one more `.`
/// in front, and a line that is only `.` ends the message.
public enum DotStuffing {
    /// The message's text: each line with one leading `.` removed, joined by newlines.
    ///
    /// ```swift
    /// DotStuffing.unstuff(["<speak>Hello", "..and more</speak>"])   // "<speak>Hello\n.and more</speak>"
    /// ```
    public static func unstuff(_ lines: [String]) -> String {
        lines.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }.joined(separator: "\n")
    }

    /// The lines to send for `text`, ending with the `.` line (what the server does; the tests and the
    /// benchmark use it).
    public static func stuff(_ text: String) -> String {
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".") { out += "." }
            out += line
            out += "\n"
        }
        return out + ".\n"
    }
}

/// Lines from a file descriptor, read in large chunks; a line's bytes are taken as UTF-8.
public final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line without its newline; `nil` at the end of the input (or on a read error, which ends it too).
    public func readLine() -> String? {
        readLineBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next line's bytes, without the newline.
    public func readLineBytes() -> ArraySlice<UInt8>? {
        var searchFrom = start
        while true {
            let found = buffer.withUnsafeBytes { bytes -> Int? in
                guard searchFrom < bytes.count,
                    let newline = memchr(bytes.baseAddress! + searchFrom, 0x0A, bytes.count - searchFrom)
                else { return nil }
                return UnsafeRawPointer(newline) - bytes.baseAddress!
            }
            if let newline = found {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            if start > 0 && start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 65_536 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            searchFrom = buffer.count
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                // A last line without a newline is still a line.
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            buffer += chunk[..<count]
        }
    }
}
