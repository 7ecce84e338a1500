// SPDX-License-Identifier: GPL-3.0-or-later
/// Where a byte of the request sits: 1-based line and column, and its UTF-16 offset in the request as given.
struct SourcePosition: Equatable, Sendable {
    var line: Int
    var column: Int
    var utf16Offset: Int
}

/// Turns byte offsets into positions by walking the UTF-8 bytes forward from the last position asked for.
///
/// Positions are asked for in increasing order while a request is read, so each byte is walked once;
/// asking for an earlier byte (only done for an error message) walks again from the start. A column counts
/// Unicode scalars; CR LF, CR and LF each end a line; the byte-order mark (bytes before `origin`) counts
/// for UTF-16 offsets but not for columns.
struct Locator {
    let bytes: UnsafeBufferPointer<UInt8>
    private let origin: Int
    private var byteOffset: Int
    private var line = 1
    private var column = 1
    private var utf16Offset: Int
    private var isAfterCarriageReturn = false

    init(bytes: UnsafeBufferPointer<UInt8>, origin: Int) {
        self.bytes = bytes
        self.origin = origin
        self.byteOffset = origin
        // The only bytes before the origin are a UTF-8 byte-order mark: one UTF-16 unit.
        self.utf16Offset = origin > 0 ? 1 : 0
    }

    mutating func position(at target: Int) -> SourcePosition {
        if target < byteOffset {
            byteOffset = origin
            line = 1
            column = 1
            utf16Offset = origin > 0 ? 1 : 0
            isAfterCarriageReturn = false
        }
        // Locals keep the loop free of property writes (this runs over every byte of a 10 MB request).
        var offset = byteOffset
        var line = self.line
        var column = self.column
        var utf16 = utf16Offset
        var isAfterCR = isAfterCarriageReturn
        let end = min(target, bytes.count)
        while offset < end {
            // Eight bytes at a time while they hold no line break: a scalar starts at every byte that is not
            // a continuation byte (10xxxxxx), and a 4-byte lead (11110xxx) is two UTF-16 units.
            if offset + 8 <= end {
                let word = SWAR.load(bytes, at: offset)
                if !SWAR.containsByte(word, 0x0A) && !SWAR.containsByte(word, 0x0D) {
                    let continuations = (word & ~(word << 1) & SWAR.highBits).nonzeroBitCount
                    let fourByteLeads = (word & (word << 1) & (word << 2) & (word << 3) & SWAR.highBits).nonzeroBitCount
                    column += 8 - continuations
                    utf16 += 8 - continuations + fourByteLeads
                    isAfterCR = false
                    offset += 8
                    continue
                }
            }
            let byte = bytes[offset]
            if byte < 0x80 {
                if byte == 0x0A {
                    if !isAfterCR {
                        line += 1
                        column = 1
                    }
                    isAfterCR = false
                } else if byte == 0x0D {
                    line += 1
                    column = 1
                    isAfterCR = true
                } else {
                    column += 1
                    isAfterCR = false
                }
                utf16 += 1
            } else if byte >= 0xC0 {
                // A leading byte starts a scalar; 4-byte scalars are two UTF-16 units (a surrogate pair).
                column += 1
                utf16 += byte >= 0xF0 ? 2 : 1
                isAfterCR = false
            }
            offset += 1
        }
        byteOffset = offset
        self.line = line
        self.column = column
        utf16Offset = utf16
        isAfterCarriageReturn = isAfterCR
        return SourcePosition(line: line, column: column, utf16Offset: utf16)
    }
}

/// Collects one text run from its pieces (character data, decoded references, CDATA content) and records
/// how its text maps back to the request.
///
/// A run of one verbatim piece (the common case) is cut straight out of the request; anything else is
/// assembled in a scratch buffer with a `SourceSegment` per piece.
struct RunBuilder {
    private var pieceCount = 0
    private var isAssembled = false
    private var singlePiece = 0..<0
    private var scratch: [UInt8] = []
    private var segments: [SourceSegment] = []
    private var textUTF16Count = 0
    private var hasNonWhitespace = false

    /// Character data copied as it is; `isWhitespace` says whether it holds only XML whitespace.
    mutating func appendVerbatim(_ range: Range<Int>, isWhitespace: Bool, locator: inout Locator) {
        guard !range.isEmpty else { return }
        if !isWhitespace { hasNonWhitespace = true }
        if pieceCount == 0 {
            singlePiece = range
            pieceCount = 1
            return
        }
        assemble(locator: &locator)
        appendVerbatimSegment(range, locator: &locator)
        pieceCount += 1
    }

