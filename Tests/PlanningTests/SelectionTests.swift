// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing
import Tokens

@testable import Planning

/// A take of clip `id` recorded for `position` (untagged for `nil`).
private func take(
    _ id: Int, _ position: TakePosition? = nil, contour: PitchContour? = nil, edges: TakeEdges? = nil,
    cut: RecordingCut? = nil
) -> ClipTake {
    ClipTake(clipID: id, frameCount: 100, position: position, contour: contour, edges: edges, cut: cut)
}

/// Edges with the given F0 at both ends, at -20 dB, with flat cepstra.
private func edges(first: Double?, last: Double?) -> TakeEdges {
    TakeEdges(
        firstF0Hz: first, lastF0Hz: last, firstEnergyDecibels: -20, lastEnergyDecibels: -20,
        firstCepstrum: Array(repeating: 0, count: 13), lastCepstrum: Array(repeating: 0, count: 13))
}

@Suite struct SelectionTests {
    /// "york" and "leeds" have a take for every position (ids: tens for the word, units for the position);
    /// "and" has one untagged take.
    static var stations: DictionaryLookup {
        DictionaryLookup(takes: [
            "york": [take(21, .initial), take(22, .medial), take(23, .final), take(24, .question)],
            "leeds": [take(11, .initial), take(12, .medial), take(13, .final), take(14, .question)],
            "and": [take(31)],
            "calling at": [take(41, .medial), take(42, .final)],
        ])
    }

    func clips(
        _ request: String, lookup: DictionaryLookup = Self.stations, choice: TakeChoice = .best
    ) throws -> [Int] {
        try plan(request, lookup: lookup, choice: choice).segments.compactMap {
            if case .phrase(let take) = $0.kind { take.clipID } else { nil }
        }
    }

