// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Testing

@testable import SSML

/// The text of each sentence of `request` (explicit or inferred), as the source ranges of their ends give it.
func sentences(_ request: String, lenient: Bool = false) throws -> [String] {
    try sentences(of: read(request, lenient: lenient).events, in: request)
}

/// The text of each sentence end among `events`, sliced out of `request`.
func sentences(of events: [SSMLEvent], in request: String) -> [String] {
    events.compactMap { event in
        guard case .structureEnd(.sentence, let range) = event else { return nil }
        return slice(request, range)
    }
}

/// The events that are not text, and the words of the runs between them: what two readings of the same text must
/// agree on however their runs are cut.
func structure(_ events: [SSMLEvent]) -> [String] {
    var lines: [String] = []
    var text = ""
    func endText() {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if !words.isEmpty { lines.append("text \(words.debugDescription)") }
        text = ""
    }
    for event in events {
        if case .text(let run) = event {
            text += run.text + " "
            continue
        }
        endText()
        lines.append(event.description)
    }
    endText()
    return lines
}

/// Texts and the sentences the rule finds in them: the abbreviation, number and Japanese cases of docs/speaking.md.
let sentenceTable: [(String, [String])] = [
    ("Good morning. Double tap to open.", ["Good morning.", "Double tap to open."]),
    ("Mr. Smith went to Washington. He came back.", ["Mr. Smith went to Washington.", "He came back."]),
    ("Mrs. Jones, Ms. Lee and Dr. Brown met Prof. Green.", ["Mrs. Jones, Ms. Lee and Dr. Brown met Prof. Green."]),
    ("St. Mary's is near Mt. Hood. Go there.", ["St. Mary's is near Mt. Hood.", "Go there."]),
    ("Sammy Davis Jr. sang. Sr. Agnes listened.", ["Sammy Davis Jr. sang.", "Sr. Agnes listened."]),
    ("Cats vs. Dogs is on. Watch it.", ["Cats vs. Dogs is on.", "Watch it."]),
    ("Bring pens, paper, etc. Then come.", ["Bring pens, paper, etc. Then come."]),
    ("We need pens, paper, etc.", ["We need pens, paper, etc."]),
    ("Use a tool, e.g. A hammer. Or i.e. Not that.", ["Use a tool, e.g. A hammer.", "Or i.e. Not that."]),
    ("It opens at 9 a.m. and shuts at 5 p.m. Every day.", ["It opens at 9 a.m. and shuts at 5 p.m. Every day."]),
    ("No. 5 is open. No. Thanks.", ["No. 5 is open.", "No.", "Thanks."]),
    (
        "Acme Inc. and Foo Ltd. merged with Bar Co. today. Great.",
        [
            "Acme Inc. and Foo Ltd. merged with Bar Co. today.", "Great.",
        ]
    ),
    ("She lives in the U.S. now. Really.", ["She lives in the U.S. now.", "Really."]),
    ("J. R. R. Tolkien wrote it. Read it.", ["J. R. R. Tolkien wrote it.", "Read it."]),
    ("So do I. Then we left.", ["So do I.", "Then we left."]),
    ("Pi is 3.14 and the version is 1.2.3. Update now.", ["Pi is 3.14 and the version is 1.2.3.", "Update now."]),
    ("Meet at 3:30. Be on time.", ["Meet at 3:30.", "Be on time."]),
    ("Open readme.txt or example.com. Then close.", ["Open readme.txt or example.com.", "Then close."]),
    ("Wait… what? No! Really?! Yes.", ["Wait… what?", "No!", "Really?!", "Yes."]),
    ("Well... Let's go. Hmm... maybe not.", ["Well...", "Let's go.", "Hmm... maybe not."]),
    ("It costs 5. 3 people came.", ["It costs 5. 3 people came."]),
    ("\"Stop!\" she said. \"Go.\" (Then he left.) Bye", ["\"Stop!\" she said.", "\"Go.\"", "(Then he left.)", "Bye"]),
    ("He said “yes.” Then he left.", ["He said “yes.”", "Then he left."]),
    ("!!! Hello. ... Bye.", ["!!! Hello.", "... Bye."]),
    ("Hello.\nWorld.", ["Hello.", "World."]),
    ("Hello world", ["Hello world"]),
    ("設定を開きます。ダブルタップします。", ["設定を開きます。", "ダブルタップします。"]),
    ("「開く」。次へ！本当？", ["「開く」。", "次へ！", "本当？"]),
    ("バージョン3.5です。 OK。Next.", ["バージョン3.5です。", "OK。", "Next."]),
]

