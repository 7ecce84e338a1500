// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing
import Units

@testable import Rendering

/// A run of the units fallback is planned a word at a time: its first word plays before the next is chosen.
@Suite struct UnitsStreamingTests {
    static let takes = [
        AlignedTakes.take(1, [("time", ["T", "AY", "M"])]),
        AlignedTakes.take(2, [("ride", ["R", "AY", "D"])]),
        AlignedTakes.take(3, [("zoom", ["Z", "UW", "M"])]),
    ]

    final class Takes: UnitLookup {
        func alignedTakes() throws -> [AlignedTake] { UnitsStreamingTests.takes }
        func audio(clipID: Int) throws -> AlignedTake.Audio {
            AlignedTake.Audio(
                levelDecibels: 0,
                wholeFrameCount: AlignedTakes.wholeFrameCount(of: UnitsStreamingTests.takes[clipID - 1]))
        }
    }

    @Test("a run's first word, built from units, plays before its next word is chosen")
    func firstWordFirst() throws {
        let frequencies = AlignedTakes.frequencies(["T", "AY", "M", "R", "D", "Z", "UW"])
        let clips = MemoryClips(
            Dictionary(
                uniqueKeysWithValues: Self.takes.map {
                    ($0.clipID, AlignedTakes.samples(of: $0, frequencies: frequencies))
                }))
        let phonemes = PhonemeTable(["tide zoo": "t.'aI.d z.'u:"])
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .units)
        let planner = Planner(voices: [
            PlannerVoice(
                voice: voice, lookup: DictionaryLookup(takes: [:]), fallbacks: [], fallbackSpeaker: ToneVoice(),
                units: UnitVoice(lookup: Takes(), audio: clips, frontEnd: EnglishFrontEnd(source: phonemes)))
        ])
        let stream = planner.stream(try SSMLReader().read("tide zoo"))
        let renderer = Renderer(source: stream, audio: clips)

        var buffer = [Float](repeating: 0, count: 512)
        let first = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }

        // "zoo" can only be cut from take 3, which nothing has read yet: neither its search nor its samples.
        #expect(first.frameCount == 512)
        #expect(clips.reads.allSatisfy { $0 != 3 }, "\(clips.reads)")
        _ = try pullAll(renderer, blockSize: 512)
        #expect(clips.reads.contains(3))
    }
}
