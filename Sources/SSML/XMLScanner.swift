// SPDX-License-Identifier: GPL-3.0-or-later
/// A piece of an XML document, as the scanner hands it to the event builder.
enum XMLToken {
    case startTag(StartTag)
    case endTag(EndTag)
    /// Character data between two tags; never empty or whitespace only.
    case text(CharacterData)
}

/// `<name attribute="value" …>` or `<name … />`.
struct StartTag {
    var name: String
    var attributes: [XMLAttribute]
    /// `<name/>`: no end tag follows.
    var isEmpty: Bool
    /// Where the `<` is.
    var position: SourcePosition
    /// UTF-16 offset just past the `>`.
    var endOffset: Int

    /// The value of the attribute with this qualified name, entities decoded.
    func value(of name: String) -> String? {
        var index = 0
        while index < attributes.count {
            if attributes[index].name == name { return attributes[index].value }
            index += 1
        }
        return nil
    }
}

struct XMLAttribute {
    var name: String
    var value: String
}

/// `</name>` (its name matched the open element's, so only its end matters).
struct EndTag {
    /// UTF-16 offset just past the `>`.
    var endOffset: Int
}

/// A strict, non-validating XML reader over the UTF-8 bytes of a request.
///
/// It enforces well-formedness (one root element; matched, nested tags; quoted, unique attributes without
/// `<`; valid names; `&` only as one of the five built-in entities or a character reference to a valid XML
/// character; comments without `--`; CDATA sections; processing instructions; an XML declaration only at
/// the very start; nothing but whitespace, comments and processing instructions outside the root; the
/// characters XML allows) and refuses `<!DOCTYPE` and every other entity reference. Namespaces are not
/// checked: a prefix is just part of a name. Comments, processing instructions and CDATA section markup do
/// not end a text run. Tokens come one at a time, so a request is read in one pass.
struct XMLScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The same bytes, with the helpers that only read them (a small value, cheap to pass around).
    private let input: RequestBytes
    /// The first byte after a byte-order mark: where an XML declaration may sit.
    private let documentStart: Int
    private var index: Int
    private var locator: Locator
    /// Where the names of the open elements are (compared byte for byte, as XML wants, not as `String`s,
    /// which treat canonically equivalent names as equal).
    private var openElements: [Range<Int>] = []
    private var hasRoot = false
    private var run = RunBuilder()
    private var valueBuffer: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int) {
        self.bytes = bytes
        self.input = RequestBytes(bytes: bytes)
        self.documentStart = start
        self.index = start
        self.locator = Locator(bytes: bytes, origin: start)
    }

    /// The next token, or `nil` after the root element's end tag and whatever may follow it.
    ///
    /// - Throws: `SSMLError.malformed`, `.doctypeRefused`, `.entityRefused`, pointing at the first problem.
    mutating func next() throws(SSMLError) -> XMLToken? {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == Byte.lessThan {
                guard index + 1 < bytes.count else {
                    throw malformed(at: index + 1, expected: "a tag name after <", found: "the end of the request")
                }
                switch bytes[index + 1] {
                case Byte.slash:
                    if let text = run.finish(locator: &locator) { return .text(text) }
                    return .endTag(try readEndTag())
                case Byte.exclamation:
                    try readMarkupDeclaration()
                case Byte.question:
                    try readProcessingInstruction()
                default:
                    if let text = run.finish(locator: &locator) { return .text(text) }
                    return .startTag(try readStartTag())
                }
            } else if openElements.isEmpty {
                try skipWhitespaceOutsideRoot()
            } else if byte == Byte.ampersand {
                try readReferenceInContent()
            } else {
                try readCharacterData()
            }
        }
        if let open = openElements.last {
            throw malformed(at: bytes.count, expected: "</\(input.string(open))>", found: "the end of the request")
        }
        if !hasRoot {
            throw malformed(
                at: bytes.count, expected: "a root element such as <speak>", found: "the end of the request")
        }
        return nil
    }

    // MARK: Content

    private mutating func readCharacterData() throws(SSMLError) {
        let start = index
        let count = bytes.count
        var offset = start
        var isWhitespace = true
        while offset < count {
            // Eight bytes at a time while none needs a look: no <, &, ], controls, tab, CR, LF or 0xEF lead.
            if offset + 8 <= count {
                let word = SWAR.load(bytes, at: offset)
                if !SWAR.containsByte(word, below: 0x20) && !SWAR.containsByte(word, Byte.lessThan)
                    && !SWAR.containsByte(word, Byte.ampersand) && !SWAR.containsByte(word, Byte.closingBracket)
                    && !SWAR.containsByte(word, 0xEF)
                {
                    if word != SWAR.lowBits &* 0x20 { isWhitespace = false }
                    offset += 8
                    continue
                }
            }
            let byte = bytes[offset]
            if byte == Byte.lessThan || byte == Byte.ampersand { break }
            if byte <= 0x20 {
                if !isXMLWhitespace(byte) { throw invalidCharacter(at: offset) }
            } else {
                isWhitespace = false
                if byte == Byte.closingBracket {
                    if offset + 2 < count && bytes[offset + 1] == Byte.closingBracket
                        && bytes[offset + 2] == Byte.greaterThan
                    {
                        throw malformed(at: offset, expected: "]]&gt; for a literal ]]> in text", found: "\"]]>\"")
                    }
                } else if byte == 0xEF && input.isNonCharacter(at: offset) {
                    throw invalidCharacter(at: offset)
                }
            }
            offset += 1
        }
        run.appendVerbatim(start..<offset, isWhitespace: isWhitespace, locator: &locator)
        index = offset
    }

    private mutating func readReferenceInContent() throws(SSMLError) {
        switch readReference(bytes, at: index) {
        case .character(let scalar, let end):
            run.appendReplacement(scalar, from: index..<end, locator: &locator)
            index = end
        case .refused(let name):
            throw refusedEntity(name, at: index)
        case .malformed(let expected, let end):
            throw malformed(at: index, expected: expected, found: input.quoted(index..<end))
        }
    }

    private mutating func skipWhitespaceOutsideRoot() throws(SSMLError) {
        var offset = index
        while offset < bytes.count && isXMLWhitespace(bytes[offset]) { offset += 1 }
        if offset < bytes.count && bytes[offset] != Byte.lessThan {
            let expected =
                hasRoot
                ? "only whitespace, comments or processing instructions after the root element"
                : "a root element such as <speak>"
            throw malformed(at: offset, expected: expected, found: "text \(input.snippet(at: offset))")
        }
        index = offset
    }

    // MARK: Markup

    private mutating func readStartTag() throws(SSMLError) -> StartTag {
        let start = index
        let position = locator.position(at: start)
        guard let elementNameEnd = nameEnd(bytes, at: start + 1) else {
            throw malformed(at: start + 1, expected: "an element name after <", found: input.snippet(at: start + 1))
        }
        let name = input.string(start + 1..<elementNameEnd)
        if openElements.isEmpty && hasRoot {
            throw malformed(
                at: start, expected: "the end of the request after the root element",
                found: "a second root element <\(name)>")
        }
        var offset = elementNameEnd
        var attributes: [XMLAttribute] = []
        var isEmpty = false
        while true {
            let whitespaceStart = offset
            input.skipWhitespace(&offset)
            guard offset < bytes.count else {
                throw malformed(
                    at: offset, expected: "> to end the start tag <\(name)>", found: "the end of the request")
            }
            let byte = bytes[offset]
            if byte == Byte.greaterThan {
                offset += 1
                break
            }
            if byte == Byte.slash {
                guard offset + 1 < bytes.count, bytes[offset + 1] == Byte.greaterThan else {
                    throw malformed(
                        at: offset + 1, expected: "> after / in <\(name)/>", found: input.snippet(at: offset + 1))
                }
                offset += 2
                isEmpty = true
                break
            }
            guard offset > whitespaceStart else {
                throw malformed(
                    at: offset, expected: "whitespace, > or /> in the start tag <\(name)>",
                    found: input.snippet(at: offset))
            }
            let attributeStart = offset
            guard let attributeEnd = nameEnd(bytes, at: offset) else {
                throw malformed(
                    at: offset, expected: "an attribute name, > or /> in the start tag <\(name)>",
                    found: input.snippet(at: offset))
            }
            let attributeName = input.string(attributeStart..<attributeEnd)
            offset = attributeEnd
            input.skipWhitespace(&offset)
            guard offset < bytes.count, bytes[offset] == Byte.equals else {
                throw malformed(
                    at: offset, expected: "= after the attribute name \(attributeName)",
                    found: input.snippet(at: offset))
            }
            offset += 1
            input.skipWhitespace(&offset)
            guard offset < bytes.count, bytes[offset] == Byte.doubleQuote || bytes[offset] == Byte.singleQuote else {
                throw malformed(
                    at: offset, expected: "a quoted value such as \(attributeName)=\"…\"",
                    found: input.snippet(at: offset))
            }
            let value = try readAttributeValue(from: &offset, attributeName: attributeName)
            if attributes.contains(where: { $0.name == attributeName }) {
                throw malformed(
                    at: attributeStart, expected: "each attribute once in <\(name)>",
                    found: "a second \(attributeName) attribute")
            }
            attributes.append(XMLAttribute(name: attributeName, value: value))
        }
        index = offset
        let endOffset = locator.position(at: offset).utf16Offset
        if !isEmpty { openElements.append(start + 1..<elementNameEnd) }
        hasRoot = true
        return StartTag(name: name, attributes: attributes, isEmpty: isEmpty, position: position, endOffset: endOffset)
    }

    /// Reads a quoted value starting at the quote in `offset`, leaving `offset` past the closing quote.
    ///
    /// XML attribute-value normalisation applies: a literal tab, line feed, carriage return or CR LF is one
    /// space; references are decoded (so `&#10;` stays a line feed).
    private mutating func readAttributeValue(
        from offset: inout Int, attributeName: String
    ) throws(SSMLError) -> String {
        let quoteOffset = offset
        let quote = bytes[offset]
        var position = offset + 1
        valueBuffer.removeAll(keepingCapacity: true)
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case quote:
                offset = position + 1
                return String(decoding: valueBuffer, as: UTF8.self)
            case Byte.lessThan:
                throw malformed(
                    at: position, expected: "&lt; instead of < in the value of \(attributeName)", found: "\"<\"")
            case Byte.ampersand:
                switch readReference(bytes, at: position) {
                case .character(let scalar, let end):
                    valueBuffer.append(contentsOf: UTF8.encode(scalar)!)
                    position = end
                case .refused(let name):
                    throw refusedEntity(name, at: position)
                case .malformed(let expected, let end):
                    throw malformed(at: position, expected: expected, found: input.quoted(position..<end))
                }
            case 0x0D:
                valueBuffer.append(Byte.space)
                position += 1
                if position < bytes.count && bytes[position] == 0x0A { position += 1 }
            case 0x09, 0x0A:
                valueBuffer.append(Byte.space)
                position += 1
            default:
                if byte < 0x20 || (byte == 0xEF && input.isNonCharacter(at: position)) {
                    throw invalidCharacter(at: position)
                }
                valueBuffer.append(byte)
                position += 1
            }
        }
        let quoteText = quote == Byte.doubleQuote ? "\"" : "'"
        throw malformed(
            at: quoteOffset, expected: "a closing \(quoteText) for the value of \(attributeName)",
            found: "the end of the request")
    }

    private mutating func readEndTag() throws(SSMLError) -> EndTag {
        let start = index
        guard let elementNameEnd = nameEnd(bytes, at: start + 2) else {
            throw malformed(at: start + 2, expected: "an element name after </", found: input.snippet(at: start + 2))
        }
        let nameRange = start + 2..<elementNameEnd
        var offset = elementNameEnd
        input.skipWhitespace(&offset)
        guard offset < bytes.count, bytes[offset] == Byte.greaterThan else {
            throw malformed(
                at: offset, expected: "> to end </\(input.string(nameRange))>", found: input.snippet(at: offset))
        }
        guard let open = openElements.last else {
            let expected =
                hasRoot ? "the end of the request after the root element" : "a root element such as <speak>"
            throw malformed(at: start, expected: expected, found: "</\(input.string(nameRange))>")
        }
        guard input.bytesEqual(open, nameRange) else {
            throw malformed(at: start, expected: "</\(input.string(open))>", found: "</\(input.string(nameRange))>")
        }
        openElements.removeLast()
        index = offset + 1
        return EndTag(endOffset: locator.position(at: index).utf16Offset)
    }

    /// `<!--…-->`, `<![CDATA[…]]>`, or a refused `<!DOCTYPE`.
    private mutating func readMarkupDeclaration() throws(SSMLError) {
        let start = index
        if input.hasPrefix("<!--", at: start) {
            var offset = start + 4
            while offset + 1 < bytes.count {
                let byte = bytes[offset]
                if byte == Byte.hyphen && bytes[offset + 1] == Byte.hyphen {
                    guard offset + 2 < bytes.count, bytes[offset + 2] == Byte.greaterThan else {
                        throw malformed(
                            at: offset, expected: "--> (two hyphens may only end a comment)",
                            found: "\"--\" inside a comment")
                    }
                    index = offset + 3
                    return
                }
                if byte < 0x20 && !isXMLWhitespace(byte) { throw invalidCharacter(at: offset) }
                offset += 1
            }
            throw malformed(
                at: start, expected: "--> to close the comment that starts here", found: "the end of the request")
        }
        if input.hasPrefix("<![CDATA[", at: start) {
            guard !openElements.isEmpty else {
                let expected =
                    hasRoot ? "the end of the request after the root element" : "a root element such as <speak>"
                throw malformed(at: start, expected: expected, found: "a CDATA section")
            }
            let contentStart = start + 9
            var offset = contentStart
            var isWhitespace = true
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == Byte.closingBracket && offset + 2 < bytes.count && bytes[offset + 1] == Byte.closingBracket
                    && bytes[offset + 2] == Byte.greaterThan
                {
                    run.appendVerbatim(contentStart..<offset, isWhitespace: isWhitespace, locator: &locator)
                    index = offset + 3
                    return
                }
                if byte <= 0x20 {
                    if !isXMLWhitespace(byte) { throw invalidCharacter(at: offset) }
                } else {
                    isWhitespace = false
                }
                offset += 1
            }
            throw malformed(
                at: start, expected: "]]> to close the CDATA section that starts here", found: "the end of the request")
        }
        if input.hasPrefix("<!DOCTYPE", at: start, ignoringCase: true) {
            let position = locator.position(at: start)
            throw SSMLError.doctypeRefused(line: position.line, column: position.column)
        }
        throw malformed(at: start, expected: "<!-- or <![CDATA[", found: input.snippet(at: start))
    }

    /// `<?target …?>`, or the XML declaration `<?xml version="1.0" …?>` at the very start.
    private mutating func readProcessingInstruction() throws(SSMLError) {
        let start = index
        guard let targetEnd = nameEnd(bytes, at: start + 2) else {
            throw malformed(
                at: start + 2, expected: "a processing instruction name after <?", found: input.snippet(at: start + 2))
        }
        if input.hasPrefix("xml", at: start + 2, ignoringCase: true) && targetEnd == start + 5 {
            guard start == documentStart else {
                throw malformed(
                    at: start, expected: "the XML declaration only at the very start of the request",
                    found: "\"<?xml\"")
            }
            try readXMLDeclaration(from: targetEnd)
            return
        }
        var offset = targetEnd
        if !input.hasPrefix("?>", at: offset) {
            guard offset < bytes.count, isXMLWhitespace(bytes[offset]) else {
                throw malformed(
                    at: offset, expected: "whitespace or ?> after the processing instruction name",
                    found: input.snippet(at: offset))
            }
        }
        while offset + 1 < bytes.count {
            if bytes[offset] == Byte.question && bytes[offset + 1] == Byte.greaterThan {
                index = offset + 2
                return
            }
            if bytes[offset] < 0x20 && !isXMLWhitespace(bytes[offset]) { throw invalidCharacter(at: offset) }
            offset += 1
        }
        throw malformed(
            at: start, expected: "?> to close the processing instruction that starts here",
            found: "the end of the request")
    }

    /// `version="1.x"`, then optionally `encoding="…"` and `standalone="yes|no"`, then `?>`.
    private mutating func readXMLDeclaration(from targetEnd: Int) throws(SSMLError) {
        let names = ["version", "encoding", "standalone"]
        var nextName = 0
        var offset = targetEnd
        while true {
            let whitespaceStart = offset
            input.skipWhitespace(&offset)
            guard offset < bytes.count else {
                throw malformed(at: offset, expected: "?> to end the XML declaration", found: "the end of the request")
            }
            if input.hasPrefix("?>", at: offset) {
                guard nextName > 0 else {
                    throw malformed(at: offset, expected: "version=\"1.0\" in the XML declaration", found: "\"?>\"")
                }
                index = offset + 2
                return
            }
            guard offset > whitespaceStart, let end = nameEnd(bytes, at: offset),
                let which = names.firstIndex(of: input.string(offset..<end)), which >= nextName,
                which == 0 || nextName > 0
            else {
                let expected =
                    nextName == 0
                    ? "version=\"1.0\" first in the XML declaration"
                    : "encoding=, standalone= or ?> in the XML declaration"
                throw malformed(at: offset, expected: expected, found: input.snippet(at: offset))
            }
            nextName = which + 1
            offset = end
            input.skipWhitespace(&offset)
            guard offset < bytes.count, bytes[offset] == Byte.equals else {
                throw malformed(at: offset, expected: "= after \(names[which])", found: input.snippet(at: offset))
            }
            offset += 1
            input.skipWhitespace(&offset)
            guard offset < bytes.count, bytes[offset] == Byte.doubleQuote || bytes[offset] == Byte.singleQuote else {
                throw malformed(
                    at: offset, expected: "a quoted value after \(names[which])=", found: input.snippet(at: offset))
            }
            let quote = bytes[offset]
            let valueStart = offset + 1
            var valueEnd = valueStart
            while valueEnd < bytes.count && bytes[valueEnd] != quote && bytes[valueEnd] != Byte.lessThan {
                valueEnd += 1
            }
            guard valueEnd < bytes.count, bytes[valueEnd] == quote else {
                throw malformed(
                    at: offset, expected: "a closing quote for \(names[which])", found: input.snippet(at: valueEnd))
            }
            let value = input.string(valueStart..<valueEnd)
            let isValid: Bool
            let accepted: String
            switch which {
            case 0:
                isValid =
                    value.hasPrefix("1.") && value.utf8.count > 2
                    && value.utf8.dropFirst(2).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                accepted = "version=\"1.0\""
            case 1:
                isValid = isEncodingName(value)
                accepted = "an encoding name such as \"UTF-8\""
            default:
                isValid = value == "yes" || value == "no"
                accepted = "standalone=\"yes\" or \"no\""
            }
            guard isValid else {
                throw malformed(at: valueStart, expected: accepted, found: "\"\(value)\"")
            }
            offset = valueEnd + 1
        }
    }

    // MARK: Helpers

    private mutating func malformed(at offset: Int, expected: String, found: String) -> SSMLError {
        let position = locator.position(at: offset)
        return .malformed(expected: expected, found: found, line: position.line, column: position.column)
    }

    private mutating func refusedEntity(_ name: String, at offset: Int) -> SSMLError {
        let position = locator.position(at: offset)
        return .entityRefused(name: name, line: position.line, column: position.column)
    }

    private mutating func invalidCharacter(at offset: Int) -> SSMLError {
        let scalar = decodeScalar(bytes, at: offset).value
        var hex = String(scalar, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        return malformed(at: offset, expected: "a character XML allows", found: "the character U+\(hex)")
    }
}