/// Plain text, and SSML text that no `<s>` holds, is cut into sentences at its punctuation, each with the events and
/// the pause of an explicit `<s>`.
@Suite struct InferredSentenceTests {
    static let sentencePause = SSMLEvent.pause(frames: 16538, origin: .sentence)

    @Test("plain text: two sentences with the <s> pause between, each range from its first to its last character")
    func plainText() throws {
        #expect(
            try events("Good morning. Double tap to open.") == [
                .structureStart(.sentence), text("Good morning.", 0..<13),
                .structureEnd(.sentence, sourceRange: 0..<13),
                Self.sentencePause,
                .structureStart(.sentence), text("Double tap to open.", 14..<33),
                .structureEnd(.sentence, sourceRange: 14..<33),
            ])
        // The same sentences written as <s>: the same events but for where they are in the request.
        let explicit = try events("<speak><s>Good morning.</s> <s>Double tap to open.</s></speak>")
        #expect(
            structure(try events("Good morning. Double tap to open.")).map(Self.withoutRanges)
                == structure(explicit).map(Self.withoutRanges))
    }

    /// An event's line with its source range left out.
    static func withoutRanges(_ line: String) -> String {
        line.replacing(/\ \d+\.\.<\d+/, with: "")
    }

    @Test("abbreviations, numbers, initials, ellipses, closers and Japanese", arguments: sentenceTable)
    func table(text: String, expected: [String]) throws {
        #expect(try sentences(text) == expected)
        // In SSML, outside any <s>, the same.
        #expect(try sentences("<speak>" + text + "</speak>") == expected)
    }

    @Test("the sentences of a Japanese text end at 。 with no space after it")
    func japanese() throws {
        let request = "設定を開きます。ダブルタップします。"
        #expect(
            try events(request) == [
                .structureStart(.sentence), text("設定を開きます。", 0..<8), .structureEnd(.sentence, sourceRange: 0..<8),
                Self.sentencePause,
                .structureStart(.sentence), text("ダブルタップします。", 8..<18),
                .structureEnd(.sentence, sourceRange: 8..<18),
            ])
    }

    @Test("sentence ranges leave out the white space around and between sentences")
    func ranges() throws {
        let request = "  Good morning.\n\n  Double tap to open.  "
        let ends = try events(request).compactMap { event -> Range<Int>? in
            if case .structureEnd(_, let range) = event { return range } else { return nil }
        }
        #expect(ends == [2..<15, 19..<38])
        #expect(ends.map { slice(request, $0) } == ["Good morning.", "Double tap to open."])
    }

    @Test("explicit <s> and bare text together: bare text is inferred, an <s> is never cut, and <s> ends what is open")
    func mixed() throws {
        let request = #"<speak>Hello. <s>Good morning. Again.</s> Bye <break time="100ms"/> now. See you</speak>"#
        #expect(
            try events(request) == [
                .structureStart(.sentence), text("Hello.", 7..<13), .structureEnd(.sentence, sourceRange: 7..<13),
                Self.sentencePause,
                .structureStart(.sentence), text("Good morning. Again.", 17..<37),
                .structureEnd(.sentence, sourceRange: 14..<41),
                Self.sentencePause,
                .structureStart(.sentence), text("Bye ", 42..<46), .pause(frames: 2205, origin: .breakElement),
                text(" now.", 67..<72), .structureEnd(.sentence, sourceRange: 42..<72),
                Self.sentencePause,
                .structureStart(.sentence), text("See you", 73..<80), .structureEnd(.sentence, sourceRange: 73..<80),
            ])
        #expect(
            try sentences("<speak><s>One. Two.</s> Three. <s>Four</s></speak>") == [
                "<s>One. Two.</s>", "Three.", "<s>Four</s>",
            ])
    }

    @Test("markup between words is white space: a sentence ends across an element's end and before a break")
    func markup() throws {
        #expect(try sentences("<speak><emphasis>Stop.</emphasis> Go.</speak>") == ["Stop.", "Go."])
        // A break at the boundary is the pause, as for <s>: no sentence pause is added.
        let broken = try events(#"<speak>Hello.<break time="1s"/>World.</speak>"#)
        #expect(sentences(of: broken, in: #"<speak>Hello.<break time="1s"/>World.</speak>"#) == ["Hello.", "World."])
        #expect(broken.filter(\.isPause) == [.pause(frames: 22050, origin: .breakElement)])
        let japanese = #"<speak>設定。<break time="1s"/>次</speak>"#
        #expect(try sentences(japanese) == ["設定。", "次"])
        #expect(try events(japanese).filter(\.isPause) == [.pause(frames: 22050, origin: .breakElement)])
        // A mark between two sentences stays with the first; the next starts at its first word.
        #expect(
            try events(#"<speak>Hi.<mark name="m"/> Bye.</speak>"#) == [
                .structureStart(.sentence), text("Hi.", 7..<10), .mark(name: "m", sourceRange: 10..<26),
                .structureEnd(.sentence, sourceRange: 7..<10), Self.sentencePause,
                .structureStart(.sentence), text("Bye.", 27..<31), .structureEnd(.sentence, sourceRange: 27..<31),
            ])
    }

    @Test("<p> ends an inferred sentence; where a paragraph ends too, its longer pause alone is made")
    func paragraphs() throws {
        let request = "<speak><p>One. Two</p><p>Three</p></speak>"
        #expect(try sentences(request) == ["One.", "Two", "Three"])
        #expect(
            try events(request).filter(\.isPause) == [
                Self.sentencePause, .pause(frames: 22050, origin: .paragraph),
            ])
    }

    @Test("say-as, sub and audio are words of a sentence that are never cut")
    func words() throws {
        let spelled = #"<speak><say-as interpret-as="characters">a. B</say-as> is spelled. Next.</speak>"#
        #expect(try sentences(spelled) == [#"a. B</say-as> is spelled."#, "Next."])
        let sub = #"<speak>Hi <sub alias="Doctor">Dr.</sub> Who. Yes.</speak>"#
        #expect(try sentences(sub) == [#"Hi <sub alias="Doctor">Dr.</sub> Who."#, "Yes."])
        let audio = #"<speak><audio src="x.wav">Ding. Dong.</audio> Hello. Bye.</speak>"#
        #expect(try sentences(audio) == [#"<audio src="x.wav">Ding. Dong.</audio> Hello."#, "Bye."])
        // The whole request spelled, as speech-dispatcher's spelling mode asks: one sentence.
        let document = SSMLReader().events(plainText: "A. B. C.", spelling: true)
        var spelledEvents: [SSMLEvent] = []
        while let event = try document.next() { spelledEvents.append(event) }
        #expect(sentences(of: spelledEvents, in: "A. B. C.") == ["A. B. C."])
    }

    @Test("a malformed request read leniently is cut into sentences, with ranges in the request")
    func lenient() throws {
        let request = "<speak>Hello. <b>World. Bye</speak>"
        #expect(try sentences(request, lenient: true) == ["Hello.", "World.", "Bye"])
    }

    @Test("plain text read a piece at a time has the sentences of the whole text", arguments: 1...12)
    func streamed(pieceBytes: Int) throws {
        let text = sentenceTable.map(\.0).joined(separator: " ") + " " + "Mr. Smith. "
        let whole = try read(text).events
        let stream = streamOf(text, pieceBytes: pieceBytes, readSize: 3)
        var streamed: [SSMLEvent] = []
        while let event = try stream.nextEvent(context: SpeechContext(), isLenient: false) { streamed.append(event) }
        #expect(structure(streamed) == structure(whole))
        #expect(sentences(of: streamed, in: text) == sentences(of: whole, in: text))
        #expect(sentences(of: whole, in: text).count > sentenceTable.count)
    }

    @Test("a text longer than the windows a run is read in: the same sentences as read in tiny pieces")
    func longText() throws {
        let text = String(repeating: "Good morning Mr. Smith, it is 3.5 degrees. 設定を開きます。", count: 500)
        let whole = try read(text).events
        #expect(sentences(of: whole, in: text).count == 1_000)
        let stream = streamOf(text, pieceBytes: 5, readSize: 7)
        var streamed: [SSMLEvent] = []
        while let event = try stream.nextEvent(context: SpeechContext(), isLenient: false) { streamed.append(event) }
        #expect(structure(streamed) == structure(whole))
        // Read whole, the run is read in windows: a sentence across a window's end is two runs, the first going on
        // into the second.
        let runs = runs(whole)
        #expect(text.utf8.count > 3 * SentenceInference.windowBytes)
        #expect(runs.count > 1_000)
        #expect(runs.contains { $0.isContinued })
        for (run, next) in zip(runs, runs.dropFirst()) where run.isContinued {
            #expect(run.sourceRange.upperBound <= next.sourceRange.lowerBound)
        }
    }

    /// A stream over `text`, handed over `readSize` bytes at a time and cut into pieces of about `pieceBytes`.
    func streamOf(_ text: String, pieceBytes: Int, readSize: Int) -> PlainTextStream {
        var remaining = Array(text.utf8)[...]
        return PlainTextStream(source: "test input", start: [], pieceBytes: pieceBytes) {
            defer { remaining = remaining.dropFirst(readSize) }
            return Array(remaining.prefix(readSize))
        }
    }
}
