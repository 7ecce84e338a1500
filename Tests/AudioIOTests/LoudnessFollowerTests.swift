// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import SpeechCore
import TestSupport
import Testing

@Suite struct LoudnessFollowerTests {
    /// Four seconds of a 180 Hz sine in syllables (its level rising and falling five times a second), at about
    /// -20 LUFS, with a peak now and then for the limiter.
    static let speech: [Float] = {
        var samples = Signal.sine(frequency: 180, amplitude: 0.25, sampleRate: 22_050, frameCount: 88_200)
        for index in samples.indices {
            samples[index] *= Float(0.55 + 0.45 * sin(2 * .pi * 5 * Double(index) / 22_050))
        }
        for index in stride(from: 2_500, to: samples.count, by: 7_001) { samples[index] = 0.9 }
        return samples
    }()

    static func follower(gainDecibels: Double, heldSeconds: Double = 0) -> LoudnessFollower {
        LoudnessFollower(targetLUFS: -16, gainDecibels: gainDecibels, ceiling: 0.8, heldSeconds: heldSeconds)
    }

    @Test("a run followed as its pieces arrive comes out the same however it is cut", arguments: [0, 1.5])
    func pieces(heldSeconds: Double) {
        var whole = Self.follower(gainDecibels: 1, heldSeconds: heldSeconds)
        let expected = whole.process(Self.speech) + whole.finish()
        #expect(expected.count == Self.speech.count)
        for size in [1, 500, 1_103, 2_205, 8_821] {
            var follower = Self.follower(gainDecibels: 1, heldSeconds: heldSeconds)
            var followed: [Float] = []
            for start in stride(from: 0, to: Self.speech.count, by: size) {
                followed += follower.process(Array(Self.speech[start..<min(Self.speech.count, start + size)]))
            }
            followed += follower.finish()
            #expect(followed == expected, "pieces of \(size)")
        }
    }

    @Test("the gain chosen in advance plays until the loudness settles; then the run is corrected to the target")
    func corrects() throws {
        // 3 dB too loud to start with.
        let target = -16.0
        let measured = try #require(try Loudness(Self.speech, measuringTruePeak: false).clipLUFS)
        var follower = Self.follower(gainDecibels: target - measured + 3)
        let followed = follower.process(Self.speech) + follower.finish()
        let gain = Float(Decibels.amplitude(target - measured + 3))
        // Before the first correction (400 ms) and away from the first peak, the samples are the first gain's.
        #expect(followed[..<2_300].elementsEqual(Self.speech[..<2_300].map { $0 * gain }))
        #expect(followed[7_000..<8_820].elementsEqual(Self.speech[7_000..<8_820].map { $0 * gain }))
        // The last two seconds, corrected, are at the target; a follower that never corrected would leave them 3 LU
        // over it.
        let tail = Array(followed[44_100...])
        let reached = try #require(try Loudness(tail, measuringTruePeak: false).clipLUFS)
        #expect(abs(reached - target) < 0.5, "the tail at \(reached) LUFS")
        // Under the ceiling, but for the rounding of a gain in Float.
        #expect(followed.allSatisfy { $0.magnitude <= 0.8 * (1 + 1e-6) })
    }

    @Test("what played at a wrong gain is made up: a 1.2 s run that starts 3 dB too quiet is at the target as a whole")
    func makesUp() throws {
        let target = -16.0
        let run = Array(Self.speech[..<26_460])
        let measured = try #require(try Loudness(run, measuringTruePeak: false).clipLUFS)
        var follower = Self.follower(gainDecibels: target - measured - 3)
        let followed = follower.process(run) + follower.finish()
        let reached = try #require(try Loudness(followed, measuringTruePeak: false).clipLUFS)
        // Corrected without making up, its first 400 ms would leave it 0.95 LU under.
        #expect(abs(reached - target) <= 0.4, "the run at \(reached) LUFS")
    }

    @Test("a held run lets nothing out until its held part is in, then plays at the gain that part measures")
    func held() throws {
        let target = -16.0
        let measured = try #require(try Loudness(Self.speech, measuringTruePeak: false).clipLUFS)
        // 0.8 s, shorter than what is held, and 3 dB too loud to start with: at the target as a whole, where the
        // gain chosen in advance would leave it 3 LU over.
        let short = Array(Self.speech[..<17_640])
        var follower = Self.follower(gainDecibels: target - measured + 3, heldSeconds: 1.5)
        #expect(follower.process(short).isEmpty)
        let played = follower.finish()
        #expect(played.count == short.count)
        let reached = try #require(try Loudness(played, measuringTruePeak: false).clipLUFS)
        #expect(abs(reached - target) <= 0.2, "the run at \(reached) LUFS")
        #expect(played.allSatisfy { $0.magnitude <= 0.8 * (1 + 1e-6) })

        // A longer run: nothing out before 1.5 s are in, then all of them, but the limiter's look-ahead.
        var longer = Self.follower(gainDecibels: target - measured + 3, heldSeconds: 1.5)
        #expect(longer.process(Array(Self.speech[..<33_000])).isEmpty)
        let first = longer.process(Array(Self.speech[33_000..<34_000]))
        #expect(first.count == 34_000 - Int(0.005 * 22_050))
        let whole = first + longer.process(Array(Self.speech[34_000...])) + longer.finish()
        let wholeLoudness = try #require(try Loudness(whole, measuringTruePeak: false).clipLUFS)
        #expect(abs(wholeLoudness - target) <= 0.5, "the run at \(wholeLoudness) LUFS")
    }
}
