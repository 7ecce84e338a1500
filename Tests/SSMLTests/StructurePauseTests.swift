// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

@Suite("<p> and <s> pauses")
struct StructurePauseTests {
    static let sentencePause = SSMLEvent.pause(frames: 16538, origin: .sentence)
    static let paragraphPause = SSMLEvent.pause(frames: 22050, origin: .paragraph)

    @Test("a sentence adds a medium pause before the next one, with whole-element ranges")
    func sentences() throws {
        #expect(
            try events("<speak><s>Hello</s><s>World</s></speak>") == [
                .structureStart(.sentence), text("Hello", 10..<15), .structureEnd(.sentence, sourceRange: 7..<19),
                Self.sentencePause,
                .structureStart(.sentence), text("World", 22..<27), .structureEnd(.sentence, sourceRange: 19..<31),
            ])
    }

    @Test("no pause at the very end of the request")
    func noTrailingPause() throws {
        #expect(
            try events("<speak><p><s>Hello</s></p></speak>") == [
                .structureStart(.paragraph), .structureStart(.sentence),
                text("Hello", 13..<18), .structureEnd(.sentence, sourceRange: 10..<22),
                .structureEnd(.paragraph, sourceRange: 7..<26),
            ])
    }

    @Test("no pause before any spoken content")
    func noLeadingPause() throws {
        #expect(
            try events("<speak><s></s><p/><s>Hi</s></speak>") == [
                .structureStart(.sentence), .structureEnd(.sentence, sourceRange: 7..<14),
                .structureStart(.paragraph), .structureEnd(.paragraph, sourceRange: 14..<18),
                .structureStart(.sentence), text("Hi", 21..<23), .structureEnd(.sentence, sourceRange: 18..<27),
            ])
    }

    @Test("</s></p><p><s> gives one pause, the paragraph's, after both ends")
    func boundariesMeet() throws {
        let request = "<speak><p><s>A</s></p><p><s>B</s></p></speak>"
        #expect(
            try events(request) == [
                .structureStart(.paragraph), .structureStart(.sentence),
                text("A", 13..<14), .structureEnd(.sentence, sourceRange: 10..<18),
                .structureEnd(.paragraph, sourceRange: 7..<22),
                Self.paragraphPause,
                .structureStart(.paragraph), .structureStart(.sentence),
                text("B", 28..<29), .structureEnd(.sentence, sourceRange: 25..<33),
                .structureEnd(.paragraph, sourceRange: 22..<37),
            ])
    }

    @Test("a paragraph after a sentence: the longer pause wins")
    func longerWins() throws {
        let pauses = try events("<speak><p>A</p><s>B</s><s>C</s></speak>").filter {
            if case .pause = $0 { return true } else { return false }
        }
        #expect(pauses == [Self.paragraphPause, Self.sentencePause])
    }

    @Test("a break as the last thing inside the element replaces the pause")
    func breakInside() throws {
        #expect(
            try events("<speak><s>A<break time=\"100ms\"/></s><s>B</s></speak>") == [
                .structureStart(.sentence), text("A", 10..<11),
                .pause(frames: 2205, origin: .breakElement), .structureEnd(.sentence, sourceRange: 7..<36),
                .structureStart(.sentence), text("B", 39..<40), .structureEnd(.sentence, sourceRange: 36..<44),
            ])
        // Tags and whitespace between the break and the end do not count.
        let nested = try events("<speak><p><s>A<prosody><break/></prosody> </s>\n</p><p>B</p></speak>")
        #expect(nested.filter(\.isPause) == [.pause(frames: 16538, origin: .breakStrength)])
    }

    @Test("a break as the first thing after the element replaces the pause, even one of 0 frames")
    func breakAfter() throws {
        #expect(
            try events("<speak><s>A</s> <mark name=\"m\"/> <break strength=\"none\"/><s>B</s></speak>") == [
                .structureStart(.sentence), text("A", 10..<11), .structureEnd(.sentence, sourceRange: 7..<15),
                .mark(name: "m", sourceRange: 16..<32), .pause(frames: 0, origin: .breakStrength),
                .structureStart(.sentence), text("B", 60..<61), .structureEnd(.sentence, sourceRange: 57..<65),
            ])
        #expect(
            try events("<speak><p>A</p><break time=\"2s\"/>B</speak>").filter(\.isPause) == [
                .pause(frames: 44100, origin: .breakElement)
            ])
    }

    @Test("marks and starts between two sentences follow the pause")
    func markAfterPause() throws {
        #expect(
            try events("<speak><s>A</s><mark name=\"m\"/><s>B</s></speak>") == [
                .structureStart(.sentence), text("A", 10..<11), .structureEnd(.sentence, sourceRange: 7..<15),
                Self.sentencePause, .mark(name: "m", sourceRange: 15..<31),
                .structureStart(.sentence), text("B", 34..<35), .structureEnd(.sentence, sourceRange: 31..<39),
            ])
    }

    @Test("text and audio after a sentence, in a sentence inferred around them, get the pause too")
    func otherContent() throws {
        #expect(
            try events("<speak><s>A</s>B</speak>") == [
                .structureStart(.sentence), text("A", 10..<11), .structureEnd(.sentence, sourceRange: 7..<15),
                Self.sentencePause,
            ] + sentence(15..<16, text("B", 15..<16)))
        #expect(
            try events("<speak><s>A</s><audio src=\"x.wav\"/></speak>") == [
                .structureStart(.sentence), text("A", 10..<11), .structureEnd(.sentence, sourceRange: 7..<15),
                Self.sentencePause,
            ] + sentence(15..<35, .audio(source: "x.wav", fallback: [], sourceRange: 15..<35)))
    }

    @Test("whitespace between paragraphs changes nothing")
    func whitespace() throws {
        let request = "<speak>\n  <p>\n    <s>A</s>\n  </p>\n  <p>B</p>\n</speak>\n"
        let kinds = try events(request).map(\.description)
        #expect(
            kinds == [
                "paragraph start", "sentence start", "text \"A\" 21..<22", "sentence end 18..<26",
                "paragraph end 10..<33", "pause 22050 frames (paragraph)", "paragraph start", "sentence start",
                "text \"B\" 39..<40", "sentence end 39..<40", "paragraph end 36..<44",
            ])
    }

    @Test("an audio element's fallback has pauses of its own, none at its end; the element is a word of its sentence")
    func audioFallback() throws {
        #expect(
            try events("<speak><audio src=\"x.wav\"><s>A</s><s>B</s></audio></speak>")
                == sentence(
                    7..<50,
                    .audio(
                        source: "x.wav",
                        fallback: [
                            .structureStart(.sentence), text("A", 29..<30),
                            .structureEnd(.sentence, sourceRange: 26..<34), Self.sentencePause,
                            .structureStart(.sentence), text("B", 37..<38),
                            .structureEnd(.sentence, sourceRange: 34..<42),
                        ], sourceRange: 7..<50)))
    }

    @Test("the pause follows the sample rate")
    func sampleRate() throws {
        let document = try SSMLReader(sampleRate: 24000).read("<speak><s>A</s><p>B</p></speak>")
        #expect(document.events.filter(\.isPause) == [.pause(frames: 18000, origin: .sentence)])
    }
}

extension SSMLEvent {
    var isPause: Bool {
        if case .pause = self { return true }
        return false
    }
}
