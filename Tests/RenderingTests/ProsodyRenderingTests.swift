// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering

/// Rate and pitch as the renderer plays them: durations, frequencies, exact breaks, markers, cancellation.
@Suite struct ProsodyRenderingTests {
    static let sampleRate = Double(RenderFormat.sampleRate)

    /// One second of a 220 Hz tone, then one second of silence: where the tone stops shows how a clip stretched.
    static let toneThenSilence: [Float] =
        (0..<22_050).map { Float(0.5 * sin(2 * Double.pi * 220 * Double($0) / sampleRate)) }
        + [Float](repeating: 0, count: 22_050)

    let clips = MemoryClips([1: toneThenSilence, 2: Array(toneThenSilence[..<22_050])])
    let lookup = DictionaryLookup(takes: [
        "tone": [ClipTake(clipID: 1, frameCount: 44_100)], "hum": [ClipTake(clipID: 2, frameCount: 22_050)],
    ])

    func plan(_ request: String, normalRate: Double = 1, prosody: Prosody = .normal) throws -> RenderPlan {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en"], normalRate: normalRate)
        return try Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])]).plan(
            SSMLReader().read(request, prosody: prosody))
    }

    func render(_ plan: RenderPlan, blockSize: Int = 1_000) throws -> [Float] {
        try pullAll(Renderer(plan: plan, audio: clips), blockSize: blockSize).samples
    }

    /// The first frame after which the signal stays below -40 dBFS.
    static func soundEnd(_ samples: [Float]) -> Int {
        (samples.lastIndex { abs($0) > 0.005 } ?? -1) + 1
    }

    /// The frequency of a steady tone, from its upward zero crossings in the middle half.
    static func frequency(_ samples: ArraySlice<Float>) -> Double {
        let middle = Array(samples.dropFirst(samples.count / 4).dropLast(samples.count / 4))
        let crossings = (1..<middle.count).filter { middle[$0 - 1] < 0 && middle[$0] >= 0 }
        guard let first = crossings.first, let last = crossings.last, last > first else { return 0 }
        return Double(crossings.count - 1) * sampleRate / Double(last - first)
    }

    @Test(
        "a clip of N frames at speed s lasts N/s, and its sound ends at (N/2)/s, within 1%",
        arguments: [0.5, 1, 2, 4, 6])
    func durations(speed: Double) throws {
        let plan = try plan("<speak><prosody rate=\"\(speed)\">tone</prosody></speak>")
        let samples = try render(plan)
        let expected = Int((44_100 / speed).rounded())
        #expect(samples.count == expected)
        #expect(plan.frameCount == expected)
        let end = Double(Self.soundEnd(samples))
        #expect(abs(end - 22_050 / speed) <= 0.01 * 22_050 / speed, "the tone ends at \(end)")
    }

    @Test("speed 1 and no pitch shift copy the clip, bit for bit")
    func unstretched() throws {
        let samples = try render(plan("tone"))
        #expect(samples[44..<44_056] == Self.toneThenSilence[44..<44_056])
    }

    @Test("+12st puts a 220 Hz tone at 440 Hz and keeps its duration; rate 2x keeps 220 Hz")
    func pitch() throws {
        let octave = try render(plan("<speak><prosody pitch=\"+12st\">hum</prosody></speak>"))
        #expect(octave.count == 22_050)
        #expect(abs(Double(Self.soundEnd(octave)) - 22_050) <= 220)
        let raised = Self.frequency(octave[...])
        #expect(abs(raised - 440) <= 4.4, "measured \(raised) Hz")

        let fast = try render(plan("<speak><prosody rate=\"2\">hum</prosody></speak>"))
        #expect(fast.count == 11_025)
        let kept = Self.frequency(fast[...])
        #expect(abs(kept - 220) <= 2.2, "measured \(kept) Hz")
    }

    @Test(
        "<break time> keeps its frames at every rate; sentence and strength pauses follow the rate",
        arguments: [0.5, 1, 3, 6])
    func breaks(speed: Double) throws {
        let request =
            "<speak><prosody rate=\"\(speed)\"><s>hum<break time=\"250ms\"/>hum<break strength=\"weak\"/>hum</s>"
            + "<s>hum</s></prosody></speak>"
        let silences = try plan(request).segments.filter { $0.segment.kind == .silence }.map(\.frameCount)
        #expect(silences == [5_513, Int((11_025 / speed).rounded()), Int((16_538 / speed).rounded())])
    }

    @Test("at 3x the phrases and pauses tile the output, and each phrase marker is its segment")
    func markersTile() throws {
        let plan = try plan(
            "<speak><prosody rate=\"300%\"><s>hum tone</s><s>hum<break time=\"100ms\"/>tone</s></prosody></speak>")
        let sounding = plan.segments.filter(\.segment.isSounding)
        var frame = 0
        for segment in sounding {
            #expect(segment.frame == frame)
            frame = segment.endFrame
        }
        #expect(frame == plan.frameCount)
        #expect(try render(plan).count == plan.frameCount)
        let phrases = plan.markers.filter { $0.kind == .phrase }
        let clips = sounding.filter(\.segment.isClip)
        #expect(phrases.map(\.frame) == clips.map(\.frame))
        #expect(phrases.map(\.frameCount) == clips.map(\.frameCount))
        #expect(phrases.map(\.frameCount) == [7_350, 14_700, 7_350, 14_700])
        #expect(plan.markers.filter { $0.kind == .sentence }.map(\.frameCount) == [22_050, 7_350 + 2_205 + 14_700])
    }

    @Test("a voice whose normal rate is 400% speaks rate=\"400%\" bit for bit as it speaks no rate")
    func normalRate() throws {
        let normal = try render(plan("<speak><prosody rate=\"400%\">tone hum</prosody></speak>", normalRate: 4))
        let none = try render(plan("tone hum", normalRate: 4))
        #expect(normal == none)
        #expect(normal.count == 44_100 + 22_050)
        let faster = try plan("<speak><prosody rate=\"800%\">tone</prosody></speak>", normalRate: 4)
        #expect(faster.frameCount == 22_050)
    }

    @Test("nested prosody multiplies rates and adds semitones; the request's prosody wraps it all")
    func nested() throws {
        let nested = try plan(
            "<speak><prosody rate=\"200%\" pitch=\"+2st\"><prosody rate=\"1.5\" pitch=\"-5st\">tone</prosody></prosody></speak>"
        )
        #expect(nested.segments.filter(\.segment.isClip).map(\.speed) == [3])
        #expect(nested.segments.filter(\.segment.isClip).map(\.pitchSemitones) == [-3])
        let wrapped = try plan(
            "<speak><prosody rate=\"1.5\" pitch=\"-5st\">tone</prosody></speak>",
            prosody: Prosody(rate: 2, pitchSemitones: 2))
        #expect(try render(wrapped) == render(nested))
    }

    @Test("speeds past the supported range are clamped, with one warning")
    func clamped() throws {
        let plan = try plan("<speak><prosody rate=\"20\">tone hum tone</prosody></speak>")
        #expect(plan.segments.filter(\.segment.isClip).map(\.speed) == [8, 8, 8])
        #expect(plan.warnings.count == 1)
        #expect(plan.warnings.first?.contains("beyond the supported") == true)
    }

    @Test("the samples are the same whatever the pull size, stretched and crossfaded")
    func pullSizes() throws {
        var voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en"])
        voice.joins = Joins(edgeFadeFrames: 44, crossfadeFrames: 300)
        let plan = try Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])]).plan(
            SSMLReader().read("<speak><prosody rate=\"2.5\" pitch=\"+3st\">tone hum tone</prosody> hum</speak>"))
        #expect(plan.segments.filter { $0.overlapWithNext > 0 }.count == 3)
        let whole = try render(plan, blockSize: 4_096)
        #expect(whole.count == plan.frameCount)
        for blockSize in [1, 37, 300, 1_024] {
            #expect(try render(plan, blockSize: blockSize) == whole, "pulls of \(blockSize) frames")
        }
    }

    @Test("cancel from another thread stops the render at the next pull")
    func cancelFromAnotherThread() throws {
        let plan = try plan(String(repeating: "tone ", count: 200))
        let renderer = Renderer(plan: plan, audio: clips)
        let cancellation = renderer.cancellation
        let canceller = Thread { cancellation.cancel() }
        var buffer = [Float](repeating: 0, count: 512)
        var pulls = 0
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            if pulled.isComplete { break }
            pulls += 1
            if pulls == 3 {
                canceller.start()
                while !cancellation.isCancelled { usleep(100) }
            }
        }
        #expect(renderer.isComplete)
        #expect(renderer.framePosition == 3 * 512)
        let after = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
        #expect(after == Renderer.Pull(frameCount: 0, isComplete: true))
    }
}
