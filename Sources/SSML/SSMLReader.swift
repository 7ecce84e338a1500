// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Reads a request (SSML 1.1, SSML 1.0's relative values, or plain text) into a flat list of events.
///
/// ```swift
/// let document = try SSMLReader().read(#"<speak>Hello <break time="1s"/> world</speak>"#)
/// // sentence start, text "Hello " 7..<13, pause 22050 frames (break), text " world" 31..<37, sentence end 7..<37
/// ```
///
/// SSML is read with a strict XML reader of this module's own (no Foundation, no libxml2). Input that does
/// not start with `<` (after an optional byte-order mark and whitespace) is plain text, spoken as if wrapped in
/// `<speak>`, taken literally (`&` is just a character). Text that no `<s>` holds, plain text included, is cut into
/// inferred sentences, each with the events and pause of an explicit `<s>`. All offsets are UTF-16 offsets into
/// the request as given; lines and columns are 1-based, columns counting Unicode scalars.
public struct SSMLReader: Sendable {
    /// Frames per second for pauses (`<break>`, sentence and paragraph ends).
    public let sampleRate: Int

    /// - Parameter sampleRate: frames per second for pauses, 22050 for the render-ready format.
    public init(sampleRate: Int = 22050) {
        precondition(sampleRate > 0 && sampleRate <= 10_000_000, "sample rate \(sampleRate) Hz is out of range")
        self.sampleRate = sampleRate
    }

    /// Reads SSML 1.1 or plain text into a flat list of events: `events(_:lenient:prosody:)`, collected.
    ///
    /// - Throws: what `events(_:lenient:prosody:)` throws.
    public func read(_ request: String, lenient: Bool = false, prosody: Prosody = .normal) throws(SSMLError)
        -> SSMLDocument
    {
        let stream = try events(request, lenient: lenient, prosody: prosody)
        var document = SSMLDocument()
        while let event = try stream.next() { document.events.append(event) }
        while let warning = stream.nextWarning() { document.warnings.append(warning) }
        return document
    }

    /// The request's events, read as they are pulled, after one pass over the whole request that checks it (and
    /// keeps them, for a short request).
    ///
    /// Strict mode throws: the first XML error of a malformed request (even when an invalid value comes
    /// before it), else the first invalid value. Lenient mode (what a screen reader, which cannot afford
    /// silence, gets) turns invalid attribute values into warnings and ignores them; a malformed request
    /// becomes its text with the markup dropped, as one run with the default context, and exactly one
    /// warning naming the line and column of the first XML error. `<!DOCTYPE` and entities other than the
    /// five built-ins are refused in both modes. So nothing is spoken from a request that is not read whole.
    ///
    /// The stream holds the request's bytes and, beyond them, only the events that a later tag may still
    /// change: those after a sentence's end until the next content says whether a pause comes between.
    ///
    /// - Throws: `SSMLError.malformed` (including an empty request), `.invalidValue` and `.unexpectedRoot`
    ///   in strict mode only; `.doctypeRefused` and `.entityRefused` in both modes.
    /// - Parameter prosody: the request's own rate, pitch and volume, as if it were wrapped in `<prosody>`.
    /// - Parameter spelling: every text run spelled one character at a time, as if each were wrapped in
    ///   `<say-as interpret-as="characters">` (speech-dispatcher's spelling mode); markup, marks and breaks stay.
    public func events(
        _ request: String, lenient: Bool = false, prosody: Prosody = .normal, spelling: Bool = false
    ) throws(SSMLError) -> SSMLEventStream {
        var request = request
        let context = SpeechContext(prosody, isSpelling: spelling)
        let result = request.withUTF8 { bytes in
            events(bytes, isLenient: lenient, context: context, isSpelling: spelling)
        }
        switch try result.get() {
        case .stream(let stream):
            return stream
        case .plainText(let start):
            let text = start == 0 ? request : String(decoding: request.utf8.dropFirst(start), as: UTF8.self)
            let offset = start == 0 ? 0 : 1
            let run = TextRun(text: text, sourceRange: offset..<(offset + text.utf16.count), context: context)
            return SSMLEventStream(text: run, sampleRate: sampleRate)
        }
    }

    /// What a first look at a request found: its markup checked and ready to stream, or plain text from a byte.
    private enum Reading {
        case stream(SSMLEventStream)
        case plainText(start: Int)
    }