    func plan(_ request: String, lookup: DictionaryLookup = Self.stations, choice: TakeChoice = .best) throws
        -> RenderPlan
    {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-GB"])
        let planner = Planner(
            voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [take(99)])], takeChoice: choice)
        return try planner.plan(SSMLReader().read(request))
    }

    @Test("the sentence's first phrase gets its initial take, the last its final take, the others medial ones")
    func placesInASentence() throws {
        #expect(try clips("<speak><s>York, Leeds and York.</s></speak>") == [21, 12, 31, 23])
        #expect(try clips("<speak><s>Leeds</s><s>Calling at York and Leeds</s></speak>") == [13, 41, 22, 31, 13])
        // With no sentence marked, the request is one sentence.
        #expect(try clips("York and Leeds and York") == [21, 31, 12, 31, 23])
    }

    @Test("a question's last phrase gets its question take; a comma's phrase a medial take")
    func questionsAndCommas() throws {
        #expect(try clips("<speak><s>Leeds and York?</s></speak>") == [11, 31, 24])
        #expect(try clips("<speak><s>Is it Leeds, York or Leeds?!</s></speak>").suffix(1) == [14])
        #expect(try clips("<speak><s>Leeds, York, Leeds.</s></speak>") == [11, 22, 13])
    }

    @Test(
        "a place with no take of its own falls back in the documented order",
        arguments: [
            // A final place: a falling untagged take, then initial or an untagged one, then medial, then question.
            ([take(1, .question), take(2, .medial), take(3, .initial), take(4, contour: .falling)], 4),
            ([take(1, .question), take(2, .medial), take(3, .initial)], 3),
            ([take(1, .question), take(2, .medial)], 2),
            ([take(1, .question), take(2, contour: .rising)], 2),
            ([take(1, contour: .rising), take(2, contour: .level)], 2),
        ])
    func fallbackOrder(takes: [ClipTake], expected: Int) throws {
        #expect(
            try clips("<speak><s>Leeds.</s></speak>", lookup: DictionaryLookup(takes: ["leeds": takes])) == [expected])
    }

    @Test("places follow the punctuation and the sentence, and the end wins over the start")
    func places() {
        #expect(PhrasePlace(isFirst: true, isLast: true, punctuation: nil) == .final)
        #expect(PhrasePlace(isFirst: true, isLast: true, punctuation: .question) == .question)
        #expect(PhrasePlace(isFirst: true, isLast: false, punctuation: .comma) == .initial)
        #expect(PhrasePlace(isFirst: false, isLast: false, punctuation: .comma) == .beforeComma)
        #expect(PhrasePlace(isFirst: false, isLast: false, punctuation: .fullStop) == .medial)
        #expect(PhrasePlace(isFirst: false, isLast: true, punctuation: .exclamation) == .final)
    }

    @Test("takes cut one after the other from one recording are chosen together")
    func consecutiveCuts() throws {
        // On their features alone, 2 then 4 join best (the same F0); 1 and 3 jump seven semitones but were cut one
        // right after the other, so they join at no cost.
        let recording: Int64 = 7
        let lookup = DictionaryLookup(takes: [
            "good": [
                take(
                    1, edges: edges(first: 200, last: 100),
                    cut: RecordingCut(recording: recording, startFrame: 0, endFrame: 900)),
                take(2, edges: edges(first: 200, last: 200)),
            ],
            "morning": [
                take(
                    3, edges: edges(first: 150, last: 200),
                    cut: RecordingCut(recording: recording, startFrame: 900, endFrame: 2_000)),
                take(4, edges: edges(first: 200, last: 200)),
            ],
        ])
        #expect(try clips("good morning", lookup: lookup) == [1, 3])
        // Cut from the same recording, but not one right after the other: the smooth join wins.
        var apart = lookup
        apart.takesByKey["morning"]![0].cut = RecordingCut(recording: recording, startFrame: 1_000, endFrame: 2_000)
        #expect(try clips("good morning", lookup: apart) == [2, 4])
    }

    @Test("among takes of one place, the one whose F0 meets its neighbour's wins")
    func pitchJoins() throws {
        let lookup = DictionaryLookup(takes: [
            "good": [take(1, edges: edges(first: 120, last: 120))],
            "morning": [
                take(2, edges: edges(first: 180, last: 100)),
                take(3, edges: edges(first: 121, last: 100)),
            ],
        ])
        #expect(try clips("good morning", lookup: lookup) == [1, 3])
        let plan = try plan("good morning", lookup: lookup)
        let selection = try #require(plan.segments.last { $0.take != nil }?.segment.selection)
        #expect(selection.place == .final && selection.takeCount == 2)
        // 0.1 a semitone: 120 Hz to 121 Hz is 0.14 semitones.
        #expect(abs(try #require(selection.joinCost) - 0.1 * Prosody.semitones(from: 120, to: 121)) < 1e-9)
        #expect(
            plan.description.contains(
                #"phrase #3 "morning" 100 frames (com.example.ann) [place final, 1 of 2 takes, target 0.50, join 0.01]"#
            ))
    }

    @Test("a silence between two phrases means they do not join")
    func silenceBreaksJoins() throws {
        let lookup = DictionaryLookup(takes: [
            "good": [take(1, edges: edges(first: 120, last: 120))],
            "morning": [take(2, edges: edges(first: 240, last: 100)), take(3, edges: edges(first: 120, last: 100))],
        ])
        let plan = try plan(#"<speak>good <break time="100ms"/> morning</speak>"#, lookup: lookup)
        #expect(plan.segments.last { $0.take != nil }?.selection?.joinCost == nil)
        #expect(
            plan.segments.compactMap { if case .phrase(let take) = $0.kind { take.clipID } else { nil } } == [1, 2])
    }

    @Test("the same request chooses the same takes every time, and equal costs choose the first take")
    func deterministic() throws {
        let lookup = DictionaryLookup(takes: ["no": [take(1), take(2), take(3)]])
        #expect(try clips("no no no no", lookup: lookup) == [1, 1, 1, 1])
        let request = "<speak><s>York, Leeds and York.</s><s>Leeds and York?</s> York and Leeds</speak>"
        #expect(try plan(request) == plan(request))
        // Rotation is still there for variety, and reports the costs of what it plays.
        #expect(try clips("no no no no", lookup: lookup, choice: .rotate) == [1, 2, 3, 1])
        #expect(
            try plan("York and Leeds", choice: .rotate).segments.last { $0.take != nil }?.selection?.place == .final)
    }

    @Test("a long sentence is chosen a few phrases at a time, its last phrase still final")
    func longSentence() throws {
        let phraseCount = TakeChooser.selectionLookahead * 20 + 5
        let request = Array(repeating: "Leeds", count: phraseCount).joined(separator: " ") + "."
        let chosen = try clips(request)
        #expect(chosen.count == phraseCount)
        #expect(chosen == [11] + Array(repeating: 12, count: phraseCount - 2) + [13])
    }

    @Test("a phrase's take is chosen once the few phrases after it are planned, not at the sentence's end")
    func firstPhraseBeforeTheSentenceEnds() throws {
        let words = Array(repeating: "York and Leeds and", count: 50).joined(separator: " ") + " York."
        var remaining = Array(words.utf8)[...]
        let text = PlainTextStream(source: "test input", start: [], pieceBytes: 16) {
            defer { remaining = remaining.dropFirst(16) }
            return Array(remaining.prefix(16))
        }
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-GB"])
        let planner = Planner(voices: [PlannerVoice(voice: voice, lookup: Self.stations, fallbacks: [take(99)])])
        let stream = planner.stream(text, context: SpeechContext(), isLenient: false)
        var segments: [TimedSegment] = []
        while segments.last?.segment.take == nil, let next = try stream.nextSegment() { segments.append(next) }
        #expect(segments.last?.segment.take?.clipID == 21)
        // What was read: the first phrase, the lookahead after it, and the longest phrase the matcher may try.
        #expect(words.utf8.count - remaining.count < 200)
        while let next = try stream.nextSegment() { segments.append(next) }
        #expect(segments.compactMap { $0.segment.take?.clipID }.last == 23)
    }

    @Test("punctuation after an element's end, or at the start of a text's next piece, follows the phrase before")
    func punctuationAfterAnElement() throws {
        #expect(try clips("<speak><s>Calling at <sub alias=\"York\">YRK</sub>?</s></speak>") == [41, 24])
        #expect(try clips("<speak><s>Calling at York<break time=\"200ms\"/>?</s></speak>") == [41, 24])
        #expect(try clips("<speak><s>Calling at York <mark name=\"m\"/>?</s> Leeds</speak>") == [41, 24, 13])
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-GB"])
        let planner = Planner(voices: [PlannerVoice(voice: voice, lookup: Self.stations, fallbacks: [take(99)])])
        for windowBytes in 1...4 {
            let events = try SSMLReader().events("Leeds and York ?")
            let plan = try PlanStream(planner: planner, warnings: [], textWindowBytes: windowBytes) {
                try events.next()
            }.collect()
            #expect(plan.segments.compactMap { $0.take?.clipID } == [11, 31, 24], "window of \(windowBytes) bytes")
        }
    }

    @Test("a phrase with thousands of takes is weighed on its cheapest few")
    func candidateLimit() throws {
        var takes = (1...5_000).map { take($0, .medial) }
        takes.append(take(9_999, .final))
        #expect(try clips("Leeds", lookup: DictionaryLookup(takes: ["leeds": takes])) == [9_999])
    }
}
