// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request's bytes read as text, in the encoding they carry.
///
/// XML requires every reader to accept UTF-8 and UTF-16 with its byte-order mark, and lets a document name any
/// other encoding in its declaration (`<?xml version="1.0" encoding="Shift_JIS"?>`); plain text may be UTF-8
/// or UTF-16 with a byte-order mark. Encodings other than UTF-8 are converted by the C library's iconv, which
/// knows every encoding glibc does.
///
/// ```swift
/// let request = try DecodedRequest(bytes, isLenient: false)
/// request.text       // "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><speak>Café</speak>"
/// request.encoding   // "ISO-8859-1"
/// ```
public struct DecodedRequest: Equatable, Sendable {
    /// The request as a string; a byte-order mark stays its first character, as in a UTF-8 request with one.
    public var text: String
    /// The encoding the bytes were read in, as named by their byte-order mark or declaration, else `UTF-8`.
    public var encoding: String
    /// How many invalid sequences lenient mode replaced with U+FFFD.
    public var replacedCount = 0
    /// The byte offset of the first one.
    public var firstReplacedOffset: Int?

    /// Reads `bytes` in the encoding their byte-order mark or XML declaration names, else UTF-8.
    ///
    /// - Parameters:
    ///   - bytes: the request as it was read, a byte-order mark included.
    ///   - isLenient: replace each invalid sequence with U+FFFD instead of failing. A UTF-8 sequence is replaced as
    ///     Unicode recommends (each maximal invalid part once); in another encoding, each code unit iconv cannot
    ///     convert is one replacement.
    /// - Throws: `RequestDecodingError.invalidBytes` naming the first invalid byte's offset and the encoding,
    ///   or `.unknownEncoding` for a declared encoding iconv does not know.
    public init(_ bytes: [UInt8], isLenient: Bool) throws(RequestDecodingError) {
        let (encoding, origin) = Self.encoding(of: bytes)
        self.encoding = encoding
        if encoding == "UTF-8", let text = String(validating: bytes, as: UTF8.self) {
            self.text = text
            return
        }
        let utf8: [UInt8]
        var invalid: [Range<Int>] = []
        if encoding == "UTF-8" {
            utf8 = Self.repairUTF8(bytes, invalid: &invalid)
        } else {
            guard let converter = Converter(from: encoding) else { throw .unknownEncoding(encoding) }
            utf8 = converter.convert(
                bytes, unitSize: Self.unitSize(encoding), invalid: &invalid, stopAtFirst: !isLenient)
        }
        if let first = invalid.first, !isLenient {
            throw .invalidBytes(
                encoding: encoding, origin: origin, byteOffset: first.lowerBound, bytes: Array(bytes[first]))
        }
        text = String(decoding: utf8, as: UTF8.self)
        replacedCount = invalid.count
        firstReplacedOffset = invalid.first?.lowerBound
    }

    /// Where the encoding of a request came from.
    public enum Origin: Equatable, Sendable {
        case byteOrderMark, xmlDeclaration, assumed
    }

    /// The encoding the bytes announce (XML 1.0, appendix F): a byte-order mark, `<?` in UTF-16, or the
    /// declaration's `encoding=`; UTF-8 when none does.
    static func encoding(of bytes: [UInt8]) -> (String, Origin) {
        let prefix = Array(bytes.prefix(4))
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return ("UTF-8", .byteOrderMark) }
        if prefix.starts(with: [0xFF, 0xFE]) { return ("UTF-16LE", .byteOrderMark) }
        if prefix.starts(with: [0xFE, 0xFF]) { return ("UTF-16BE", .byteOrderMark) }
        if prefix == [0x3C, 0x00, 0x3F, 0x00] { return ("UTF-16LE", .xmlDeclaration) }
        if prefix == [0x00, 0x3C, 0x00, 0x3F] { return ("UTF-16BE", .xmlDeclaration) }
        if let declared = declaredEncoding(bytes) {
            let folded = declared.lowercased()
            return (folded == "utf-8" || folded == "utf8" ? "UTF-8" : declared, .xmlDeclaration)
        }
        return ("UTF-8", .assumed)
    }

    /// The `encoding="…"` of an XML declaration at the start of bytes in an ASCII-compatible encoding.
    private static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        let start = Array("<?xml".utf8)
        guard bytes.starts(with: start), bytes.count > start.count, isSpace(bytes[start.count]) else { return nil }
        // The declaration is ASCII and ends at the first "?>"; what lies past it is not read here.
        var end = start.count
        while end + 1 < bytes.count, !(bytes[end] == 0x3F && bytes[end + 1] == 0x3E) { end += 1 }
        let declaration = bytes[start.count..<end]
        let name = Array("encoding".utf8)
        var offset = declaration.startIndex
        while offset + name.count <= declaration.endIndex {
            guard declaration[offset..<offset + name.count].elementsEqual(name), isSpace(bytes[offset - 1]) else {
                offset += 1
                continue
            }
            var index = offset + name.count
            while index < end, isSpace(bytes[index]) { index += 1 }
            guard index < end, bytes[index] == 0x3D else { return nil }
            index += 1
            while index < end, isSpace(bytes[index]) { index += 1 }
            guard index < end, bytes[index] == 0x22 || bytes[index] == 0x27 else { return nil }
            let quote = bytes[index]
            guard let close = bytes[(index + 1)..<end].firstIndex(of: quote) else { return nil }
            return String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Bytes per code unit: an invalid unit of UTF-16 is two bytes, of UTF-32 four.
    private static func unitSize(_ encoding: String) -> Int {
        let folded = encoding.uppercased()
        if folded.hasPrefix("UTF-16") || folded.hasPrefix("UCS-2") { return 2 }
        if folded.hasPrefix("UTF-32") || folded.hasPrefix("UCS-4") { return 4 }
        return 1
    }

    /// UTF-8 with each maximal invalid part replaced by U+FFFD (Swift's decoder, which follows Unicode's advice);
    /// `invalid` gets the bytes of each.
    private static func repairUTF8(_ bytes: [UInt8], invalid: inout [Range<Int>]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                output.append(contentsOf: encoded)
                offset += encoded.count
            case .error(let length):
                invalid.append(offset..<offset + length)
                output.append(contentsOf: [0xEF, 0xBF, 0xBD])
                offset += length
            case .emptyInput:
                return output
            }
        }
    }
}

