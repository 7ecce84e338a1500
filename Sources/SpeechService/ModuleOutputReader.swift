// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO

/// One complete reply or event from a module's standard output: its code, its text lines, and the PCM of a
/// `705 AUDIO` block.
public struct ModuleMessage: Equatable, Sendable, CustomStringConvertible {
    /// The three-digit code (`299`, `203`, `700`, `705`, …).
    public var code: Int
    /// Every line's text after `CODE-` or `CODE `, the last one included (`["__spd_1", "INDEX MARK"]`).
    public var lines: [String]
    /// The unescaped PCM bytes of a `705` block; empty otherwise.
    public var audio: [UInt8]

    public init(code: Int, lines: [String], audio: [UInt8] = []) {
        self.code = code
        self.lines = lines
        self.audio = audio
    }

    /// An event (7xx) rather than the reply to a command.
    public var isEvent: Bool { code >= 700 && code < 800 }

    /// The 16-bit samples of a `705` block.
    public var samples: [Int16] { PCM16.samples(littleEndian: audio) }

    public var description: String {
        code == 705 ? "705 AUDIO (\(audio.count / 2) samples)" : lines.map { "\(code) \($0)" }.joined(separator: " / ")
    }
}

/// Reads a module's output as speech-dispatcher does: `CODE-text` lines until a `CODE text` line, and `705` blocks
/// with their escaped PCM. For the tests and the benchmark, which play the server's part.
public final class ModuleOutputReader {
    private let lines: LineReader

    public init(descriptor: Int32) { lines = LineReader(descriptor: descriptor) }

    /// The next whole message; `nil` when the module's output ends (possibly in the middle of one).
    public func next() -> ModuleMessage? {
        var texts: [String] = []
        var audio: [UInt8] = []
        while let line = lines.readLineBytes() {
            guard line.count >= 4, let code = Int(String(decoding: line.prefix(3), as: UTF8.self)) else {
                return ModuleMessage(code: 0, lines: [String(decoding: line, as: UTF8.self)])
            }
            let separator = line[line.startIndex + 3]
            let rest = line.dropFirst(4)
            let audioTag = Array("AUDIO".utf8)
            if separator == UInt8(ascii: "-"), rest.starts(with: audioTag), rest.count > audioTag.count,
                rest[rest.startIndex + audioTag.count] == 0
            {
                audio = AudioBlock.unescape(rest.dropFirst(audioTag.count + 1))
                texts.append("AUDIO")
                continue
            }
            texts.append(String(decoding: rest, as: UTF8.self))
            if separator == UInt8(ascii: " ") { return ModuleMessage(code: code, lines: texts, audio: audio) }
        }
        return nil
    }
}
