// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Units

@Suite struct UnitIndexTests {
    static let takes = [
        AlignedTakes.take(
            1, [("well", ["W", "EH", "L"]), ("good", ["G", "UH", "D"]), ("evening", ["IY", "V", "N", "IH", "NG"])],
            pausesAfter: [0]),
        AlignedTakes.take(2, [("good", ["G", "UH", "D"]), ("night", ["N", "AY", "T"])]),
    ]

    @Test("finds the longest run of words one take says, cut at its words' frames")
    func spans() throws {
        let index = UnitIndex(takes: Self.takes)
        let span = try #require(index.longestSpan(of: ["good", "evening", "friends"], from: 0))
        #expect(span.take == 0 && span.word == 1 && span.count == 2)
        #expect(index.frames(ofWords: 1..<3, inTake: 0) == 9_000..<17_000)
        #expect(index.longestSpan(of: ["friends"], from: 0) == nil)
    }

    @Test("among takes that say a word, prefers the one whose place in its phrase fits")
    func place() throws {
        let index = UnitIndex(takes: Self.takes)
        // "good" starts take 2 and is inside take 1: a run that starts its sentence takes it from take 2.
        #expect(index.longestSpan(of: ["good"], from: 0, startsSentence: true)?.take == 1)
        #expect(index.longestSpan(of: ["good"], from: 0, startsSentence: false)?.take == 0)
    }

    @Test("every phone-pair inside a take is a unit, with the take's edges and pauses as #")
    func pairs() {
        let index = UnitIndex(takes: Self.takes)
        #expect(index.units(ofPair: "G-UH").map(\.take) == [0, 1])
        #expect(index.units(ofPair: "D-IY").map { [$0.take, $0.phone] } == [[0, 5]])
        #expect(index.hasPair("#-W") && index.hasPair("L-#") && index.hasPair("#-G") && index.hasPair("NG-#"))
        // The pause after "well" parts L from G.
        #expect(!index.hasPair("L-G"))
        #expect(index.units(ofPair: "T-#").map { [$0.take, $0.phone] } == [[1, 5]])
    }

    @Test("a take with a phone of no word, or an empty segment, gives no units")
    func broken() {
        var broken = AlignedTakes.take(3, [("night", ["N", "AY", "T"])])
        broken.phones[1].word = 4
        let index = UnitIndex(takes: [broken])
        #expect(index.takes.isEmpty && index.places(ofWord: "night").isEmpty && !index.hasPair("N-AY"))
    }

    @Test("vowels take their stress from the front end where its phones agree with the aligner's")
    func stress() throws {
        final class Takes: UnitLookup {
            func alignedTakes() throws -> [AlignedTake] { UnitIndexTests.takes }
            func audio(clipID: Int) throws -> AlignedTake.Audio { .init(levelDecibels: 0, wholeFrameCount: 0) }
        }
        final class Phonemes: PhonemeSource {
            func mnemonics(_ text: String, language: String) throws(FrontEndError) -> String {
                // "night" as N AY alone: its phones do not agree with the aligner's N AY T.
                ["good night": "g.'U.d n.'aI"][text] ?? ""
            }
        }
        let units = UnitVoice(lookup: Takes(), audio: MemoryClips([:]), frontEnd: EnglishFrontEnd(source: Phonemes()))
        let index = try units.index()
        #expect((0..<6).map { units.stress(take: 1, phone: $0, in: index) } == [nil, 1, nil, nil, nil, nil])
    }
}
