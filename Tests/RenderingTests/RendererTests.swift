// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering

/// Clip audio from memory, counting reads.
@Suite struct RendererTests {
    let clips = MemoryClips([
        1: [Float](repeating: 0.5, count: 300),
        2: (0..<200).map { Float($0) / 400 },
    ])

    func plan(_ segments: [PlanSegment]) -> RenderPlan { RenderPlan(voice: "com.example.ann", planning: segments) }

    let one = PlanSegment(kind: .phrase(ClipTake(clipID: 1, frameCount: 300)), frameCount: 300, text: "one")
    let two = PlanSegment(kind: .phrase(ClipTake(clipID: 2, frameCount: 200)), frameCount: 200, text: "two")
    let pause = PlanSegment(kind: .silence, frameCount: 1_000)

    @Test(
        "frames come in pieces that add up to the whole, clips and silences end to end", arguments: [1, 7, 64, 4_096])
    func pieces(blockSize: Int) throws {
        let renderer = Renderer(
            plan: plan([one, pause, two, .init(kind: .mark("m"), frameCount: 0), one]), audio: clips)

        let (samples, blocks) = try pullAll(renderer, blockSize: blockSize)

        #expect(samples.count == 300 + 1_000 + 200 + 300)
        #expect(blocks.reduce(0, +) == samples.count)
        #expect(blocks.dropLast().allSatisfy { $0 == blockSize })
        #expect(renderer.framePosition == samples.count)
        // Inside a clip the samples are copied exactly; the edges fade over 44 frames.
        #expect(samples[44..<256].allSatisfy { $0 == 0.5 })
        #expect(samples[0] > 0 && samples[0] < 0.05)
        #expect(samples[300..<1_300].allSatisfy { $0 == 0 })
        #expect(Array(samples[1_344..<1_456]) == (44..<156).map { Float($0) / 400 })
        #expect(renderer.isComplete)
    }

    @Test("the first frames come out before later clips are read")
    func lazyReads() throws {
        let renderer = Renderer(plan: plan([one, pause, two]), audio: clips)
        var buffer = [Float](repeating: 0, count: 100)

        let first = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }

        #expect(first == Renderer.Pull(frameCount: 100, isComplete: false))
        #expect(renderer.reachedMarkers.map(\.marker.text) == ["one"])
        #expect(clips.reads == [1])
    }

    @Test(
        "each sounding segment is started by exactly one pull, before or with its first frames",
        arguments: [1, 100, 4_096])
    func startedSegments(blockSize: Int) throws {
        let plan = plan([one, pause, .init(kind: .mark("m"), frameCount: 0), two])
        let renderer = Renderer(plan: plan, audio: clips)
        var buffer = [Float](repeating: 0, count: blockSize)
        var started: [TimedSegment] = []
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            // A segment the pull started begins no later than the frames the pull wrote end.
            #expect(renderer.startedSegments.allSatisfy { $0.frame <= renderer.framePosition })
            started += renderer.startedSegments
            if pulled.isComplete { break }
        }
        #expect(started == plan.segments.filter { $0.segment.isSounding })
    }

    @Test("cancel stops the request between pulls")
    func cancel() throws {
        let renderer = Renderer(plan: plan([one, pause, two]), audio: clips)
        var buffer = [Float](repeating: 0, count: 100)
        _ = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }

        renderer.cancel()
        let after = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }

        #expect(after == Renderer.Pull(frameCount: 0, isComplete: true))
        #expect(renderer.reachedMarkers.isEmpty)
        #expect(renderer.framePosition == 100)
        #expect(clips.reads == [1])
    }

    @Test("an empty plan is complete at once")
    func empty() throws {
        let (samples, blocks) = try pullAll(Renderer(plan: plan([]), audio: clips), blockSize: 16)
        #expect(samples.isEmpty)
        #expect(blocks == [0])
    }

    @Test("volume in dB multiplies the samples by 10^(dB/20)", arguments: [-12.0, -1.0, 6.0])
    func volume(decibels: Double) throws {
        var loud = one
        loud.volumeDecibels = decibels
        let plain = try pullAll(Renderer(plan: plan([one]), audio: clips), blockSize: 4_096).samples
        let scaled = try pullAll(Renderer(plan: plan([loud]), audio: clips), blockSize: 4_096).samples

        let factor = Float(Decibels.amplitude(decibels))
        #expect(zip(plain, scaled).allSatisfy { abs($0 * factor - $1) <= 1e-6 })
        #expect(abs(scaled[150] / plain[150] - factor) < 1e-6)
    }

    @Test("the samples are the same whatever the pull size, fades and gain included")
    func pullSizes() throws {
        var soft = two
        soft.volumeDecibels = -6
        let segments = [one, pause, soft, one, two]
        let whole = try pullAll(Renderer(plan: plan(segments), audio: clips), blockSize: 4_096).samples
        for blockSize in [1, 3, 43, 44, 45, 100, 512] {
            let pieces = try pullAll(Renderer(plan: plan(segments), audio: clips), blockSize: blockSize).samples
            #expect(pieces == whole, "pulls of \(blockSize) frames")
        }
        // The fade's first and last factors, as a clip read whole would have them.
        #expect(whole[0] == 0.5 * (1 / 45))
        #expect(whole[299] == 0.5 * (1 / 45))
        #expect(whole[1_300 + 100] == Float(100) / 400 * Float(Decibels.amplitude(-6)))
    }
}
