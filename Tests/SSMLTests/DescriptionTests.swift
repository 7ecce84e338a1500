// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

@Suite("Descriptions")
struct DescriptionTests {
    @Test("each event reads as one line")
    func events() {
        let context = SpeechContext(
            volumeDecibels: -1, rate: 4, pitchSemitones: 2, sayAs: SayAs(interpretAs: .date, format: "mdy"),
            language: "ja", voiceName: "Kyoko")
        let cases: [(SSMLEvent, String)] = [
            (text("Hello\nworld", 7..<18), #"text "Hello\nworld" 7..<18"#),
            (
                text("設定", 46..<48, context),
                #"text "設定" 46..<48 (volume -1.0 dB, rate 4.0, pitch +2.0st, say-as date format mdy, lang ja, voice Kyoko)"#
            ),
            (.pause(frames: 3925, origin: .breakElement), "pause 3925 frames (break)"),
            (.pause(frames: 16538, origin: .sentence), "pause 16538 frames (sentence)"),
            (.pause(frames: 22050, origin: .paragraph), "pause 22050 frames (paragraph)"),
            (.mark(name: "intro", sourceRange: 3..<24), #"mark "intro" 3..<24"#),
            (.structureStart(.sentence), "sentence start"),
            (.structureEnd(.paragraph, sourceRange: 7..<19), "paragraph end 7..<19"),
            (
                .audio(source: "chime.wav", fallback: [text("ding", 30..<34)], sourceRange: 7..<42),
                #"audio "chime.wav" 7..<42 fallback [text "ding" 30..<34]"#
            ),
        ]
        for (event, description) in cases {
            #expect(event.description == description)
            #expect(!event.description.contains("\n"))
        }
        #expect(SpeechContext(volumeDecibels: -.infinity).description == "volume -inf dB")
        #expect(Pitch.hertz(200).description == "200.0Hz")
        #expect(Pitch.percent(-10).description == "-10.0%")
        #expect(Pitch.label(.xHigh).description == "x-high")
    }

    @Test("a document reads one event per line, then its warnings")
    func document() throws {
        let document = try read(
            "<speak><s>Hello</s><say-as interpret-as=\"currency\">5</say-as><break time=\"1s\"/></speak>")
        #expect(
            document.description == """
                sentence start
                text "Hello" 10..<15
                sentence end 7..<19
                pause 16538 frames (sentence)
                sentence start
                text "5" 51..<52
                pause 22050 frames (break)
                sentence end 51..<52
                warning: unknown <say-as interpret-as="currency"> at line 1, column 20: its content is spoken as plain \
                text (known: characters, spell-out, digits, telephone, cardinal, number, ordinal, date, time)
                """)
        #expect(SSMLDocument().description == "(no events)")
    }

    @Test("every error reads as one sentence on one line")
    func errors() {
        let errors: [(SSMLError, String)] = [
            (
                .invalidValue(
                    element: "break", attribute: "time", value: "fast",
                    expected: "a duration such as \"250ms\" or \"1.5s\" (0 to 600 s)", line: 3, column: 12),
                #"invalid <break time="fast"> at line 3, column 12: expected a duration such as "250ms" or "1.5s" (0 to 600 s)"#
            ),
            (
                .malformed(expected: "</prosody>", found: "</speak>", line: 2, column: 7),
                "malformed SSML at line 2, column 7: expected </prosody> but found </speak>"
            ),
            (
                .unexpectedRoot(element: "p", line: 1, column: 1),
                "unexpected root element <p> at line 1, column 1: expected <speak>"
            ),
        ]
        for (error, description) in errors {
            #expect(error.description == description)
            #expect(!error.description.contains("\n"))
        }
        #expect(SSMLError.entityRefused(name: "xxe", line: 4, column: 2).line == 4)
        #expect(SSMLError.doctypeRefused(line: 4, column: 2).column == 2)
    }
}