    /// Plain text taken as it is, even when it starts with `<` or holds `&`, cut into inferred sentences; nothing for
    /// a text of only whitespace (which speaks nothing, as `<speak></speak>` does). Source ranges are offsets into
    /// `text` itself.
    ///
    /// - Parameter spelling: the text spelled one character at a time (`say-as characters`), as one sentence.
    public func events(plainText text: String, prosody: Prosody = .normal, spelling: Bool = false) -> SSMLEventStream {
        let context = SpeechContext(prosody, isSpelling: spelling)
        return SSMLEventStream(
            text: TextRun(text: text, sourceRange: 0..<text.utf16.count, context: context), sampleRate: sampleRate)
    }

    /// The text of a request that even lenient reading refuses (a `<!DOCTYPE`, an entity of its own): the markup
    /// dropped as lenient reading drops it, a `<!DOCTYPE` with the other tags, and entity references kept as their
    /// characters, never expanded. The last resort of a caller that cannot afford silence.
    public static func textOfRefusedMarkup(_ request: String) -> String {
        var request = request
        let text = request.withUTF8 { bytes in try? MarkupStripper.text(of: bytes, start: 0, isRefusing: false) }
        return (text ?? nil)?.text ?? ""
    }

    private func events(
        _ bytes: UnsafeBufferPointer<UInt8>, isLenient: Bool, context: SpeechContext, isSpelling: Bool
    ) -> Result<Reading, SSMLError> {
        let hasByteOrderMark = bytesHavePrefix(bytes, "\u{FEFF}", at: 0)
        let start = hasByteOrderMark ? 3 : 0
        var first = start
        while first < bytes.count && isXMLWhitespace(bytes[first]) { first += 1 }

        if first == bytes.count {
            var locator = Locator(bytes: bytes, origin: start)
            let end = locator.position(at: bytes.count)
            let error = SSMLError.malformed(
                expected: "SSML such as <speak>Hello</speak> or plain text", found: "an empty request", line: end.line,
                column: end.column)
            guard isLenient else { return .failure(error) }
            return .success(
                .stream(SSMLEventStream(warnings: [warning(for: error, consequence: "nothing is spoken")])))
        }

        if bytes[first] != Byte.lessThan { return .success(.plainText(start: start)) }

        switch check(bytes, start: start, isLenient: isLenient, context: context, isSpelling: isSpelling) {
        case .failure(let error):
            return readMalformed(bytes, start: start, error: error, isLenient: isLenient, context: context)
                .map { .stream($0) }
        case .success(let read?):
            return .success(.stream(read))
        case .success(nil):
            break
        }
        return .success(
            .stream(
                SSMLEventStream(
                    markup: bytes, start: start,
                    builder: EventBuilder(
                        sampleRate: sampleRate, isLenient: isLenient, context: context, isSpelling: isSpelling))))
    }

    /// Requests of up to this many bytes keep the events of the first pass instead of reading the markup again as
    /// they are pulled: a screen reader's message, a few hundred bytes, is read once. A longer request (a book in
    /// one `<speak>`) is read twice and holds only a window of its events.
    static let keptEventsByteLimit = 16_384

    /// The first pass: fails with the error that stops the request from being spoken as SSML, if any; else the
    /// request's events read already when it is short (`keptEventsByteLimit`), `nil` when it is to be read again.
    private func check(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, isLenient: Bool, context: SpeechContext, isSpelling: Bool
    ) -> Result<SSMLEventStream?, SSMLError> {
        var scanner = XMLScanner(bytes: bytes, start: start)
        var builder = EventBuilder(
            sampleRate: sampleRate, isLenient: isLenient, context: context, isSpelling: isSpelling)
        let isKept = bytes.count <= Self.keptEventsByteLimit
        var events: [SSMLEvent] = []
        var warnings: [SSMLWarning] = []
        do throws(SSMLError) {
            while let token = try scanner.next() {
                builder.handle(token)
                repeat {
                    builder.takeReady(into: &events)
                    if isKept {
                        builder.takeWarnings(into: &warnings)
                    } else {
                        events.removeAll(keepingCapacity: true)
                        builder.dropWarnings()
                    }
                } while builder.readMoreText()
            }
        } catch {
            return .failure(error)
        }
        if let error = builder.firstError { return .failure(error) }
        guard isKept else { return .success(nil) }
        builder.finish(into: &events)
        builder.takeWarnings(into: &warnings)
        return .success(SSMLEventStream(events: events, warnings: warnings))
    }

