// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SSML
import SpeechCore

/// Where a request is read from: a file, or an open descriptor such as standard input.
public enum RequestSource {
    case file(String)
    /// An open file descriptor (a pipe, a socket), read to its end and left open; `name` is what errors call it.
    case descriptor(Int32, name: String)

    /// Standard input, named "standard input" in errors.
    public static var standardInput: RequestSource { .descriptor(0, name: "standard input") }

    /// What errors call it: the path, or the descriptor's name.
    public var name: String {
        switch self {
        case .file(let path): return path
        case .descriptor(_, let name): return name
        }
    }
}

/// A request read from its source, and what reading it found.
public struct ReadRequest {
    public var request: SpeechRequest
    /// The warning a request decoded whole gives before it is spoken, when some of its bytes were invalid in its
    /// encoding and `isLenient` spoke them as U+FFFD.
    public var warning: String?
}

extension SpeechRequest {
    /// Reads a request from a file or a descriptor: SSML (when its first character is `<`), or anything read
    /// `whole`, is read to its end and decoded in the encoding it announces (a byte-order mark, an XML declaration),
    /// else UTF-8; plain UTF-8 text is spoken as it is read (`.textStream`), so memory stays small however long it is.
    ///
    /// ```swift
    /// let read = try SpeechRequest.read(from: .file("request.ssml"))
    /// let renderer = try synthesizer.renderer(for: read.request)
    /// ```
    ///
    /// - Parameters:
    ///   - source: a file, or a descriptor such as standard input.
    ///   - whole: read plain text to its end too, for a request that must be read twice (a strict check first) or
    ///     whose text is needed after it is spoken.
    ///   - voice: the voice to start with; `nil` for the synthesizer's.
    ///   - prosody: the request's own rate, pitch and volume.
    ///   - isLenient: speak invalid bytes as U+FFFD (with one warning) and malformed SSML's text, instead of failing.
    /// - Throws: `ConcatSynthError.request`: the file cannot be opened or read, or its bytes are not valid in their
    ///   encoding (unless `isLenient`).
    public static func read(
        from source: RequestSource, whole: Bool = false, voice: String? = nil, prosody: Prosody = .normal,
        isLenient: Bool = false
    ) throws(ConcatSynthError) -> ReadRequest {
        let name = source.name
        var opened: ReadableFile?
        let input: FileDescriptor
        switch source {
        case .file(let path):
            do throws(FileError) { opened = try ReadableFile(path: path) } catch {
                throw .request(.unreadable(path: path))
            }
            input = opened!.descriptor
        case .descriptor(let descriptor, _):
            input = FileDescriptor(rawValue: descriptor)
        }
        // The first byte that is not a space tells SSML from text.
        var start: [UInt8] = []
        var isAtEnd = false
        var kind = InputKind.undecided
        while kind == .undecided && !isAtEnd {
            let chunk = try readChunk(input, source: name)
            isAtEnd = chunk.isEmpty
            start += chunk
            kind = InputKind(start)
        }
        guard !whole, !isAtEnd, kind == .plainText else {
            if !isAtEnd {
                do throws(FileError) { start += try input.readToEnd() } catch {
                    throw .request(.readFailed(source: name, reason: error.reason))
                }
            }
            let decoded: DecodedRequest
            do throws(RequestDecodingError) { decoded = try DecodedRequest(start, isLenient: isLenient) } catch {
                throw .request(.undecodable(source: name, error))
            }
            let warning = decoded.firstReplacedOffset.map {
                replacementWarning(decoded.replacedCount, first: $0, encoding: decoded.encoding, in: name)
            }
            return ReadRequest(
                request: SpeechRequest(.ssml(decoded.text), voice: voice, prosody: prosody, isLenient: isLenient),
                warning: warning)
        }
        let plainText = PlainTextStream(source: name, start: start) { [opened] in
            withExtendedLifetime(opened) {}
            return try readChunk(input, source: name)
        }
        return ReadRequest(
            request: SpeechRequest(
                .textStream(StreamedText(plainText)), voice: voice, prosody: prosody, isLenient: isLenient),
            warning: nil)
    }

    /// After a text streamed as it was spoken: the warning a request decoded whole gives before it, if lenient
    /// reading replaced any bytes.
    public var streamedReplacementWarning: String? {
        guard let text = textStream?.plain, let first = text.firstReplacedOffset else { return nil }
        return Self.replacementWarning(text.replacedCount, first: first, encoding: "UTF-8", in: text.source)
    }

    private static func replacementWarning(_ count: Int, first: Int, encoding: String, in source: String) -> String {
        let sequences = count == 1 ? "sequence that is" : "sequences that are"
        return
            "warning: the request in \(source) holds \(count) byte \(sequences) not valid \(encoding), the first at byte offset \(first); each is spoken as U+FFFD"
    }
}

/// The next bytes of the request, or its error naming the source.
private func readChunk(_ input: FileDescriptor, source: String) throws(ConcatSynthError) -> [UInt8] {
    do throws(FileError) { return try input.read(upTo: 65_536) } catch {
        throw .request(.readFailed(source: source, reason: error.reason))
    }
}

/// What a request's first bytes say it is, as `SSMLReader` reads it: SSML when the first character after a
/// byte-order mark and XML whitespace is `<`; text in another encoding than UTF-8 when they hold a UTF-16
/// byte-order mark or a NUL (UTF-16 without one), which is decoded whole.
private enum InputKind {
    case undecided
    case markup
    case plainText
    case otherEncoding

    init(_ bytes: [UInt8]) {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.contains(0) {
            self = .otherEncoding
            return
        }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let first = bytes.dropFirst(start).first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        switch first {
        case nil: self = .undecided
        case UInt8(ascii: "<"): self = .markup
        default: self = .plainText
        }
    }
}

/// A request that could not be read.
public enum RequestReadingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened.
    case unreadable(path: String)
    /// Its bytes are not valid in the encoding they announce.
    case undecodable(source: String, RequestDecodingError)
    /// Reading failed part way.
    case readFailed(source: String, reason: String)
    /// A text stream's reader failed part way.
    case streamFailed(source: String, reason: String)

    /// Plain text read as it is spoken that turned out unreadable or not UTF-8.
    init(_ error: PlainTextError) {
        switch error {
        case .invalidUTF8(let source, let byteOffset, let bytes):
            self = .undecodable(
                source: source, .invalidBytes(encoding: "UTF-8", origin: .assumed, byteOffset: byteOffset, bytes: bytes)
            )
        case .unreadable(let source, let reason): self = .streamFailed(source: source, reason: reason)
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path):
            return "cannot read the request file \(path); expected a readable text or SSML file"
        case .undecodable(let source, let error): return "the request in \(source) \(error)"
        case .readFailed(let source, let reason): return "\(source): \(reason)"
        case .streamFailed(let source, let reason): return "cannot read the request from \(source): \(reason)"
        }
    }
}
