import TestSupport
import Testing

@testable import AudioIO

@Suite struct SampleRateConversionTests {
    @Test(
        "the converted length is frames × 22050 ÷ rate, rounded half up",
        arguments: [
            (24_000, 24_000, 22_050), (24_000, 12_000, 11_025), (24_000, 1, 1), (48_000, 1, 1), (44_100, 3, 2),
            (44_100, 1, 1), (8_000, 160, 441), (16_000, 1_000, 1_378), (22_050, 12_345, 12_345),
        ])
    func lengthRule(rate: Int, frames: Int, expected: Int) {
        #expect(SampleRateConversion.convertedFrameCount(frames, from: rate, to: 22_050) == expected)
    }

    @Test("every converter's output has exactly the rule's length", arguments: Converter.allCases)
    func outputFollowsRule(converter: Converter) throws {
        for (rate, frames) in [
            (24_000, 1), (24_000, 2), (24_000, 4_801), (48_000, 96_001), (8_000, 7_999), (44_100, 12_347),
        ] {
            let input = Signal.sine(frequency: 300, sampleRate: rate, frameCount: frames)
            let output = try SampleRateConversion.convert(input, from: rate, converter: converter)
            #expect(output.count == SampleRateConversion.convertedFrameCount(frames, from: rate, to: 22_050))
        }
    }

    @Test("the same rate passes samples through untouched")
    func sameRate() throws {
        let input: [Float] = [0.1, -0.2, 0.3]
        #expect(try SampleRateConversion.convert(input, from: 22_050) == input)
    }
}

@Suite struct StreamingResamplerTests {
    /// Converts `input` in blocks of `blockFrames` through one resampler.
    func stream(_ input: [Float], blockFrames: Int, to rate: Int) throws -> [Float] {
        let resampler = try StreamingResampler(from: 22_050, to: rate)
        var output: [Float] = []
        try input.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: blockFrames) {
                let block = UnsafeBufferPointer(rebasing: buffer[start..<min(start + blockFrames, buffer.count)])
                try resampler.convert(block) { output += $0 }
            }
        }
        try resampler.finish { output += $0 }
        return output
    }

    @Test(
        "block by block, the output is libsamplerate's conversion of the whole, round(frames × ratio) long",
        arguments: [8_000, 16_000, 44_100, 48_000])
    func matchesWholeConversion(rate: Int) throws {
        let input = Signal.sine(frequency: 440, sampleRate: 22_050, frameCount: 33_509)
        let whole = try SampleRateConversion.convert(input, from: 22_050, to: rate)
        let streamed = try stream(input, blockFrames: 4_096, to: rate)
        #expect(streamed.count == (33_509 * rate + 11_025) / 22_050)
        #expect(streamed.count == whole.count)
        let largestDifference = zip(streamed, whole).map { abs($0 - $1) }.max() ?? 0
        #expect(largestDifference < 1e-5)
    }

    @Test("the same blocks give the same samples; the same rate passes them through")
    func deterministic() throws {
        let input = Signal.sine(frequency: 300, sampleRate: 22_050, frameCount: 10_001)
        #expect(try stream(input, blockFrames: 512, to: 8_000) == stream(input, blockFrames: 512, to: 8_000))
        #expect(try stream(input, blockFrames: 700, to: 22_050) == input)
        #expect(try stream([], blockFrames: 700, to: 8_000).isEmpty)
    }
}