    /// Strict: the error. Lenient: the text with the markup dropped, unless something refused is in it.
    private func readMalformed(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, error: SSMLError, isLenient: Bool, context: SpeechContext
    ) -> Result<SSMLEventStream, SSMLError> {
        switch error {
        case .doctypeRefused, .entityRefused:
            return .failure(error)
        case .malformed, .invalidValue, .unexpectedRoot:
            guard isLenient else { return .failure(error) }
        }
        let text: CharacterData?
        do throws(SSMLError) {
            text = try MarkupStripper.text(of: bytes, start: start)
        } catch {
            return .failure(error)
        }
        let warning = warning(for: error, consequence: "the text is spoken with the markup dropped")
        guard let text else { return .success(SSMLEventStream(warnings: [warning])) }
        let run = TextRun(text: text.text, sourceRange: text.sourceRange, context: context, sourceMap: text.sourceMap)
        return .success(SSMLEventStream(text: run, sampleRate: sampleRate, warnings: [warning]))
    }

    private func warning(for error: SSMLError, consequence: String) -> SSMLWarning {
        SSMLWarning(line: error.line, column: error.column, message: "\(error); \(consequence)")
    }
}

/// A request's events, read as they are pulled (`SSMLReader.events(_:lenient:prosody:)`).
public final class SSMLEventStream {
    /// The request's bytes, for the scanner; empty when the events were read already.
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private var scanner: XMLScanner?
    private var builder: EventBuilder?
    /// Text without markup, cut into sentences as it is pulled; `nil` once it is all read.
    private var text: UnmarkedText?
    private var ready: [SSMLEvent]
    private var readyIndex = 0
    private var warnings: [SSMLWarning]
    private var warningIndex = 0

    /// Events read already.
    init(events: [SSMLEvent] = [], warnings: [SSMLWarning] = []) {
        bytes = UnsafeMutableBufferPointer(start: nil, count: 0)
        ready = events
        self.warnings = warnings
    }

    /// Text without markup (one run), read a window at a time as its events are pulled.
    init(text run: TextRun, sampleRate: Int, warnings: [SSMLWarning] = []) {
        bytes = UnsafeMutableBufferPointer(start: nil, count: 0)
        text = UnmarkedText(sampleRate: sampleRate)
        ready = []
        self.warnings = warnings
        text!.add(run, into: &ready)
    }

    /// Markup checked already, read again token by token as events are pulled, from a copy of its bytes.
    init(markup: UnsafeBufferPointer<UInt8>, start: Int, builder: EventBuilder) {
        bytes = UnsafeMutableBufferPointer.allocate(capacity: markup.count)
        _ = bytes.initialize(from: markup)
        scanner = XMLScanner(bytes: UnsafeBufferPointer(bytes), start: start)
        self.builder = builder
        ready = []
        warnings = []
    }

    deinit { bytes.deallocate() }

    /// The next event; `nil` at the end of the request.
    ///
    /// - Throws: an `SSMLError` only if the request's bytes read differently from the first pass, which they
    ///   cannot.
    public func next() throws(SSMLError) -> SSMLEvent? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if text != nil {
                if !text!.readMore(into: &ready) {
                    text!.finish(into: &ready)
                    text = nil
                }
                continue
            }
            guard scanner != nil, builder != nil else { return nil }
            if builder!.readMoreText() {
                builder!.takeReady(into: &ready)
            } else if let token = try scanner!.next() {
                builder!.handle(token)
                builder!.takeReady(into: &ready)
                builder!.takeWarnings(into: &warnings)
            } else {
                builder!.finish(into: &ready)
                builder!.takeWarnings(into: &warnings)
                scanner = nil
                builder = nil
            }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    /// How many events the stream holds: read and not yet pulled, or waiting for a later tag.
    var heldEventCount: Int { ready.count - readyIndex + (builder?.heldEventCount ?? 0) }

    /// The next warning met while reading the events pulled so far.
    public func nextWarning() -> SSMLWarning? {
        guard warningIndex < warnings.count else {
            warnings.removeAll(keepingCapacity: true)
            warningIndex = 0
            return nil
        }
        defer { warningIndex += 1 }
        return warnings[warningIndex]
    }
}
