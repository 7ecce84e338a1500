// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

/// A long run is read into tokens a window at a time, and a long text may come as several runs that go on
/// from each other: either way the plan is the one that matching all its tokens at once makes.
@Suite struct TextWindowTests {
    let lookup = DictionaryLookup([
        "good": [1], "morning": [2], "good morning": [3], "good morning everyone": [4], "nice to meet you": [5],
        "設": [6], "設 定": [7], "it's": [8], "one": [11], "two": [12], "twenty": [13],
    ])
    let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])

    var planner: Planner<DictionaryLookup> {
        Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: [ClipTake(clipID: 99, frameCount: 50)])
        ])
    }

    let text = """
        Good morning everyone, nice to meet you. Good
        morning! It's 22 o'clock, good morning\tevery one; 設定 and good morning everyone again and again 設
        """

    /// The plan of `events` with text read `windowBytes` at a time, one line per segment.
    func plan(_ events: [SSMLEvent], windowBytes: Int) throws -> [String] {
        var remaining = events.makeIterator()
        let stream = PlanStream(planner: planner, warnings: [], textWindowBytes: windowBytes) { remaining.next() }
        return try stream.collect().segments.map { "\($0.kind) \($0.text) \($0.sourceRange ?? 0..<0) @\($0.frame)" }
    }

    @Test("every window size gives the plan of the whole run, phrases across the cuts included", arguments: 1...24)
    func windows(windowBytes: Int) throws {
        let run = TextRun(text: text, sourceRange: 7..<(7 + text.utf16.count))
        let whole = try plan([.text(run)], windowBytes: 1 << 20)
        #expect(whole.contains { $0.contains("good morning everyone") })
        #expect(try plan([.text(run)], windowBytes: windowBytes) == whole)
    }

    @Test("runs that go on from each other match as one run", arguments: [1, 5, 13, 40])
    func continuedRuns(pieceLength: Int) throws {
        let whole = try plan([.text(TextRun(text: text, sourceRange: 0..<text.utf16.count))], windowBytes: 8)
        // Cut after a space and before an ASCII character, as a reader of a pipe cuts, every `pieceLength`
        // characters or so.
        var cuts = [text.startIndex]
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index].isWhitespace, next < text.endIndex, text[next].isASCII,
                text.distance(from: cuts[cuts.count - 1], to: next) >= pieceLength
            {
                cuts.append(next)
            }
            index = next
        }
        cuts.append(text.endIndex)
        var pieces: [SSMLEvent] = []
        var offset = 0
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            let piece = String(text[start..<end])
            let length = piece.utf16.count
            pieces.append(
                .text(TextRun(text: piece, sourceRange: offset..<offset + length, isContinued: end < text.endIndex)))
            offset += length
        }
        #expect(pieces.count > 1)
        #expect(try plan(pieces, windowBytes: 8) == whole)
    }

    @Test("a run that is continued ends where the next event is not text, and at the end of the request")
    func continuedRunEnds() throws {
        let events: [SSMLEvent] = [
            .text(TextRun(text: "good ", sourceRange: 0..<5, isContinued: true)),
            .pause(frames: 10, origin: .breakElement),
            .text(TextRun(text: "morning ", sourceRange: 5..<13, isContinued: true)),
        ]
        let planned = try plan(events, windowBytes: 4)
        #expect(
            planned == [
                "phrase(#1) good 0..<4 @0", "silence  0..<0 @100", "phrase(#2) morning 5..<12 @110",
            ])
    }
}

/// The text window stage alone: how it starts a run.
@Suite struct TextWindowsStageTests {
    let windows: TextWindows = {
        let warnings = PlanWarnings()
        let voices = VoiceSwitching(
            voices: [VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"])], startingVoice: 0,
            warnings: warnings)
        return TextWindows(windowBytes: 6, voices: voices, warnings: warnings)
    }()

    @Test("a run is read a window at a time, cut where a word ends, with its places in the request")
    func window() {
        var cursor = windows.start(TextRun(text: "good morning everyone", sourceRange: 10..<31))
        #expect(cursor.window.isEmpty && cursor.hasMoreText)
        // Six bytes reach into "morning", and the cut waits for the word's end.
        var reads = [cursor.readMoreText()]
        #expect(cursor.window.map(\.text) == ["good", "morning"])
        reads.append(cursor.readMoreText())
        #expect(cursor.window.map(\.text) == ["good", "morning", "everyone"])
        #expect(cursor.window.map(\.sourceRange) == [10..<14, 15..<22, 23..<31])
        reads.append(cursor.readMoreText())
        #expect(reads == [true, true, false])
    }

    @Test("a say-as number is read whole, as the words of its voice's language, each pointing at the digits")
    func sayAs() {
        var context = SpeechContext()
        context.sayAs = SayAs(interpretAs: .cardinal)
        let cursor = windows.start(TextRun(text: "21", sourceRange: 4..<6, context: context))
        #expect(cursor.window.map(\.text) == ["twenty", "one"])
        #expect(cursor.window.map(\.sourceRange) == [4..<6, 4..<6])
        #expect(!cursor.hasMoreText)
    }
}