/// Why a request's bytes could not be read as text.
public enum RequestDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes from `byteOffset` on (one invalid sequence, or code unit) are not valid in `encoding`.
    case invalidBytes(encoding: String, origin: DecodedRequest.Origin, byteOffset: Int, bytes: [UInt8])
    /// The XML declaration names an encoding iconv does not know.
    case unknownEncoding(String)

    /// Completes "the request in FILE …".
    public var description: String {
        switch self {
        case .invalidBytes: return problem + ", or a lenient request to speak each invalid sequence as U+FFFD"
        case .unknownEncoding: return problem
        }
    }

    /// What is wrong and what would be accepted, without the remedy a lenient reading offers, which the caller words
    /// (`description` in the library's terms).
    public var problem: String {
        switch self {
        case .invalidBytes(let encoding, let origin, let byteOffset, let bytes):
            let shown = bytes.map { "0x" + ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }
                .joined(separator: " ")
            let expected: String
            switch origin {
            case .byteOrderMark: expected = "\(encoding), as its byte-order mark says"
            case .xmlDeclaration: expected = "\(encoding), as its XML declaration says"
            case .assumed:
                expected =
                    "UTF-8 text or SSML, UTF-16 with a byte-order mark, or SSML whose XML declaration names its encoding"
            }
            return
                "is not valid \(encoding) at byte offset \(byteOffset) (\(shown)); expected \(expected)"
        case .unknownEncoding(let name):
            return
                "declares the encoding \"\(name)\", which iconv does not know; expected an encoding such as UTF-8, UTF-16, ISO-8859-1, windows-1252 or Shift_JIS (`iconv --list` shows them all)"
        }
    }
}

/// An iconv conversion to UTF-8; owns the `iconv_t` and closes it in `deinit`.
private final class Converter {
    private let handle: iconv_t

    init?(from encoding: String) {
        let handle = iconv_open("UTF-8", encoding)
        guard let handle, handle != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        self.handle = handle
    }

    deinit { iconv_close(handle) }

    /// Converts `bytes`, putting U+FFFD for each code unit of `unitSize` bytes that cannot be converted (or, with
    /// `stopAtFirst`, stopping there) and the unit's bytes in `invalid`.
    func convert(_ bytes: [UInt8], unitSize: Int, invalid: inout [Range<Int>], stopAtFirst: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = bytes
        let count = input.count
        input.withUnsafeMutableBytes { inputBytes in
            chunk.withUnsafeMutableBytes { chunkBytes in
                var inPointer = inputBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                var inLeft = count
                while true {
                    var outPointer = chunkBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                    var outLeft = chunkBytes.count
                    let isFlushing = inLeft == 0
                    // Past the input, a call without input ends a stateful encoding's shift sequence.
                    let status =
                        isFlushing
                        ? iconv(handle, nil, nil, &outPointer, &outLeft)
                        : iconv(handle, &inPointer, &inLeft, &outPointer, &outLeft)
                    let failure = errno
                    output.append(contentsOf: chunkBytes[..<(chunkBytes.count - outLeft)])
                    if status != -1 {
                        if isFlushing { return }
                        continue
                    }
                    if failure == E2BIG { continue }  // The chunk is full; convert on into an empty one.
                    if isFlushing { return }
                    let skipped = min(unitSize, inLeft)
                    invalid.append((count - inLeft)..<(count - inLeft + skipped))
                    if stopAtFirst { return }
                    output.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    inPointer = inPointer.map { $0 + skipped }
                    inLeft -= skipped
                    _ = iconv(handle, nil, nil, nil, nil)
                }
            }
        }
        return output
    }
}
