import SpeechCore

/// Reads a request (SSML 1.1, SSML 1.0's relative values, or plain text) into a flat list of events.
///
/// ```swift
/// let document = try SSMLReader().read(#"<speak>Hello <break time="1s"/> world</speak>"#)
/// // text "Hello " 7..<13, pause 22050 frames (break), text " world" 31..<37
/// ```
///
/// SSML is read with a strict XML reader of this module's own (no Foundation, no libxml2). Input that does
/// not start with `<` (after an optional byte-order mark and whitespace) is plain text: one run, spoken as
/// if wrapped in `<speak>`, taken literally (`&` is just a character). All offsets are UTF-16 offsets into
/// the request as given; lines and columns are 1-based, columns counting Unicode scalars.
public struct SSMLReader: Sendable {
    /// Frames per second for pauses (`<break>`, sentence and paragraph ends).
    public let sampleRate: Int

    /// - Parameter sampleRate: frames per second for pauses, 22050 for the render-ready format.
    public init(sampleRate: Int = 22050) {
        precondition(sampleRate > 0 && sampleRate <= 10_000_000, "sample rate \(sampleRate) Hz is out of range")
        self.sampleRate = sampleRate
    }

    /// Reads SSML 1.1 or plain text into a flat list of events.
    ///
    /// Strict mode throws: the first XML error of a malformed request (even when an invalid value comes
    /// before it), else the first invalid value. Lenient mode (what a screen reader, which cannot afford
    /// silence, gets) turns invalid attribute values into warnings and ignores them; a malformed request
    /// becomes its text with the markup dropped, as one run with the default context, and exactly one
    /// warning naming the line and column of the first XML error. `<!DOCTYPE` and entities other than the
    /// five built-ins are refused in both modes.
    ///
    /// - Throws: `SSMLError.malformed` (including an empty request), `.invalidValue` and `.unexpectedRoot`
    ///   in strict mode only; `.doctypeRefused` and `.entityRefused` in both modes.
    /// - Parameter prosody: the request's own rate, pitch and volume, as if it were wrapped in `<prosody>`.
    public func read(_ request: String, lenient: Bool = false, prosody: Prosody = .normal) throws(SSMLError)
        -> SSMLDocument
    {
        var request = request
        let context = SpeechContext(prosody)
        let result = request.withUTF8 { bytes in read(bytes, isLenient: lenient, context: context) }
        return try result.get()
    }

    private func read(
        _ bytes: UnsafeBufferPointer<UInt8>, isLenient: Bool, context: SpeechContext
    ) -> Result<SSMLDocument, SSMLError> {
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
            return .success(SSMLDocument(warnings: [warning(for: error, consequence: "nothing is spoken")]))
        }

        if bytes[first] != Byte.lessThan {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
            let offset = hasByteOrderMark ? 1 : 0
            let run = TextRun(text: text, sourceRange: offset..<(offset + text.utf16.count), context: context)
            return .success(SSMLDocument(events: [.text(run)]))
        }

        var scanner = XMLScanner(bytes: bytes, start: start)
        var builder = EventBuilder(sampleRate: sampleRate, isLenient: isLenient, context: context)
        do throws(SSMLError) {
            while let token = try scanner.next() { builder.handle(token) }
        } catch {
            return readMalformed(bytes, start: start, error: error, isLenient: isLenient, context: context)
        }
        if let error = builder.firstError { return .failure(error) }
        return .success(SSMLDocument(events: builder.finish(), warnings: builder.warnings))
    }

    /// Strict: the error. Lenient: the text with the markup dropped, unless something refused is in it.
    private func readMalformed(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, error: SSMLError, isLenient: Bool, context: SpeechContext
    ) -> Result<SSMLDocument, SSMLError> {
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
        let events =
            text.map { data in
                [
                    SSMLEvent.text(
                        TextRun(
                            text: data.text, sourceRange: data.sourceRange, context: context,
                            sourceMap: data.sourceMap))
                ]
            } ?? []
        let warning = warning(for: error, consequence: "the text is spoken with the markup dropped")
        return .success(SSMLDocument(events: events, warnings: [warning]))
    }

    private func warning(for error: SSMLError, consequence: String) -> SSMLWarning {
        SSMLWarning(line: error.line, column: error.column, message: "\(error); \(consequence)")
    }
}
