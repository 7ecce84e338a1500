// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
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
        try StreamingResampler(from: 22_050, to: rate).convertAll(input, blockFrames: blockFrames)
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

/// A take converted piece by piece while it is recorded (the studio's recordings) must be the clip the same samples
/// give converted whole: libsamplerate's stream gives the samples of one call, bit for bit, whatever the pieces.
@Suite struct PiecewiseTakeTests {
    let directory = TemporaryDirectory("piecewise")

    /// A spoken-like take: a vowel's harmonics that rise and fall in syllables, with a little noise.
    static func take(sampleRate: Int, frameCount: Int) -> [Float] {
        var noise: UInt32 = 12_345
        return (0..<frameCount).map { frame in
            let time = Double(frame) / Double(sampleRate)
            var sample = 0.0
            for harmonic in 1...5 { sample += sin(2 * .pi * 130 * Double(harmonic) * time) / Double(harmonic) }
            noise = noise &* 1_664_525 &+ 1_013_904_223
            return Float(0.3 * sample * (0.5 - 0.5 * cos(2 * .pi * 3 * time)) + Double(noise >> 16) / 65_536 * 1e-3)
        }
    }

    /// Converts `samples` through one `StreamingResampler` in pieces of the sizes given, round and round.
    static func piecewise(_ samples: [Float], from rate: Int, pieceSizes: [Int]) throws -> [Float] {
        let resampler = try StreamingResampler(from: rate, to: 22_050, converter: .best)
        var output: [Float] = []
        var start = 0
        var index = 0
        try samples.withUnsafeBufferPointer { buffer in
            while start < buffer.count {
                let end = min(start + pieceSizes[index % pieceSizes.count], buffer.count)
                try resampler.convert(UnsafeBufferPointer(rebasing: buffer[start..<end])) { output += $0 }
                start = end
                index += 1
            }
        }
        try resampler.finish { output += $0 }
        return output
    }

    @Test(
        "pieces of odd sizes give the 22050 Hz samples of the whole take's conversion, bit for bit",
        arguments: [(48_000, [12_001, 7, 4_800, 1, 23_999]), (44_100, [11_025, 3_001, 13]), (48_000, [144_000])])
    func piecesAreTheWhole(rate: Int, pieceSizes: [Int]) throws {
        let samples = Self.take(sampleRate: rate, frameCount: rate * 3 + 17)
        let whole = try SampleRateConversion.convert(samples, from: rate, converter: .best)
        let pieces = try Self.piecewise(samples, from: rate, pieceSizes: pieceSizes)
        #expect(pieces.count == whole.count)
        #expect(pieces.map(\.bitPattern) == whole.map(\.bitPattern))
        #expect(pieces.contains { abs($0) > 0.1 }, "the take is converted to sound, not silence")
    }

    @Test("a take's samples and their piecewise conversion are the clip a Float32 WAV file of them reads as")
    func clipOfSamplesIsTheFilesClip() throws {
        let samples = Self.take(sampleRate: 48_000, frameCount: 52_801).map { $0 * 1.5 }
        let wav = try Fixture.write(
            samples, to: directory.file("take.wav"), format: .init(.wav, .float32), sampleRate: 48_000)
        let read = try PreparedClip(path: wav, converter: .best)
        let converted = try Self.piecewise(samples, from: 48_000, pieceSizes: [9_601, 333])
        let made = PreparedClip(floatSamples: samples, sampleRate: 48_000, renderReady: converted, converter: .best)
        #expect(made.source == read.source)
        #expect(made.original == read.original)
        #expect(made.renderReady.map(\.bitPattern) == read.renderReady.map(\.bitPattern))
        #expect(made.converter == read.converter)
    }
}
