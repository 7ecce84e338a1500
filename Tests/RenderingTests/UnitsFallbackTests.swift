// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing
import Units

@testable import Rendering

/// espeak-ng's mnemonics from a table, so that the front end needs no espeak-ng.
final class PhonemeTable: PhonemeSource, Sendable {
    let table: [String: String]

    init(_ table: [String: String]) { self.table = table }

    func mnemonics(_ text: String, language: String) throws(FrontEndError) -> String {
        guard let mnemonics = table[text] else {
            return try text.split(separator: " ").map { (word) throws(FrontEndError) -> String in
                guard let known = table[String(word)] else { throw FrontEndError(reason: "no phonemes for \(word)") }
                return known
            }.joined(separator: " ")
        }
        return mnemonics
    }
}

/// The units fallback in planning and rendering, with takes whose alignment the test writes and whose phones are tones
/// of their own frequencies: words from the takes that say them, words built from phone-pairs, what falls back.
@Suite struct UnitsFallbackTests {
    static let frequencies = AlignedTakes.frequencies([
        "W", "EH", "L", "G", "UH", "D", "IY", "V", "N", "IH", "NG",
        "T", "AY", "M", "R", "S", "Z", "UW",
    ])
    static let takes = [
        AlignedTakes.take(
            1, [("well", ["W", "EH", "L"]), ("good", ["G", "UH", "D"]), ("evening", ["IY", "V", "N", "IH", "NG"])]),
        AlignedTakes.take(2, [("night", ["N", "AY", "T"]), ("time", ["T", "AY", "M"])]),
        AlignedTakes.take(3, [("ride", ["R", "AY", "D"])]),
        AlignedTakes.take(4, [("stymie", ["S", "T", "AY", "M", "IY"])]),
        AlignedTakes.take(5, [("is", ["IH", "Z"]), ("you", ["Y", "UW"])]),
    ]
    static let phonemes = PhonemeTable([
        "evening": "'i:.v.n.I.N", "tide": "t.'aI.d", "tie": "t.'aI", "zoo": "z.'u:", "tide zoo": "t.'aI.d z.'u:",
        "good evening": "g.'U.d 'i:.v.n.I.N",
    ])

    let clips = MemoryClips(
        Dictionary(
            uniqueKeysWithValues: Self.takes.map {
                ($0.clipID, AlignedTakes.samples(of: $0, frequencies: Self.frequencies))
            }))

    final class Takes: UnitLookup {
        func alignedTakes() throws -> [AlignedTake] { UnitsFallbackTests.takes }
        func audio(clipID: Int) throws -> AlignedTake.Audio {
            let take = UnitsFallbackTests.takes.first { $0.clipID == clipID }!
            let whole = AlignedTakes.wholeFrameCount(of: take)
            // The first take plays from 500 frames into its first word: its import trimmed what came before.
            return AlignedTake.Audio(
                levelDecibels: 0, wholeFrameCount: whole, playedFrames: (clipID == 1 ? 2_500 : 0)..<whole)
        }
    }

