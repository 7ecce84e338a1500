// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Plain text read a piece at a time, a long file or a pipe, so that it is spoken as it is read and memory does not
/// grow with it.
///
/// Each piece becomes a text run that `isContinued` into the next, cut after an ASCII space and before an ASCII
/// character, where no token, apostrophe rule or Unicode normalisation reaches across; the planner matches
/// phrases across the cuts. Offsets are UTF-16 offsets into the whole text, as for a request given whole; a
/// leading byte-order mark is skipped and counted, as `SSMLReader` counts it.
///
/// `nextEvent(context:isLenient:)` gives the text's events, its runs cut into inferred sentences as the whole text
/// would be; `nextRun(context:isLenient:)` gives the runs themselves. A stream is read one way or the other.
///
/// ```swift
/// let text = PlainTextStream(source: "standard input", start: firstBytes) { try input.read() }
/// while let event = try text.nextEvent(context: SpeechContext(), isLenient: true) { … }
/// ```
public final class PlainTextStream {
    /// The input as errors name it: a path, or "standard input".
    public let source: String
    private let read: () throws -> [UInt8]
    /// Bytes read and not yet made into runs.
    private var buffer: [UInt8]
    private var isAtEnd = false
    /// Bytes and UTF-16 units of the text made into runs so far.
    private var byteOffset = 0
    private var utf16Offset = 0
    /// How much is read before a piece is cut.
    let pieceBytes: Int
    /// How many invalid UTF-8 sequences lenient reading has spoken as U+FFFD so far.
    public private(set) var replacedCount = 0
    /// The byte offset of the first of them.
    public private(set) var firstReplacedOffset: Int?
    /// The runs read so far cut into sentences, at the render rate (the planner's), for `nextEvent`.
    private var sentences = UnmarkedText(sampleRate: RenderFormat.sampleRate)
    private var events: [SSMLEvent] = []
    private var eventIndex = 0
    private var isTextRead = false

    /// - Parameters:
    ///   - start: bytes already read (to tell text from SSML), which come first.
    ///   - read: the next bytes of the input; empty at its end. What it throws becomes
    ///     `PlainTextError.unreadable` with the error's description.
    public convenience init(source: String, start: [UInt8] = [], read: @escaping () throws -> [UInt8]) {
        self.init(source: source, start: start, pieceBytes: 65_536, read: read)
    }

    /// - Parameter pieceBytes: how much is read before a piece is cut; tests and the fuzzer make it small.
    package init(source: String, start: [UInt8], pieceBytes: Int, read: @escaping () throws -> [UInt8]) {
        precondition(pieceBytes > 0, "a piece holds at least one byte")
        self.source = source
        self.read = read
        self.pieceBytes = pieceBytes
        buffer = start
    }

    /// The next event of the text spoken in `context`: its runs cut into inferred sentences, with a sentence pause
    /// between them; `nil` at the end. Runs that end inside a sentence go on (`isContinued`) into the next.
    ///
    /// - Throws: what `nextRun(context:isLenient:)` throws.
    public func nextEvent(context: SpeechContext, isLenient: Bool) throws(PlainTextError) -> SSMLEvent? {
        while eventIndex == events.count {
            events.removeAll(keepingCapacity: true)
            eventIndex = 0
            if sentences.readMore(into: &events) { continue }
            if isTextRead { return nil }
            if let run = try nextRun(context: context, isLenient: isLenient) {
                sentences.add(run, into: &events)
            } else {
                sentences.finish(into: &events)
                isTextRead = true
            }
        }
        defer { eventIndex += 1 }
        return events[eventIndex]
    }

