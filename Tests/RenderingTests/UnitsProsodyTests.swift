// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering
@testable import Units

#if canImport(Glibc)
    import Glibc
#endif

/// Joins cut at pitch marks and F0 brought to the sentence's contour, with takes whose phones are all one 100 Hz tone
/// (so that the takes' own F0 is flat) and whose pitch marks are the tone's peaks.
@Suite struct UnitsProsodyTests {
    static let takes = UnitsFallbackTests.takes
    let clips = MemoryClips(
        Dictionary(uniqueKeysWithValues: Self.takes.map { ($0.clipID, AlignedTakes.samples(of: $0, frequencies: [:])) })
    )

    /// The tone's peaks: one frame a period, as import's pitch marks are.
    static func peaks(_ samples: [Float]) -> [Int] {
        samples.indices.dropFirst().dropLast().filter {
            samples[$0] > 0.2 && samples[$0] > samples[$0 - 1] && samples[$0] >= samples[$0 + 1]
        }
    }

    final class MarkedTakes: UnitLookup {
        let clips: MemoryClips
        init(_ clips: MemoryClips) { self.clips = clips }
        func alignedTakes() throws -> [AlignedTake] { UnitsProsodyTests.takes }
        func audio(clipID: Int) throws -> AlignedTake.Audio {
            .init(levelDecibels: 0, wholeFrameCount: clips.samples[clipID]!.count)
        }
        func pitchMarks(clipID: Int) throws -> [Int] { UnitsProsodyTests.peaks(clips.samples[clipID]!) }
    }

    func units(_ prosody: UnitProsody = .shaped) -> UnitVoice {
        UnitVoice(
            lookup: MarkedTakes(clips), audio: clips, frontEnd: EnglishFrontEnd(source: UnitsFallbackTests.phonemes),
            prosody: prosody)
    }

    func planner(_ prosody: UnitProsody = .shaped) -> Planner<DictionaryLookup> {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .units)
        return Planner(voices: [
            PlannerVoice(
                voice: voice, lookup: DictionaryLookup(takes: [:]), fallbacks: [], fallbackSpeaker: ToneVoice(),
                units: units(prosody))
        ])
    }

    /// The samples of the one unit-built word a request speaks.
    func word(_ request: String, _ prosody: UnitProsody = .shaped) throws -> [Float] {
        let plan = try planner(prosody).plan(SSMLReader().read(request))
        let spoken = plan.segments.filter { $0.segment.isClip }
        try #require(spoken.count == 1)
        guard case .synthesized(let speech) = spoken[0].kind else {
            Issue.record("expected units, got \(spoken[0].kind)")
            return []
        }
        return speech.samples
    }

    /// F0 in Hz over the last `frames` of `samples` that hold a tone, from the spacing of its peaks.
    static func endFrequency(_ samples: [Float], frames: Int = 900) throws -> Double {
        let voiced = try #require(samples.lastIndex { abs($0) > 0.2 })
        let peaks = Self.peaks(Array(samples[(voiced - frames)...voiced]))
        try #require(peaks.count >= 3)
        return 22_050 * Double(peaks.count - 1) / Double(peaks.last! - peaks.first!)
    }

    @Test("a join is cut at the earlier piece's pitch mark, and the later piece starts at one of its own")
    func cutOnMark() throws {
        let units = units()
        let index = try units.index()
        // T-AY from "time" (take 2), AY-D from "ride" (take 3): their AY meet in the middle of the vowel.
        let choice = UnitChoice(
            pieces: [
                .init(take: 1, frames: 5_000..<6_500, unitCount: 2),
                .init(take: 2, frames: 3_500..<5_000, unitCount: 2),
            ], cost: 0)
        let word = try units.join(choice, in: index)
        let recorded = try self.units(.asRecorded).join(choice, in: index)
        let firstMarks = Self.peaks(clips.samples[2]!)
        let end = try #require(firstMarks.min { abs($0 - 6_500) < abs($1 - 6_500) })
        // Without marks the join starts at the aligner's cut; with them, at the mark nearest it.
        #expect(recorded.joins == [1_500])
        #expect(end != 6_500 && word.joins == [end - 5_000])
        // The later piece's first mark is where the crossfade starts, so its start is a mark: period meets period.
        #expect(word.marks.contains(word.joins[0]))
        let start = try #require(word.markPieces.firstIndex(of: 1))
        #expect(word.marks[start] == word.joins[0])
        // Shaping the F0 keeps the word's length.
        let spoken = try units.speak(choice, in: index, contour: WordContour(ending: .question))
        #expect(spoken.samples.count == word.samples.count && spoken.samples != word.samples)
    }

    @Test("a question's unit-built last word ends rising and a statement's falls; as recorded, neither moves")
    func sentenceEnds() throws {
        let recorded = try Self.endFrequency(word("tide?", .asRecorded))
        #expect(abs(recorded - 100) < 2)
        let question = try Self.endFrequency(word("tide?"))
        let statement = try Self.endFrequency(word("tide."))
        // The question rises 5 st over its last 300 ms, the statement falls 4 st: this word's voice lasts about
        // 140 ms, so the end has moved by all of it and the start by half of it.
        #expect(question > 100 * pow(2, 3.0 / 12), "question ends at \(question) Hz")
        #expect(statement < 100 * pow(2, -3.0 / 12), "statement ends at \(statement) Hz")
    }

    @Test("the same request gives the same samples on every run")
    func identical() throws {
        let first = try word("tide?")
        #expect(try word("tide?") == first)
        #expect(
            try pullAll(Renderer(plan: planner().plan(SSMLReader().read("good tide.")), audio: clips), blockSize: 512)
                .samples
                == pullAll(
                    Renderer(plan: planner().plan(SSMLReader().read("good tide.")), audio: clips), blockSize: 512
                ).samples)
    }
}