/// Read-only helpers over the request's bytes.
///
/// They live apart from `XMLScanner` because a debug build copies the whole receiver to call a non-mutating
/// method from a mutating one; this value is two words.
struct RequestBytes {
    let bytes: UnsafeBufferPointer<UInt8>

    func skipWhitespace(_ offset: inout Int) {
        while offset < bytes.count && isXMLWhitespace(bytes[offset]) { offset += 1 }
    }

    func hasPrefix(_ prefix: StaticString, at offset: Int, ignoringCase: Bool = false) -> Bool {
        bytesHavePrefix(bytes, prefix, at: offset, ignoringCase: ignoringCase)
    }

    /// U+FFFE or U+FFFF (EF BF BE, EF BF BF), which XML does not allow.
    func isNonCharacter(at offset: Int) -> Bool {
        offset + 2 < bytes.count && bytes[offset + 1] == 0xBF && bytes[offset + 2] >= 0xBE
    }

    func bytesEqual(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
        guard first.count == second.count else { return false }
        var offset = 0
        while offset < first.count {
            if bytes[first.lowerBound + offset] != bytes[second.lowerBound + offset] { return false }
            offset += 1
        }
        return true
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    func quoted(_ range: Range<Int>) -> String {
        "\"\(string(range))\""
    }

    func snippet(at offset: Int) -> String {
        inputSnippet(bytes, at: offset)
    }
}

// MARK: - Shared with the lenient reader

/// What `&…` at some offset turned out to be.
enum ReferenceReading {
    /// A built-in entity or character reference; `end` is just past its `;`.
    case character(Unicode.Scalar, end: Int)
    /// `&name;` with a name other than the five built-ins.
    case refused(name: String)
    /// Not a reference at all; `end` bounds the text worth quoting in a message.
    case malformed(expected: String, end: Int)
}

/// Reads the reference whose `&` is at `start`.
func readReference(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> ReferenceReading {
    var offset = start + 1
    if offset < bytes.count && bytes[offset] == Byte.hash {
        offset += 1
        let isHex = offset < bytes.count && bytes[offset] == Byte.lowercaseX
        if isHex { offset += 1 }
        var value: UInt32 = 0
        var digitCount = 0
        while offset < bytes.count, let digit = digitValue(bytes[offset], isHex: isHex) {
            // Past U+10FFFF the value is invalid anyway; stop growing it so it cannot overflow.
            if value <= 0x10FFFF { value = value * (isHex ? 16 : 10) + digit }
            digitCount += 1
            offset += 1
        }
        guard digitCount > 0, offset < bytes.count, bytes[offset] == Byte.semicolon else {
            return .malformed(
                expected: "a character reference such as &#65; or &#x41;", end: referenceSnippetEnd(bytes, from: start))
        }
        offset += 1
        guard isXMLCharacter(value), let scalar = Unicode.Scalar(value) else {
            return .malformed(expected: "a character reference to a character XML allows", end: offset)
        }
        return .character(scalar, end: offset)
    }
    guard let end = nameEnd(bytes, at: offset), end < bytes.count, bytes[end] == Byte.semicolon else {
        return .malformed(
            expected: "&amp; for a literal &, or a reference such as &lt; or &#65;",
            end: referenceSnippetEnd(bytes, from: start))
    }
    let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    let scalar: Unicode.Scalar
    switch name {
    case "lt": scalar = "<"
    case "gt": scalar = ">"
    case "amp": scalar = "&"
    case "quot": scalar = "\""
    case "apos": scalar = "'"
    default: return .refused(name: name)
    }
    return .character(scalar, end: end + 1)
}

/// Whether `prefix` (ASCII) sits at `offset`; `ignoringCase` compares ASCII letters case-insensitively.
func bytesHavePrefix(
    _ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, at offset: Int, ignoringCase: Bool = false
) -> Bool {
    let count = prefix.utf8CodeUnitCount
    guard offset >= 0, offset + count <= bytes.count else { return false }
    let pointer = prefix.utf8Start
    for position in 0..<count {
        var byte = bytes[offset + position]
        var expected = pointer[position]
        if ignoringCase {
            if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
            if expected >= 0x61 && expected <= 0x7A { expected -= 0x20 }
        }
        if byte != expected { return false }
    }
    return true
}

/// The end of the XML name that starts at `start`, or `nil` when none starts there.
func nameEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
    guard start < bytes.count else { return nil }
    let first = decodeScalar(bytes, at: start)
    guard isNameStartCharacter(first.value) else { return nil }
    var offset = start + first.length
    while offset < bytes.count {
        let byte = bytes[offset]
        if byte < 0x80 {
            guard isNameCharacter(UInt32(byte)) else { break }
            offset += 1
        } else {
            let next = decodeScalar(bytes, at: offset)
            guard isNameCharacter(next.value) else { break }
            offset += next.length
        }
    }
    return offset
}

/// The input at `offset` for a message: up to 20 characters, stopping at whitespace, `<` or `>`.
func inputSnippet(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
    guard offset < bytes.count else { return "the end of the request" }
    if isXMLWhitespace(bytes[offset]) { return "whitespace" }
    var end = offset
    var characterCount = 0
    while end < bytes.count && characterCount < 20 {
        let byte = bytes[end]
        if characterCount > 0 && (isXMLWhitespace(byte) || byte == Byte.lessThan || byte == Byte.greaterThan) {
            break
        }
        end += decodeScalar(bytes, at: end).length
        characterCount += 1
    }
    return "\"" + String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self) + "\""
}