    /// A decoded reference (`&amp;`, `&#x1F600;`) read from `range` of the request.
    mutating func appendReplacement(_ scalar: Unicode.Scalar, from range: Range<Int>, locator: inout Locator) {
        if !isXMLWhitespace(scalar.value) { hasNonWhitespace = true }
        assemble(locator: &locator)
        let sourceStart = locator.position(at: range.lowerBound).utf16Offset
        let sourceEnd = locator.position(at: range.upperBound).utf16Offset
        scratch.append(contentsOf: UTF8.encode(scalar)!)
        let length = UTF16.width(scalar)
        segments.append(
            SourceSegment(
                textStart: textUTF16Count, textEnd: textUTF16Count + length, sourceStart: sourceStart,
                sourceEnd: sourceEnd, isVerbatim: false))
        textUTF16Count += length
        pieceCount += 1
    }

    /// The run collected so far, or `nil` when it is empty or whitespace only; the builder starts afresh.
    mutating func finish(locator: inout Locator) -> CharacterData? {
        defer { reset() }
        guard pieceCount > 0, hasNonWhitespace else { return nil }
        if !isAssembled {
            let text = String(decoding: UnsafeBufferPointer(rebasing: locator.bytes[singlePiece]), as: UTF8.self)
            let start = locator.position(at: singlePiece.lowerBound).utf16Offset
            let end = locator.position(at: singlePiece.upperBound).utf16Offset
            return CharacterData(text: text, sourceRange: start..<end, sourceMap: .identity)
        }
        let text = String(decoding: scratch, as: UTF8.self)
        let range = segments[0].sourceStart..<segments[segments.count - 1].sourceEnd
        return CharacterData(text: text, sourceRange: range, sourceMap: .segments(segments))
    }

    private mutating func reset() {
        pieceCount = 0
        isAssembled = false
        singlePiece = 0..<0
        scratch.removeAll(keepingCapacity: true)
        segments = []
        textUTF16Count = 0
        hasNonWhitespace = false
    }

    /// Switches to the scratch buffer, moving a single verbatim piece collected so far into it.
    private mutating func assemble(locator: inout Locator) {
        guard !isAssembled else { return }
        isAssembled = true
        if pieceCount == 1 { appendVerbatimSegment(singlePiece, locator: &locator) }
    }

    private mutating func appendVerbatimSegment(_ range: Range<Int>, locator: inout Locator) {
        let sourceStart = locator.position(at: range.lowerBound).utf16Offset
        let sourceEnd = locator.position(at: range.upperBound).utf16Offset
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: locator.bytes[range]))
        let length = sourceEnd - sourceStart
        // Adjacent verbatim pieces (a literal "<" kept by the lenient reader) make one segment.
        if let last = segments.last, last.isVerbatim, last.sourceEnd == sourceStart {
            segments[segments.count - 1].textEnd += length
            segments[segments.count - 1].sourceEnd = sourceEnd
        } else {
            segments.append(
                SourceSegment(
                    textStart: textUTF16Count, textEnd: textUTF16Count + length, sourceStart: sourceStart,
                    sourceEnd: sourceEnd, isVerbatim: true))
        }
        textUTF16Count += length
    }
}

/// A text run as the scanner hands it over.
struct CharacterData {
    var text: String
    var sourceRange: Range<Int>
    var sourceMap: SourceMap
}

/// XML whitespace: space, tab, line feed, carriage return.
@inline(__always)
func isXMLWhitespace(_ value: UInt32) -> Bool {
    value == 0x20 || value == 0x0A || value == 0x09 || value == 0x0D
}

/// XML whitespace, for a byte.
@inline(__always)
func isXMLWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
}

/// Tests on eight bytes at once ("SIMD within a register"), to keep the byte loops fast even in debug builds.
enum SWAR {
    static let lowBits: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` equals `byte`.
    @inline(__always)
    static func containsByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        let difference = word ^ (lowBits &* UInt64(byte))
        return (difference &- lowBits) & ~difference & highBits != 0
    }

    /// Whether any byte of `word` is below `limit` (at most 128).
    @inline(__always)
    static func containsByte(_ word: UInt64, below limit: UInt8) -> Bool {
        (word &- lowBits &* UInt64(limit)) & ~word & highBits != 0
    }

    /// The eight bytes at `offset`, which must be at least eight bytes from the end.
    @inline(__always)
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self)
    }
}