    /// The next piece of the text as a run spoken in `context`; `nil` at the end.
    ///
    /// - Throws: `PlainTextError.invalidUTF8` naming the first byte that is not UTF-8 (lenient mode speaks each
    ///   such sequence as U+FFFD instead), `.unreadable` when reading fails. Runs before the error were returned
    ///   already: a caller that must not speak a bad text at all reads it whole first.
    public func nextRun(context: SpeechContext, isLenient: Bool) throws(PlainTextError) -> TextRun? {
        try fill()
        if byteOffset == 0 && buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            buffer.removeFirst(3)
            byteOffset = 3
            utf16Offset = 1
        }
        guard !buffer.isEmpty else { return nil }
        let end = isAtEnd && buffer.count <= pieceBytes ? buffer.count : cut()
        let bytes = buffer[..<end]
        let text: String
        if let valid = String(validating: bytes, as: UTF8.self) {
            text = valid
        } else if isLenient {
            text = String(decoding: bytes, as: UTF8.self)
            if firstReplacedOffset == nil { firstReplacedOffset = byteOffset + Self.firstInvalidByte(in: bytes) }
            replacedCount += Self.invalidSequenceCount(in: bytes)
        } else {
            let invalid = Self.firstInvalidByte(in: bytes)
            let sequence = bytes.dropFirst(invalid).prefix(4)
            let length = 1 + sequence.dropFirst().prefix { $0 & 0xC0 == 0x80 }.count
            throw .invalidUTF8(source: source, byteOffset: byteOffset + invalid, bytes: Array(sequence.prefix(length)))
        }
        let length = text.utf16.count
        buffer.removeFirst(end)
        byteOffset += end
        let run = TextRun(
            text: text, sourceRange: utf16Offset..<utf16Offset + length, context: context,
            isContinued: !(isAtEnd && buffer.isEmpty))
        utf16Offset += length
        return run
    }

    /// Reads until a piece can be cut or the input ends.
    private func fill() throws(PlainTextError) {
        while !isAtEnd && (buffer.count < pieceBytes || cut() == 0) {
            let bytes: [UInt8]
            do { bytes = try read() } catch { throw .unreadable(source: source, reason: "\(error)") }
            if bytes.isEmpty { isAtEnd = true } else { buffer += bytes }
        }
    }

    /// Where the piece ends: after the last ASCII space before an ASCII character in the first `pieceBytes`
    /// bytes, else the first such place after them; the whole buffer at the end of the input; 0 when there is
    /// none yet.
    private func cut() -> Int {
        func isCut(_ index: Int) -> Bool { Self.isCut(between: buffer[index - 1], and: buffer[index]) }
        let limit = min(pieceBytes, buffer.count - 1)
        if limit >= 1, let index = (1...limit).reversed().first(where: isCut) { return index }
        if limit + 1 < buffer.count, let index = (limit + 1..<buffer.count).first(where: isCut) { return index }
        return isAtEnd ? buffer.count : 0
    }

    /// How many U+FFFD decoding `bytes` makes: one for each maximal invalid part, as Unicode recommends.
    private static func invalidSequenceCount(in bytes: ArraySlice<UInt8>) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var count = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return count
            case .error: count += 1
            }
        }
    }

    /// Whether text may be cut between these two UTF-8 bytes and tokenized piece by piece as if whole: after an
    /// ASCII space and before an ASCII character, where no token, apostrophe rule or Unicode normalisation reaches
    /// across. The planner's windows cut a run the same way.
    public static func isCut(between before: UInt8, and after: UInt8) -> Bool {
        after < 0x80 && (before == 0x20 || before == 0x09 || before == 0x0A || before == 0x0D)
    }

    /// The offset of the first byte of `bytes` that does not begin or continue a valid UTF-8 sequence (the
    /// count of bytes when all are valid).
    private static func firstInvalidByte(in bytes: ArraySlice<UInt8>) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { offset += UTF8.width(scalar) }
        return offset
    }
}

/// Plain text that could not be read.
public enum PlainTextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `bytes` at `byteOffset` (from the start of the input, 0-based) are not UTF-8: a byte that cannot start a
    /// sequence, or a lead byte and the continuation bytes after it.
    case invalidUTF8(source: String, byteOffset: Int, bytes: [UInt8])
    case unreadable(source: String, reason: String)

    /// One line, worded as the command line words a request decoded whole.
    public var description: String {
        switch self {
        case .invalidUTF8(let source, let byteOffset, let bytes):
            let shown = bytes.map { "0x" + ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }
                .joined(separator: " ")
            return
                "the request in \(source) is not valid UTF-8 at byte offset \(byteOffset) (\(shown)); expected UTF-8 text "
                + "or SSML, UTF-16 with a byte-order mark, or SSML whose XML declaration names its encoding, or "
                + "a lenient request to speak each invalid sequence as U+FFFD"
        case .unreadable(let source, let reason):
            return "cannot read the request from \(source): \(reason)"
        }
    }
}
