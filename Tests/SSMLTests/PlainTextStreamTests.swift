// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Testing

@testable import SSML

/// Plain text read a piece at a time: pieces cut where no token reaches across, offsets as for the whole text.
@Suite struct PlainTextStreamTests {
    /// A stream over `bytes`, handed over `readSize` bytes at a time.
    func stream(_ bytes: [UInt8], readSize: Int = 7, pieceBytes: Int = 16) -> PlainTextStream {
        var remaining = bytes[...]
        return PlainTextStream(source: "test input", start: [], pieceBytes: pieceBytes) {
            defer { remaining = remaining.dropFirst(readSize) }
            return Array(remaining.prefix(readSize))
        }
    }

    func runs(_ stream: PlainTextStream, lenient: Bool = false) throws(PlainTextError) -> [TextRun] {
        var runs: [TextRun] = []
        while let run = try stream.nextRun(context: SpeechContext(), isLenient: lenient) { runs.append(run) }
        return runs
    }

    @Test("pieces put back together are the text; each is cut after a space before an ASCII character")
    func pieces() throws {
        let text = "Good morning, everyone!\nIt's 22 o'clock: 設定 をオンに\tand then\r\nmore text é at the end"
        let runs = try runs(stream(Array(text.utf8)))
        #expect(runs.count > 3)
        #expect(runs.map(\.text).joined() == text)
        for run in runs.dropLast() {
            #expect(run.isContinued)
            #expect(run.text.last?.isWhitespace == true)
        }
        #expect(runs.last?.isContinued == false)
        var offset = 0
        for run in runs {
            #expect(run.sourceRange == offset..<offset + run.text.utf16.count)
            offset = run.sourceRange.upperBound
        }
        #expect(offset == text.utf16.count)
    }

    @Test("a word longer than a piece stays whole")
    func longWord() throws {
        let text = "short " + String(repeating: "x", count: 100) + " end"
        #expect(
            try runs(stream(Array(text.utf8))).map(\.text) == [
                "short ", String(repeating: "x", count: 100) + " ", "end",
            ])
    }

    @Test("a byte-order mark is skipped and counted, as in a request given whole")
    func byteOrderMark() throws {
        let runs = try runs(stream([0xEF, 0xBB, 0xBF] + Array("hello world".utf8)))
        #expect(runs.map(\.text).joined() == "hello world")
        #expect(runs.first?.sourceRange.lowerBound == 1)
    }

    @Test("strict: the first byte that is not UTF-8 is named by its offset; lenient: it is spoken as U+FFFD")
    func invalidUTF8() throws {
        let bytes = Array("good morning everyone, nice ".utf8) + [0xFF] + Array(" to meet you".utf8)
        #expect(throws: PlainTextError.invalidUTF8(source: "test input", byteOffset: 28, bytes: [0xFF])) {
            try runs(stream(bytes))
        }
        let truncated = Array("good ".utf8) + [0xE2, 0x82] + Array(" morning".utf8)
        #expect(throws: PlainTextError.invalidUTF8(source: "test input", byteOffset: 5, bytes: [0xE2, 0x82])) {
            try runs(stream(truncated))
        }
        #expect(
            PlainTextError.invalidUTF8(source: "standard input", byteOffset: 28, bytes: [0xE2, 0x82]).description
                == "the request in standard input is not valid UTF-8 at byte offset 28 (0xE2 0x82); expected UTF-8 "
                + "text or SSML, UTF-16 with a byte-order mark, or SSML whose XML declaration names its encoding, or "
                + "a lenient request to speak each invalid sequence as U+FFFD")
        #expect(
            try runs(stream(bytes), lenient: true).map(\.text).joined()
                == "good morning everyone, nice \u{FFFD} to meet you")
    }

    @Test("an input that fails to read is an error naming it")
    func unreadable() {
        struct Broken: Error, CustomStringConvertible { var description: String { "Input/output error" } }
        let stream = PlainTextStream(source: "standard input", start: Array("hello ".utf8)) { throw Broken() }
        #expect(throws: PlainTextError.unreadable(source: "standard input", reason: "Input/output error")) {
            try runs(stream)
        }
    }
}
