// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import TestSupport
import Testing

/// The output's conversion from 22050 Hz (soxr's `high` recipe, as `ConvertedPull` uses it): its length, its
/// samples whatever the blocks, and what it does to sines in the passband and above the new Nyquist frequency.
@Suite struct OutputConversionTests {
    static let rates = [8_000, 16_000, 24_000, 48_000]

    /// Converts `input` from 22050 Hz in blocks of `blockFrames` through one soxr stream.
    static func convert(_ input: [Float], to rate: Int, blockFrames: Int = 4_096) throws -> [Float] {
        try StreamingResampler(from: 22_050, to: rate, soxr: .high).convertAll(input, blockFrames: blockFrames)
    }

    /// A tenth of a second at each end, where the filter meets the signal's start and end.
    static func margin(_ rate: Int) -> Int { rate / 10 }

    @Test("the output is round(frames × rate ÷ 22050) frames long, half up", arguments: rates)
    func length(rate: Int) throws {
        for frames in [0, 1, 2, 147, 4_801, 33_509] {
            let input = Signal.sine(frequency: 440, sampleRate: 22_050, frameCount: frames)
            #expect(try Self.convert(input, to: rate).count == (frames * rate + 11_025) / 22_050, "\(frames) frames")
        }
    }

    @Test("blocks of 1, 37, 300 and 1024 frames give the same samples, bit for bit, every time", arguments: rates)
    func blocksGiveTheSameSamples(rate: Int) throws {
        let input = Signal.sine(frequency: 300, sampleRate: 22_050, frameCount: 10_001)
        let reference = try Self.convert(input, to: rate, blockFrames: 1_024).map(\.bitPattern)
        for blockFrames in [1, 37, 300, 1_024] {
            #expect(try Self.convert(input, to: rate, blockFrames: blockFrames).map(\.bitPattern) == reference)
        }
        #expect(Signal.rms(try Self.convert(input, to: rate)) > 0.3)
    }

    @Test("a 1 kHz sine keeps its frequency and level, with nothing else above -100 dB", arguments: rates)
    func sineKept(rate: Int) throws {
        let output = try Self.convert(Signal.sine(frequency: 1_000, sampleRate: 22_050, frameCount: 22_050), to: rate)
        let margin = Self.margin(rate)
        #expect(abs(Signal.frequency(output, sampleRate: rate, margin: margin) - 1_000) < 0.5)
        let amplitude = Signal.amplitude(of: 1_000, in: output, sampleRate: rate, margin: margin)
        #expect(abs(Signal.decibels(amplitude / 0.5)) < 0.01)
        let residual = Signal.removing(1_000, from: output, sampleRate: rate, margin: margin)
        #expect(Signal.decibels(Signal.rms(residual, margin: margin) / Signal.rms(output, margin: margin)) < -100)
    }

    @Test(
        "a sine above the new Nyquist frequency is removed, not folded back below it",
        arguments: [(8_000, 4_400.0), (8_000, 10_000.0), (16_000, 8_800.0), (16_000, 10_800.0)])
    func noAliasing(rate: Int, frequency: Double) throws {
        let output = try Self.convert(
            Signal.sine(frequency: frequency, sampleRate: 22_050, frameCount: 22_050), to: rate)
        // What is left is at most soxr's 20 bits below the sine (-120 dB), in which a fold would stand out.
        #expect(Signal.decibels(Signal.rms(output, margin: Self.margin(rate)) / (0.5 / 2.squareRoot())) < -100)
    }

    @Test(
        "converting up adds no image of a sine above the old Nyquist frequency",
        arguments: [(24_000, 10_253.0), (24_000, 10_500.0), (48_000, 1_000.0), (48_000, 10_000.0)])
    func noImaging(rate: Int, frequency: Double) throws {
        let output = try Self.convert(
            Signal.sine(frequency: frequency, sampleRate: 22_050, frameCount: 22_050), to: rate)
        let image = 22_050 - frequency
        let margin = Self.margin(rate)
        let residual = Signal.removing(frequency, from: output, sampleRate: rate, margin: margin)
        let level = Signal.amplitude(of: image, in: residual, sampleRate: rate, margin: margin)
        #expect(Signal.decibels(level / 0.5) < -100, "the image at \(image) Hz")
    }
}
