// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import SpeechCore
import Testing

/// The end of every output's pull chain: a render converted to the output rate (soxr's `high` recipe) as it is
/// pulled, the same samples whatever the pull size, and markers at the output rate that end where the samples do.
@Suite struct ConvertedPullTests {
    static var request: SpeechRequest { SpeechRequest(.text("Hello, nice to meet you. Good morning")) }

    /// What one chain gives in pulls of up to `maximumFrames`: the converted samples, the 22050 Hz samples, the
    /// markers at the output rate, and the converted frames that came out before the render was complete.
    static func pull(at rate: Int, maximumFrames: Int = .max) throws
        -> (converted: [Float], rendered: [Float], markers: [Marker], framesBeforeEnd: Int)
    {
        let synthesizer = try Synthesizer(bank: RequestTests.defaultPack)
        let frameCount = try synthesizer.plan(request).frameCount
        let chain = try ConvertedPull(try synthesizer.renderer(for: request), sampleRate: rate, blockFrames: 1_024)
        var converted: [Float] = []
        var rendered: [Float] = []
        var markers: [Marker] = []
        var framesBeforeEnd = 0
        while !chain.isComplete {
            try chain.pull(maximumFrames: maximumFrames, { converted += $0 }) { rendered += $0 }
            if rendered.count < frameCount { framesBeforeEnd = converted.count }
            markers += chain.reachedMarkers.map(\.marker)
        }
        return (converted, rendered, markers, framesBeforeEnd)
    }

    @Test(
        "the output is soxr's conversion of the 22050 Hz render, the same for pulls of 1, 37, 300 and 1024 frames",
        arguments: [8_000, 16_000, 24_000, 48_000])
    func soxrWhateverThePullSize(rate: Int) throws {
        let rendered = try Self.pull(at: 22_050).converted
        let resampler = try StreamingResampler(from: 22_050, to: rate, soxr: .high)
        var expected: [Float] = []
        try rendered.withUnsafeBufferPointer { try resampler.convert($0) { expected += $0 } }
        try resampler.finish { expected += $0 }
        for maximumFrames in [1, 37, 300, 1_024] {
            let pulled = try Self.pull(at: rate, maximumFrames: maximumFrames)
            #expect(pulled.rendered == rendered)
            #expect(pulled.converted.map(\.bitPattern) == expected.map(\.bitPattern), "pulls of \(maximumFrames)")
        }
    }

    @Test(
        "a render through a converter another render gave back mid-stream is the first render, byte for byte",
        arguments: [16_000, 24_000, 48_000])
    func reusedConverter(rate: Int) throws {
        let first = try Self.pull(at: rate)
        // A chain dropped after one pull gives its converter back mid-stream, as a request whose client went.
        do {
            let synthesizer = try Synthesizer(bank: RequestTests.defaultPack)
            let chain = try ConvertedPull(
                try synthesizer.renderer(for: Self.request), sampleRate: rate, blockFrames: 1_024)
            try chain.pull(maximumFrames: 300) { _ in }
        }
        let again = try Self.pull(at: rate)
        #expect(again.converted.map(\.bitPattern) == first.converted.map(\.bitPattern))
    }

    @Test("the first converted frames come out before the request is rendered", arguments: [8_000, 24_000, 48_000])
    func streams(rate: Int) throws {
        let pulled = try Self.pull(at: rate, maximumFrames: 300)
        #expect(pulled.framesBeforeEnd > 0)
        #expect(pulled.framesBeforeEnd < pulled.converted.count)
    }

    @Test("every pull gives converted frames until the request ends, however small", arguments: [8_000, 24_000])
    func everyPullGivesFrames(rate: Int) throws {
        let synthesizer = try Synthesizer(bank: RequestTests.defaultPack)
        let chain = try ConvertedPull(try synthesizer.renderer(for: Self.request), sampleRate: rate, blockFrames: 1_024)
        var pulls = 0
        var emptyPulls = 0
        while !chain.isComplete {
            var frameCount = 0
            try chain.pull(maximumFrames: 10) { frameCount += $0.count }
            pulls += 1
            if frameCount == 0 { emptyPulls += 1 }
        }
        #expect(pulls > 10)
        #expect(emptyPulls == 0)
    }

    @Test(
        "the output is round(frames × rate ÷ 22050) frames, and its markers end where the samples do",
        arguments: [8_000, 16_000, 24_000, 48_000])
    func lengthAndMarkers(rate: Int) throws {
        let pulled = try Self.pull(at: rate)
        #expect(pulled.converted.count == RenderFormat.frame(pulled.rendered.count, atSampleRate: rate))
        let rendered = try Self.pull(at: 22_050).markers
        #expect(pulled.markers.count == rendered.count)
        for (marker, original) in zip(pulled.markers, rendered) {
            #expect(marker.frame == RenderFormat.frame(original.frame, atSampleRate: rate))
        }
        let last = try #require(pulled.markers.max { $0.frame + $0.frameCount < $1.frame + $1.frameCount })
        #expect(abs(last.frame + last.frameCount - pulled.converted.count) <= 1)
    }
}