/// Where a malformed reference worth quoting ends: `&` and the name-like characters after it, and a `;`.
private func referenceSnippetEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var end = start + 1
    while end < bytes.count && end - start < 32 {
        let byte = bytes[end]
        let isNameLike =
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == Byte.hash || byte == Byte.hyphen || byte == 0x2E || byte == 0x5F
        guard isNameLike else { break }
        end += 1
    }
    if end < bytes.count && bytes[end] == Byte.semicolon { end += 1 }
    return end
}

/// The scalar at `offset` of valid UTF-8 and its length in bytes.
@inline(__always)
func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> (value: UInt32, length: Int) {
    let lead = UInt32(bytes[offset])
    if lead < 0x80 { return (lead, 1) }
    if lead < 0xE0 { return ((lead & 0x1F) << 6 | UInt32(bytes[offset + 1]) & 0x3F, 2) }
    if lead < 0xF0 {
        return ((lead & 0x0F) << 12 | (UInt32(bytes[offset + 1]) & 0x3F) << 6 | UInt32(bytes[offset + 2]) & 0x3F, 3)
    }
    let value =
        (lead & 0x07) << 18 | (UInt32(bytes[offset + 1]) & 0x3F) << 12 | (UInt32(bytes[offset + 2]) & 0x3F) << 6
        | UInt32(bytes[offset + 3]) & 0x3F
    return (value, 4)
}

