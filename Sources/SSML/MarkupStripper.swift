// SPDX-License-Identifier: GPL-3.0-or-later
/// The lenient reading of a malformed request: its text with the markup dropped, as one run.
///
/// Tags (`<` then a name, `/` or `!`, up to the next `>`), comments and processing instructions are
/// dropped; CDATA content is kept; the five built-in entities and character references are decoded; a `<`
/// or `&` that starts nothing is kept as text. `<!DOCTYPE` and other entity references (in text or inside
/// a tag) are refused here too, so lenient mode never reads what strict mode refuses; unless `isRefusing` is off,
/// the last resort of a caller that must speak something: then a `<!DOCTYPE` is dropped like any other tag and an
/// entity reference is kept as its characters, never expanded.
enum MarkupStripper {
    /// The text of the request from `start` on, or `nil` when it is empty or whitespace only.
    ///
    /// - Throws: `SSMLError.doctypeRefused`, `.entityRefused`, only when `isRefusing`.
    static func text(of bytes: UnsafeBufferPointer<UInt8>, start: Int, isRefusing: Bool = true) throws(SSMLError)
        -> CharacterData?
    {
        var locator = Locator(bytes: bytes, origin: start)
        var run = RunBuilder()
        var offset = start
        var hasNonWhitespace = false
        let count = bytes.count
        while offset < count {
            let byte = bytes[offset]
            if byte == Byte.lessThan {
                if bytesHavePrefix(bytes, "<!--", at: offset) {
                    offset = end(of: "-->", in: bytes, from: offset + 4)
                } else if bytesHavePrefix(bytes, "<![CDATA[", at: offset) {
                    let contentStart = offset + 9
                    var contentEnd = contentStart
                    var isWhitespace = true
                    while contentEnd < count && !bytesHavePrefix(bytes, "]]>", at: contentEnd) {
                        if !isXMLWhitespace(bytes[contentEnd]) { isWhitespace = false }
                        contentEnd += 1
                    }
                    if !isWhitespace { hasNonWhitespace = true }
                    run.appendVerbatim(contentStart..<contentEnd, isWhitespace: isWhitespace, locator: &locator)
                    offset = min(contentEnd + 3, count)
                } else if isRefusing && bytesHavePrefix(bytes, "<!DOCTYPE", at: offset, ignoringCase: true) {
                    let position = locator.position(at: offset)
                    throw SSMLError.doctypeRefused(line: position.line, column: position.column)
                } else if bytesHavePrefix(bytes, "<?", at: offset) {
                    offset = end(of: "?>", in: bytes, from: offset + 2)
                } else if offset + 1 < count
                    && (bytes[offset + 1] == Byte.slash || bytes[offset + 1] == Byte.exclamation
                        || nameEnd(bytes, at: offset + 1) != nil)
                {
                    // A tag ends at its `>`, or just before a `<` that starts the next one.
                    var tagEnd = offset + 1
                    while tagEnd < count && bytes[tagEnd] != Byte.greaterThan && bytes[tagEnd] != Byte.lessThan {
                        if isRefusing, bytes[tagEnd] == Byte.ampersand,
                            case .refused(let name) = readReference(bytes, at: tagEnd)
                        {
                            let position = locator.position(at: tagEnd)
                            throw SSMLError.entityRefused(name: name, line: position.line, column: position.column)
                        }
                        tagEnd += 1
                    }
                    offset = tagEnd < count && bytes[tagEnd] == Byte.greaterThan ? tagEnd + 1 : tagEnd
                } else {
                    run.appendVerbatim(offset..<offset + 1, isWhitespace: false, locator: &locator)
                    offset += 1
                }
            } else if byte == Byte.ampersand {
                switch readReference(bytes, at: offset) {
                case .character(let scalar, let end):
                    run.appendReplacement(scalar, from: offset..<end, locator: &locator)
                    offset = end
                case .refused(let name):
                    guard !isRefusing else {
                        let position = locator.position(at: offset)
                        throw SSMLError.entityRefused(name: name, line: position.line, column: position.column)
                    }
                    run.appendVerbatim(offset..<offset + 1, isWhitespace: false, locator: &locator)
                    offset += 1
                case .malformed:
                    run.appendVerbatim(offset..<offset + 1, isWhitespace: false, locator: &locator)
                    offset += 1
                }
            } else {
                let textStart = offset
                while offset < count {
                    if offset + 8 <= count {
                        let word = SWAR.load(bytes, at: offset)
                        if !SWAR.containsByte(word, Byte.lessThan) && !SWAR.containsByte(word, Byte.ampersand) {
                            offset += 8
                            continue
                        }
                    }
                    if bytes[offset] == Byte.lessThan || bytes[offset] == Byte.ampersand { break }
                    offset += 1
                }
                // Whether the run is only whitespace is settled by its first other character: stop looking then.
                let isWhitespace =
                    hasNonWhitespace ? false : !(textStart..<offset).contains { !isXMLWhitespace(bytes[$0]) }
                if !isWhitespace { hasNonWhitespace = true }
                run.appendVerbatim(textStart..<offset, isWhitespace: isWhitespace, locator: &locator)
            }
        }
        return run.finish(locator: &locator)
    }

    /// The offset just past the first `terminator` at or after `offset`, or the end of the request.
    private static func end(of terminator: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> Int
    {
        var position = offset
        while position < bytes.count {
            if bytesHavePrefix(bytes, terminator, at: position) { return position + terminator.utf8CodeUnitCount }
            position += 1
        }
        return bytes.count
    }
}
