// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

@Suite("say-as, sub, mark, voice, lang, audio and other elements")
struct ElementTests {
    @Test("say-as: every known interpret-as is carried", arguments: SayAs.Interpretation.allCases)
    func knownSayAs(interpretation: SayAs.Interpretation) throws {
        let document = try read("<speak><say-as interpret-as=\"\(interpretation.rawValue)\">12</say-as></speak>")
        #expect(runs(document.events).map(\.context.sayAs) == [SayAs(interpretAs: interpretation)])
        #expect(document.warnings.isEmpty)
    }

    @Test("say-as: format and detail are kept")
    func formatAndDetail() throws {
        let document = try read(
            "<speak><say-as interpret-as=\"date\" format=\"mdy\" detail=\"2\">12/25/2024</say-as> "
                + "<say-as interpret-as=\"telephone\" format=\"+81\">03-1234-5678</say-as> "
                + "<say-as interpret-as=\"time\" format=\"hms24\">13:05</say-as></speak>")
        #expect(
            runs(document.events).map(\.context.sayAs) == [
                SayAs(interpretAs: .date, format: "mdy", detail: "2"), SayAs(interpretAs: .telephone, format: "+81"),
                SayAs(interpretAs: .time, format: "hms24"),
            ])
        #expect(document.warnings.isEmpty)
    }

    @Test("say-as: unknown or missing interpret-as, or an unknown format, speaks plain text with a warning")
    func unknownSayAs() throws {
        for (markup, fragment) in [
            ("<say-as interpret-as=\"currency\">", "unknown <say-as interpret-as=\"currency\"> at line 1, column 8"),
            ("<say-as>", "<say-as> without interpret-as at line 1, column 8"),
            ("<say-as interpret-as=\"date\" format=\"yyyy\">", "format=\"yyyy\"> at line 1, column 8"),
            ("<say-as interpret-as=\"cardinal\" format=\"roman\">", "format=\"roman\"> at line 1, column 8"),
        ] {
            for lenient in [false, true] {
                let document = try read("<speak>\(markup)12</say-as></speak>", lenient: lenient)
                #expect(runs(document.events).map(\.text) == ["12"])
                #expect(runs(document.events).map(\.context) == [SpeechContext()])
                #expect(document.warnings.count == 1)
                #expect(document.warnings.first?.message.contains(fragment) == true, "\(document.warnings)")
                #expect(document.warnings.first?.message.contains("plain text") == true)
            }
        }
        // An unknown inner say-as turns a known outer one off.
        let nested = try read(
            "<speak><say-as interpret-as=\"digits\">1<say-as interpret-as=\"x\">2</say-as>3</say-as></speak>")
        #expect(
            runs(nested.events).map(\.context.sayAs) == [SayAs(interpretAs: .digits), nil, SayAs(interpretAs: .digits)])
    }

    @Test("sub: the alias is spoken and the run covers the whole element")
    func sub() throws {
        let request = "<speak>The <sub alias=\"World Wide Web Consortium\">W3C</sub> says</speak>"
        let document = try read(request)
        #expect(
            document.events
                == sentence(
                    7..<64, text("The ", 7..<11), text("World Wide Web Consortium", 11..<59), text(" says", 59..<64)))
        #expect(slice(request, 11..<59) == "<sub alias=\"World Wide Web Consortium\">W3C</sub>")
        // Any part of the alias points at the whole element.
        let alias = runs(document.events)[1]
        #expect(alias.sourceRange(forTextRange: 6..<10) == 11..<59)
        // The content's elements are not spoken.
        let silent = try events("<speak><sub alias=\"A\">x<break/><mark name=\"m\"/></sub></speak>")
        #expect(silent == sentence(7..<53, text("A", 7..<53)))
    }

    @Test("sub: without alias the content is spoken with a warning; an empty alias is an invalid value")
    func subWithoutAlias() throws {
        let document = try read("<speak><sub>W3C</sub></speak>")
        #expect(document.events == sentence(12..<15, text("W3C", 12..<15)))
        #expect(
            document.warnings.map(\.message) == [
                "<sub> without alias at line 1, column 8: its content is spoken instead"
            ])
        #expect(
            error("<speak><sub alias=\" \">W3C</sub></speak>")
                == .invalidValue(
                    element: "sub", attribute: "alias", value: " ",
                    expected: "the text to speak instead, such as alias=\"World Wide Web Consortium\"", line: 1,
                    column: 8))
        let lenient = try read("<speak><sub alias=\"\">W3C</sub></speak>", lenient: true)
        #expect(lenient.events == sentence(21..<24, text("W3C", 21..<24)))
    }

    @Test("mark: an event with its name and the element's range, between runs")
    func mark() throws {
        let request = "<speak>Go <mark name=\"here\"/>now<mark name=\" two \"></mark></speak>"
        let actual = try events(request)
        #expect(
            actual
                == sentence(
                    7..<32, text("Go ", 7..<10), .mark(name: "here", sourceRange: 10..<29), text("now", 29..<32),
                    .mark(name: "two", sourceRange: 32..<58)))
        let missing = try read("<speak><mark/>x</speak>")
        #expect(missing.events == sentence(14..<15, text("x", 14..<15)))
        #expect(missing.warnings.map(\.message) == ["<mark> without name at line 1, column 8: no marker is made"])
    }

    @Test("voice name and xml:lang on any element set the context; the innermost wins")
    func voiceAndLanguage() throws {
        let request = """
            <speak version="1.1" xml:lang="en-US"><voice name="Kyoko">a<lang xml:lang="ja-JP">b<p xml:lang="fr">c</p>\
            </lang><voice name="Otoya">d</voice></voice>e<s xml:lang="">f</s></speak>
            """
        let contexts = runs(try events(request)).map { ($0.text, $0.context.language, $0.context.voiceName) }
        #expect(contexts.map(\.0) == ["a", "b", "c", "d", "e", "f"])
        #expect(contexts.map(\.1) == ["en-US", "ja-JP", "fr", "en-US", "en-US", nil])
        #expect(contexts.map(\.2) == ["Kyoko", "Kyoko", "Kyoko", "Otoya", nil, nil])
    }

    @Test("an invalid xml:lang is an error; a lang without xml:lang warns")
    func invalidLanguage() throws {
        #expect(
            error("<speak><p xml:lang=\"en US\">x</p></speak>")
                == .invalidValue(
                    element: "p", attribute: "xml:lang", value: "en US",
                    expected: "a language tag such as \"en-US\" or \"ja\"",
                    line: 1, column: 8))
        #expect(
            try read("<speak xml:lang=\"en_US\">x</speak>").events
                == sentence(24..<25, text("x", 24..<25, SpeechContext(language: "en_US"))))
        let document = try read("<speak><lang>x</lang></speak>")
        #expect(
            document.warnings.map(\.message) == [
                "<lang> without xml:lang at line 1, column 8: the language is unchanged"
            ])
        #expect(
            error("<speak><voice name=\"\">x</voice></speak>")?.description.hasPrefix("invalid <voice name=\"\">")
                == true)
    }

    @Test("audio: its content is the fallback")
    func audio() throws {
        let request =
            "<speak>Hi <audio src=\"chime.wav\"><desc>a chime</desc>ding <emphasis>dong</emphasis></audio>!</speak>"
        let actual = try events(request)
        // The audio is a word of the sentence around it; its content, spoken in its place, is not cut into sentences.
        #expect(
            actual
                == sentence(
                    7..<92,
                    text("Hi ", 7..<10),
                    .audio(
                        source: "chime.wav",
                        fallback: [text("ding ", 53..<58), text("dong", 68..<72, SpeechContext(volumeDecibels: 3))],
                        sourceRange: 10..<91),
                    text("!", 91..<92)))
        // Without src, the content is spoken in place, with a warning.
        let document = try read("<speak><audio>ding</audio></speak>")
        #expect(document.events == sentence(14..<18, text("ding", 14..<18)))
        #expect(document.warnings.map(\.message) == ["<audio> without src at line 1, column 8: its content is spoken"])
    }

    @Test("unknown and vendor elements are ignored with their text kept; only unknown plain ones warn")
    func unknownElements() throws {
        let request = """
            <speak xmlns="http://www.w3.org/2001/10/synthesis" xmlns:mstts="http://www.w3.org/2001/mstts">\
            <mstts:express-as style="cheerful">Hi</mstts:express-as> <amazon:effect name="whispered">there</amazon:effect>\
            <brake>!</brake></speak>
            """
        let document = try read(request)
        #expect(runs(document.events).map(\.text) == ["Hi", "there", "!"])
        #expect(runs(document.events).allSatisfy { $0.context == SpeechContext() })
        #expect(document.warnings.count == 1)
        #expect(document.warnings.first?.message.hasPrefix("unknown element <brake> at line 1, column ") == true)
    }

    @Test("phoneme, token and w speak their text; desc, meta, metadata and lexicon do not")
    func speakingAndSilentElements() throws {
        let request = """
            <speak><metadata><rdf>data</rdf></metadata><meta name="a" content="b"/><lexicon uri="x.pls"/>\
            <phoneme alphabet="ipa" ph="təmei̥ɾou">tomato</phoneme> <token>a</token><w>b</w></speak>
            """
        let document = try read(request)
        #expect(runs(document.events).map(\.text) == ["tomato", "a", "b"])
        #expect(document.warnings.isEmpty)
    }

    @Test("a root other than <speak> is an error; lenient reads it as <speak> with a warning")
    func unexpectedRoot() throws {
        #expect(error("<p>Hello</p>") == .unexpectedRoot(element: "p", line: 1, column: 1))
        #expect(
            error("<p>Hello</p>")?.description == "unexpected root element <p> at line 1, column 1: expected <speak>")
        let document = try read("<p>Hello</p>", lenient: true)
        #expect(
            document.events
                == [.structureStart(.paragraph)] + sentence(3..<8, text("Hello", 3..<8))
                + [.structureEnd(.paragraph, sourceRange: 0..<12)])
        #expect(document.warnings.count == 1)
    }

    @Test("attribute values: references decoded, literal tabs and line breaks read as spaces, then trimmed")
    func attributeValues() throws {
        let request = "<speak><mark name=\"a&amp;b&#10;c\td\r\ne\"/><sub alias=\"&lt;&#x1F600;&gt;\">x</sub></speak>"
        let found = try events(request)
        #expect(found.count == 4)
        #expect(found.first == .mark(name: "a&b\nc d e", sourceRange: 7..<40))
        #expect(runs(found).map(\.text) == ["<😀>"])
    }

    @Test("strict mode reports the first invalid value; lenient reports each as a warning")
    func severalInvalidValues() throws {
        let request = "<speak><prosody rate=\"x\">a</prosody><break time=\"y\"/></speak>"
        #expect(error(request)?.column == 8)
        let document = try read(request, lenient: true)
        #expect(document.warnings.map(\.column) == [8, 37])
        #expect(
            document.events == sentence(25..<26, text("a", 25..<26), .pause(frames: 16538, origin: .breakStrength)))
    }
}
