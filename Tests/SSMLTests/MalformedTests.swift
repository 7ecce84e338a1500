// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

/// A request that is not well-formed XML, and where and how the reader says so.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var request: String
    var line: Int
    var column: Int
    var expected: String
    var found: String

    var testDescription: String { name }
}

@Suite("Malformed SSML")
struct MalformedTests {
    static let cases: [MalformedCase] = [
        MalformedCase(
            name: "mismatched end tag", request: "<speak>\n  <prosody>hi</speak>", line: 2, column: 14,
            expected: "</prosody>", found: "</speak>"),
        MalformedCase(
            name: "missing end tag", request: "<speak><p>Hello</p>", line: 1, column: 20, expected: "</speak>",
            found: "the end of the request"),
        MalformedCase(
            name: "two roots", request: "<speak>a</speak><speak>b</speak>", line: 1, column: 17,
            expected: "the end of the request after the root element", found: "a second root element <speak>"),
        MalformedCase(
            name: "empty input", request: "", line: 1, column: 1,
            expected: "SSML such as <speak>Hello</speak> or plain text", found: "an empty request"),
        MalformedCase(
            name: "whitespace only", request: " \n ", line: 2, column: 2,
            expected: "SSML such as <speak>Hello</speak> or plain text", found: "an empty request"),
        MalformedCase(
            name: "text after root", request: "<speak>a</speak>\nhello there", line: 2, column: 1,
            expected: "only whitespace, comments or processing instructions after the root element",
            found: "text \"hello\""),
        MalformedCase(
            name: "text before root", request: "<!-- c --> hi <speak/>", line: 1, column: 12,
            expected: "a root element such as <speak>", found: "text \"hi\""),
        MalformedCase(
            name: "unquoted attribute", request: "<speak><break time=1s/></speak>", line: 1, column: 20,
            expected: "a quoted value such as time=\"…\"", found: "\"1s/\""),
        MalformedCase(
            name: "duplicate attribute", request: "<speak><prosody rate=\"1\" rate=\"2\">x</prosody></speak>", line: 1,
            column: 26, expected: "each attribute once in <prosody>", found: "a second rate attribute"),
        MalformedCase(
            name: "bare ampersand", request: "<speak>Tom & Jerry</speak>", line: 1, column: 12,
            expected: "&amp; for a literal &, or a reference such as &lt; or &#65;", found: "\"&\""),
        MalformedCase(
            name: "entity without semicolon", request: "<speak>a &amp b</speak>", line: 1, column: 10,
            expected: "&amp; for a literal &, or a reference such as &lt; or &#65;", found: "\"&amp\""),
        MalformedCase(
            name: "bad hex character reference", request: "<speak>&#xZZ;</speak>", line: 1, column: 8,
            expected: "a character reference such as &#65; or &#x41;", found: "\"&#xZZ;\""),
        MalformedCase(
            name: "character reference to NUL", request: "<speak>&#0;</speak>", line: 1, column: 8,
            expected: "a character reference to a character XML allows", found: "\"&#0;\""),
        MalformedCase(
            name: "character reference to a surrogate", request: "<speak>&#xD800;</speak>", line: 1, column: 8,
            expected: "a character reference to a character XML allows", found: "\"&#xD800;\""),
        MalformedCase(
            name: "character reference past U+10FFFF", request: "<speak>&#x110000;</speak>", line: 1, column: 8,
            expected: "a character reference to a character XML allows", found: "\"&#x110000;\""),
        MalformedCase(
            name: "< in attribute", request: "<speak><mark name=\"a<b\"/></speak>", line: 1, column: 21,
            expected: "&lt; instead of < in the value of name", found: "\"<\""),
        MalformedCase(
            name: "unterminated comment", request: "<speak>hi <!-- oops</speak>", line: 1, column: 11,
            expected: "--> to close the comment that starts here", found: "the end of the request"),
        MalformedCase(
            name: "-- inside a comment", request: "<speak><!-- a -- b --></speak>", line: 1, column: 15,
            expected: "--> (two hyphens may only end a comment)", found: "\"--\" inside a comment"),
        MalformedCase(
            name: "unterminated CDATA", request: "<speak>\n<![CDATA[hi</speak>", line: 2, column: 1,
            expected: "]]> to close the CDATA section that starts here", found: "the end of the request"),
        MalformedCase(
            name: "CDATA outside the root", request: "<![CDATA[x]]><speak/>", line: 1, column: 1,
            expected: "a root element such as <speak>", found: "a CDATA section"),
        MalformedCase(
            name: "unterminated processing instruction", request: "<speak><?pi data</speak>", line: 1, column: 8,
            expected: "?> to close the processing instruction that starts here", found: "the end of the request"),
        MalformedCase(
            name: "XML declaration not at the start", request: " <?xml version=\"1.0\"?><speak/>", line: 1, column: 2,
            expected: "the XML declaration only at the very start of the request", found: "\"<?xml\""),
        MalformedCase(
            name: "XML declaration without version", request: "<?xml encoding=\"UTF-8\"?><speak/>", line: 1, column: 7,
            expected: "version=\"1.0\" first in the XML declaration", found: "\"encoding=\"UTF-8\"?\""),
        MalformedCase(
            name: "XML declaration with a bad version", request: "<?xml version=\"2.0\"?><speak/>", line: 1, column: 16,
            expected: "version=\"1.0\"", found: "\"2.0\""),
        MalformedCase(
            name: "invalid element name", request: "<speak><1a/></speak>", line: 1, column: 9,
            expected: "an element name after <", found: "\"1a/\""),
        MalformedCase(
            name: "no whitespace between attributes",
            request: "<speak><prosody rate=\"1\"volume=\"2\">x</prosody></speak>",
            line: 1, column: 25, expected: "whitespace, > or /> in the start tag <prosody>", found: "\"volume=\"2\"\""),
        MalformedCase(
            name: "end tag before any element", request: "</speak>", line: 1, column: 1,
            expected: "a root element such as <speak>", found: "</speak>"),
        MalformedCase(
            name: "only a comment", request: "<!-- c -->", line: 1, column: 11,
            expected: "a root element such as <speak>",
            found: "the end of the request"),
        MalformedCase(
            name: "CR LF ends a line", request: "<speak>\r\n<p>\r\n</speak>", line: 3, column: 1, expected: "</p>",
            found: "</speak>"),
        MalformedCase(
            name: "a lone CR ends a line", request: "<speak>\r<p>\r\r</speak>", line: 4, column: 1, expected: "</p>",
            found: "</speak>"),
        MalformedCase(
            name: "columns count Unicode scalars", request: "<speak>設定😀</p>", line: 1, column: 11,
            expected: "</speak>", found: "</p>"),
        MalformedCase(
            name: "names match byte for byte, not by canonical equivalence",
            request: "<speak><caf\u{E9}>x</cafe\u{301}></speak>", line: 1, column: 15, expected: "</caf\u{E9}>",
            found: "</cafe\u{301}>"),
        MalformedCase(
            name: "a byte-order mark is not a column", request: "\u{FEFF}<speak></p>", line: 1, column: 8,
            expected: "</speak>", found: "</p>"),
        MalformedCase(
            name: "]]> in text", request: "<speak>a]]>b</speak>", line: 1, column: 9,
            expected: "]]&gt; for a literal ]]> in text", found: "\"]]>\""),
        MalformedCase(
            name: "a control character", request: "<speak>a\u{1}b</speak>", line: 1, column: 9,
            expected: "a character XML allows", found: "the character U+0001"),
        MalformedCase(
            name: "unclosed attribute value", request: "<speak><mark name=\"a/></speak>", line: 1, column: 23,
            expected: "&lt; instead of < in the value of name", found: "\"<\""),
        MalformedCase(
            name: "unclosed start tag", request: "<speak><mark name=\"a\"", line: 1, column: 22,
            expected: "> to end the start tag <mark>", found: "the end of the request"),
        MalformedCase(
            name: "a lone <", request: "<speak>a < b</speak>", line: 1, column: 11,
            expected: "an element name after <", found: "whitespace"),
        MalformedCase(
            name: "<! that is not a comment", request: "<speak><!ELEMENT x></speak>", line: 1, column: 8,
            expected: "<!-- or <![CDATA[", found: "\"<!ELEMENT\""),
    ]

