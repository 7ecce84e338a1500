// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering

@Suite struct JoinTests {
    /// Clips that start and end at full scale: a 200 Hz cosine (1 at its first sample), and its negative.
    static let loud = (0..<1_000).map { Float(cos(2 * Double.pi * 200 * Double($0) / 22_050)) }
    let clips = MemoryClips([1: loud, 2: loud.map { -$0 }])

    func plan(_ request: String, joins: Joins) throws -> RenderPlan {
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en"], joins: joins)
        let lookup = DictionaryLookup(takes: [
            "up": [ClipTake(clipID: 1, frameCount: 1_000)], "down": [ClipTake(clipID: 2, frameCount: 1_000)],
        ])
        return try Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])]).plan(
            SSMLReader().read(request))
    }

    @Test("the join-click measure flags clips cut at full scale, and edge fades bring it under the clips' own steps")
    func joinClicks() throws {
        let request = #"<speak>up down up <break time="10ms"/> down</speak>"#
        let raw = try plan(request, joins: Joins(edgeFadeFrames: 0, crossfadeFrames: 0))
        let faded = try plan(request, joins: .standard)

        let before = JoinClickMeasure(
            samples: try pullAll(Renderer(plan: raw, audio: clips), blockSize: 256).samples, joinFrames: raw.joinFrames)
        let after = JoinClickMeasure(
            samples: try pullAll(Renderer(plan: faded, audio: clips), blockSize: 256).samples,
            joinFrames: faded.joinFrames)

        #expect(before.joinCount == 4)
        #expect(before.largestJoinStep > 1.9)
        #expect(before.ratio > 10)
        #expect(after.joinCount == 4)
        #expect(after.ratio < 1)
    }

    @Test("a crossfade shortens each join between two clips by its length and never touches a break")
    func crossfadeLengths() throws {
        let joins = Joins(edgeFadeFrames: 44, crossfadeFrames: 100)
        let together = try plan("<speak>up down up</speak>", joins: joins)
        let apart = try plan(#"<speak>up <break time="10ms"/> down<mark name="m"/> up</speak>"#, joins: joins)

        #expect(together.frameCount == 3_000 - 200)
        #expect(apart.frameCount == 3_000 + 221 - 100)
        #expect(apart.segments.filter(\.segment.isSounding).map(\.overlapWithNext) == [0, 0, 100, 0])
        for plan in [together, apart] {
            #expect(try pullAll(Renderer(plan: plan, audio: clips), blockSize: 333).samples.count == plan.frameCount)
        }
        #expect(together.markers.filter { $0.kind == .phrase }.map(\.frame) == [0, 900, 1_800])
    }

    @Test("inside a crossfade the outgoing clip fades out as the incoming fades in, with equal power")
    func crossfadeSamples() throws {
        let plan = try plan("<speak>up down</speak>", joins: Joins(edgeFadeFrames: 0, crossfadeFrames: 100))
        let samples = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 64).samples

        #expect(samples.count == 1_900)
        #expect(Array(samples[0..<900]) == Array(Self.loud[0..<900]))
        for position in [0, 49, 99] {
            let angle = Float.pi / 2 * Float(position + 1) / 101
            let expected = -Self.loud[position] * sinf(angle) + Self.loud[900 + position] * cosf(angle)
            #expect(abs(samples[900 + position] - expected) < 1e-6)
        }
        #expect(Array(samples[1_000..<1_900]).elementsEqual(Self.loud[100..<1_000].map { -$0 }))
    }
}
