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