/// XML 1.0 (fifth edition) `NameStartChar`.
func isNameStartCharacter(_ value: UInt32) -> Bool {
    if value < 0x80 {
        // Plain comparisons: range patterns are generic calls in a debug build.
        return (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || value == 0x3A || value == 0x5F
    }
    switch value {
    case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D: return true
    case 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD: return true
    case 0x10000...0xEFFFF: return true
    default: return false
    }
}

/// XML 1.0 (fifth edition) `NameChar`.
func isNameCharacter(_ value: UInt32) -> Bool {
    if value < 0x80 {
        return (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
            || value == 0x3A || value == 0x5F || value == 0x2D || value == 0x2E
    }
    switch value {
    case 0xB7, 0x300...0x36F, 0x203F...0x2040: return true
    default: return isNameStartCharacter(value)
    }
}

/// XML 1.0 `Char`: what a document (and a character reference) may contain.
func isXMLCharacter(_ value: UInt32) -> Bool {
    switch value {
    case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
    default: return false
    }
}

private func digitValue(_ byte: UInt8, isHex: Bool) -> UInt32? {
    switch byte {
    case 0x30...0x39: return UInt32(byte - 0x30)
    case 0x41...0x46 where isHex: return UInt32(byte - 0x41 + 10)
    case 0x61...0x66 where isHex: return UInt32(byte - 0x61 + 10)
    default: return nil
    }
}

/// XML `EncName`: `[A-Za-z] ([A-Za-z0-9._] | '-')*`.
private func isEncodingName(_ value: String) -> Bool {
    var isFirst = true
    for byte in value.utf8 {
        let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        let isOther = (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x5F || byte == Byte.hyphen
        guard isLetter || (!isFirst && isOther) else { return false }
        isFirst = false
    }
    return !isFirst
}

/// The ASCII bytes the readers look for.
enum Byte {
    static let space: UInt8 = 0x20
    static let doubleQuote: UInt8 = 0x22
    static let hash: UInt8 = 0x23
    static let ampersand: UInt8 = 0x26
    static let singleQuote: UInt8 = 0x27
    static let hyphen: UInt8 = 0x2D
    static let slash: UInt8 = 0x2F
    static let semicolon: UInt8 = 0x3B
    static let lessThan: UInt8 = 0x3C
    static let equals: UInt8 = 0x3D
    static let greaterThan: UInt8 = 0x3E
    static let question: UInt8 = 0x3F
    static let exclamation: UInt8 = 0x21
    static let closingBracket: UInt8 = 0x5D
    static let lowercaseX: UInt8 = 0x78
}