    @Test("strict mode names the line, column, what was expected and what was found", arguments: cases)
    func strict(testCase: MalformedCase) throws {
        let expected = SSMLError.malformed(
            expected: testCase.expected, found: testCase.found, line: testCase.line, column: testCase.column)
        #expect(error(testCase.request) == expected)
    }

    @Test("lenient mode speaks the text without markup, with one warning at the first error", arguments: cases)
    func lenient(testCase: MalformedCase) throws {
        let document = try read(testCase.request, lenient: true)
        #expect(document.warnings.count == 1)
        #expect(document.warnings.first?.line == testCase.line)
        #expect(document.warnings.first?.column == testCase.column)
        #expect(
            document.warnings.first?.message.hasPrefix(
                "malformed SSML at line \(testCase.line), column \(testCase.column): ") == true)
        // At most one run of text, in a sentence of its own.
        #expect(runs(document.events).count <= 1)
        #expect(document.events.count == 3 * runs(document.events).count)
        for run in runs(document.events) { #expect(run.context == SpeechContext()) }
    }

    @Test("the description is one sentence with the line and column")
    func description() {
        let error = SSMLError.malformed(expected: "</prosody>", found: "</speak>", line: 2, column: 7)
        #expect(error.description == "malformed SSML at line 2, column 7: expected </prosody> but found </speak>")
        #expect(!error.description.contains("\n"))
    }