    func planner(speaker: (any FallbackSpeaker)? = ToneVoice()) -> Planner<DictionaryLookup> {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .units)
        let units = UnitVoice(lookup: Takes(), audio: clips, frontEnd: EnglishFrontEnd(source: Self.phonemes))
        return Planner(voices: [
            PlannerVoice(
                voice: voice, lookup: DictionaryLookup(takes: [:]), fallbacks: [], fallbackSpeaker: speaker,
                units: units)
        ])
    }

    @Test("a word recorded inside a longer take is played from it, cut at its aligned boundaries")
    func wordFromTake() throws {
        let plan = try planner().plan(SSMLReader().read("evening"))
        let spoken = plan.segments.filter { $0.segment.isClip }
        try #require(spoken.count == 1)
        #expect(spoken[0].kind == .slice(Self.takes[0].slice(8_000..<13_000, levelDecibels: 0)))
        #expect(spoken[0].fallback == .init(mode: .units, words: "evening"))
        let samples = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 700).samples
        let take = clips.samples[1]!
        #expect(samples.count == 5_000)
        // Past the edge fades, the take's own samples.
        #expect(Array(samples[500..<4_500]) == Array(take[8_500..<12_500]))
    }

    @Test("a slice of a take's first word starts where the take plays, past the silence its import trimmed")
    func trimmedSlice() throws {
        let plan = try planner().plan(SSMLReader().read("well"))
        #expect(
            plan.segments.filter { $0.segment.isClip }.map(\.kind) == [
                .slice(Self.takes[0].slice(2_500..<5_000, levelDecibels: 0))
            ])
    }

    @Test("a word never recorded is built from phone-pair units and marked so")
    func wordFromUnits() throws {
        let plan = try planner().plan(SSMLReader().read("tide"))
        let spoken = plan.segments.filter { $0.segment.isClip }
        try #require(spoken.count == 1)
        guard case .synthesized(let speech) = spoken[0].kind else {
            Issue.record("expected units, got \(spoken[0].kind)")
            return
        }
        #expect(spoken[0].fallback == .init(mode: .units, words: "tide"))
        // T, AY and D, each a tone of its own: about three phones' length.
        #expect(abs(speech.samples.count - 3_000) < 400)
        let markers = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 512)
        #expect(markers.samples.count == speech.samples.count)
    }

    @Test("units that follow each other in one take are chosen together")
    func consecutive() throws {
        let units = UnitVoice(lookup: Takes(), audio: clips, frontEnd: EnglishFrontEnd(source: Self.phonemes))
        let index = try units.index()
        let result = try units.choose(word: [Phone("T"), Phone("AY", stress: 1)], before: nil, after: nil, in: index)
        guard case .built(let choice) = result else {
            Issue.record("\(result)")
            return
        }
        // T-AY is said in "time" and in "stymie": one piece of one take, its three units together.
        #expect(choice.pieces.count == 1)
        #expect(choice.pieces.first?.unitCount == 3)
    }

    @Test("a word with a phone-pair no take has falls back to the fallback voice, for that word only, and is reported")
    func missingPair() throws {
        let plan = try planner().plan(SSMLReader().read("tide zoo"))
        let spoken = plan.segments.filter { $0.segment.isClip }
        try #require(spoken.count == 2)
        #expect(spoken[0].fallback?.mode == .units && spoken[0].text == "tide")
        #expect(spoken[1].fallback?.mode == .voice && spoken[1].text == "zoo")
        #expect(plan.warnings.contains { $0.contains("\"zoo\"") && $0.contains("Z-UW") })
    }

    @Test("the same request gives the same samples on every run, from a fresh planner or the same")
    func identical() throws {
        let request = "good evening, tide"
        let first = try pullAll(
            Renderer(plan: planner().plan(SSMLReader().read(request)), audio: clips), blockSize: 999)
        let again = planner()
        for _ in 0..<2 {
            let samples = try pullAll(
                Renderer(plan: again.plan(SSMLReader().read(request)), audio: clips), blockSize: 512)
            #expect(samples.samples == first.samples)
        }
        #expect(!first.samples.isEmpty)
    }
}

extension UnitsFallbackTests {
    @Test("a word the front end gives no phones goes to the fallback voice, with a warning naming it")
    func noPhones() throws {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .units)
        let units = UnitVoice(
            lookup: Takes(), audio: clips,
            frontEnd: EnglishFrontEnd(source: PhonemeTable(["tide qxz": "t.'aI.d ɡ.x", "tide": "t.'aI.d"])))
        let planner = Planner(voices: [
            PlannerVoice(
                voice: voice, lookup: DictionaryLookup(takes: [:]), fallbacks: [], fallbackSpeaker: ToneVoice(),
                units: units)
        ])
        let plan = try planner.plan(SSMLReader().read("tide qxz"))
        let spoken = plan.segments.filter { $0.segment.isClip }
        #expect(spoken.map(\.text) == ["tide", "qxz"])
        #expect(spoken.map { $0.fallback?.mode } == [.units, .voice])
        #expect(plan.warnings.contains { $0.contains("\"qxz\": no phones") })
    }
}

extension UnitsFallbackTests {
    @Test("the weights change a choice: a heavy duration weight prefers units of the phones' usual length")
    func weights() throws {
        // "time" said quickly (phones of 500 frames), "stymie" slowly (2,500): T and AY last 1,500 frames on average.
        let takes = [
            AlignedTakes.take(1, [("time", ["T", "AY", "M"])], phoneFrames: 500),
            AlignedTakes.take(2, [("stymie", ["S", "T", "AY", "M", "IY"])], phoneFrames: 2_500),
        ]
        final class Lookup: UnitLookup {
            let takes: [AlignedTake]
            init(_ takes: [AlignedTake]) { self.takes = takes }
            func alignedTakes() throws -> [AlignedTake] { takes }
            func audio(clipID: Int) throws -> AlignedTake.Audio {
                AlignedTake.Audio(
                    levelDecibels: 0, wholeFrameCount: AlignedTakes.wholeFrameCount(of: takes[clipID - 1]))
            }
        }
        let clips = MemoryClips(
            Dictionary(
                uniqueKeysWithValues: takes.map {
                    ($0.clipID, AlignedTakes.samples(of: $0, frequencies: Self.frequencies))
                }))
        func chosenTakes(_ weights: UnitWeights) throws -> [Int] {
            let units = UnitVoice(
                lookup: Lookup(takes), audio: clips, frontEnd: EnglishFrontEnd(source: Self.phonemes), weights: weights)
            let index = try units.index()
            guard
                case .built(let choice) = try units.choose(
                    word: [Phone("T"), Phone("AY", stress: 1)], before: nil, after: nil, in: index)
            else { return [] }
            return choice.pieces.map { index.takes[$0.take].aligned.clipID }
        }

        // Weighing length not at all, the take whose T starts it, as the word's does; weighing it heavily, the other.
        #expect(try chosenTakes(UnitWeights(duration: 0)) == [1])
        #expect(try chosenTakes(UnitWeights(duration: 10)) == [2])
    }
}