    @Test("lenient text: tags dropped, entities and character references decoded, CDATA kept")
    func lenientText() throws {
        let request = "<speak><prosody rate=\"2\">Tom &amp; &#x1F600; <b>Jerry</speak><![CDATA[ <x> ]]> & co<!-- c -->."
        let document = try read(request, lenient: true)
        let run = try #require(runs(document.events).first)
        #expect(run.text == "Tom & 😀 Jerry <x>  & co.")
        #expect(run.context == SpeechContext())
        #expect(run.sourceRange == 25..<request.utf16.count)
        #expect(
            document.warnings.map(\.message) == [
                "malformed SSML at line 1, column 54: expected </b> but found </speak>; the text is spoken with the "
                    + "markup dropped"
            ])
        // Markers can still point into the request.
        #expect(slice(request, run.sourceRange(forTextRange: 0..<5)) == "Tom &amp;")
        #expect(slice(request, run.sourceRange(forTextRange: 6..<8)) == "&#x1F600;")
        #expect(slice(request, run.sourceRange(forTextRange: 9..<14)) == "Jerry")
        #expect(slice(request, run.sourceRange(forTextRange: 15..<18)) == "<x>")
    }

    @Test("lenient: a < or & that starts nothing is kept as text")
    func lenientLiterals() throws {
        let request = "<speak>a < b && c</speak>"
        let document = try read(request, lenient: true)
        #expect(document.events == sentence(7..<17, text("a < b && c", 7..<17)))
        #expect(document.warnings.map(\.column) == [11])
    }

    @Test("lenient: an empty request is no events and one warning")
    func lenientEmpty() throws {
        let document = try read("", lenient: true)
        #expect(document.events.isEmpty)
        #expect(document.warnings.count == 1)
        #expect(
            document.warnings.first?.message.hasPrefix("malformed SSML at line 1, column 1: expected SSML such as")
                == true)
    }

    @Test("a malformed request is reported as malformed even after an invalid value")
    func malformedBeatsInvalidValue() throws {
        let caught = error("<speak><break time=\"fast\"/><p></speak>")
        #expect(caught == .malformed(expected: "</p>", found: "</speak>", line: 1, column: 31))
        // Lenient: one warning only, the malformed one.
        let document = try read("<speak><break time=\"fast\"/>Hi<p></speak>", lenient: true)
        #expect(document.warnings.count == 1)
        #expect(document.events == sentence(27..<29, text("Hi", 27..<29)))
    }

    @Test("a DOCTYPE is refused in both modes")
    func doctype() throws {
        let requests = [
            "<!DOCTYPE speak [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><speak>&xxe;</speak>",
            "<?xml version=\"1.0\"?>\n<!doctype speak><speak>hi</speak>",
            "<speak><p>x</speak><!DOCTYPE speak>",
        ]
        let positions = [(1, 1), (2, 1), (1, 20)]
        for (request, (line, column)) in zip(requests, positions) {
            #expect(error(request, lenient: true) == .doctypeRefused(line: line, column: column), "\(request)")
        }
        #expect(error(requests[0]) == .doctypeRefused(line: 1, column: 1))
        #expect(error(requests[1]) == .doctypeRefused(line: 2, column: 1))
        // Strict mode stops at the first problem, here the mismatched end tag before the DOCTYPE.
        #expect(error(requests[2]) == .malformed(expected: "</p>", found: "</speak>", line: 1, column: 12))
        #expect(
            SSMLError.doctypeRefused(line: 1, column: 1).description
                == "refused <!DOCTYPE> at line 1, column 1: document type declarations are not accepted; expected "
                + "SSML without one")
    }

    @Test("entities other than the five built-ins are refused in both modes, in text and attributes")
    func customEntities() throws {
        let cases: [(String, String, Int)] = [
            ("<speak>a&nbsp;b</speak>", "nbsp", 9),
            ("<speak><mark name=\"&xxe;\"/></speak>", "xxe", 20),
            ("<speak><p>x</speak> &copy;", "copy", 21),  // after the first error: lenient reading still refuses
            ("<speak><p x=\"&ent;\">x</speak>", "ent", 14),
            ("<speak><p>x</speak><p y=\"&ent2;\">", "ent2", 26),
        ]
        for (request, name, column) in cases {
            for lenient in [false, true] {
                if request.contains("copy") || request.contains("ent2") {
                    guard lenient else { continue }  // strict mode stops at the mismatched end tag first
                }
                #expect(
                    error(request, lenient: lenient) == .entityRefused(name: name, line: 1, column: column),
                    "\(request)")
            }
        }
        #expect(
            SSMLError.entityRefused(name: "nbsp", line: 1, column: 9).description
                == "refused entity reference &nbsp; at line 1, column 9: expected one of &lt; &gt; &amp; &quot; &apos; "
                + "or a character reference such as &#160;")
    }

    @Test("well-formed extras are accepted: declaration, BOM, comments, PIs, CDATA, single quotes, whitespace")
    func wellFormedExtras() throws {
        let request = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8" standalone='yes'?>
            <!-- greeting -->
            <?render hint?>
            <speak version='1.1' xmlns="http://www.w3.org/2001/10/synthesis" >Hel<!-- x -->lo<?pi?> <![CDATA[<&>]]>\
            &lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#128512;</speak  >
            <!-- trailing -->

            """
        let document = try read(request)
        #expect(runs(document.events).map(\.text) == ["Hello <&><>&\"'AB😀"])
        #expect(document.warnings.isEmpty)
        #expect(try events("<speak/>").isEmpty)
        let indented = try events("  \n<speak>hi</speak>")
        #expect(indented == sentence(10..<12, text("hi", 10..<12)))
    }
}
