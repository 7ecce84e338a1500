// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import Foundation

/// Test signals and the measurements audio assertions need.
public enum Signal {
    /// A sine of `frequency` Hz at `amplitude`, `frameCount` frames long at `sampleRate`.
    public static func sine(
        frequency: Double, amplitude: Double = 0.5, sampleRate: Int, frameCount: Int, phase: Double = 0
    ) -> [Float] {
        (0..<frameCount).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(sampleRate) + phase)) }
    }

    /// The root-mean-square level of `samples`, optionally skipping `margin` frames at each end.
    public static func rms(_ samples: [Float], margin: Int = 0) -> Double {
        let slice = samples[margin..<(samples.count - margin)]
        return sqrt(slice.reduce(0) { $0 + Double($1) * Double($1) } / Double(slice.count))
    }

    public static func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }

    /// The frequency of a sine, from the count of rising zero crossings, skipping `margin` frames at each end.
    public static func frequency(_ samples: [Float], sampleRate: Int, margin: Int = 0) -> Double {
        var crossings: [Int] = []
        for index in (margin + 1)..<(samples.count - margin) where samples[index - 1] < 0 && samples[index] >= 0 {
            crossings.append(index)
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / Double(last - first)
    }

    /// The amplitude of the sine of `frequency` Hz in `samples` (a least-squares fit of its sine and cosine), skipping
    /// `margin` frames at each end: what is left of one frequency however much else the samples hold.
    public static func amplitude(
        of frequency: Double, in samples: [Float], sampleRate: Int, margin: Int = 0
    ) -> Double {
        SineFit(frequency, to: samples[margin..<(samples.count - margin)], sampleRate: sampleRate).amplitude
    }

    /// `samples` less their least-squares fit of a sine of `frequency` Hz (fitted skipping `margin` frames at each
    /// end): what else they hold, without that frequency's leakage into a fit at another.
    public static func removing(
        _ frequency: Double, from samples: [Float], sampleRate: Int, margin: Int = 0
    ) -> [Float] {
        let fit = SineFit(frequency, to: samples[margin..<(samples.count - margin)], sampleRate: sampleRate)
        return Array(fit.removed(from: samples[...]))
    }

    /// Interleaves channel arrays of equal length.
    public static func interleave<Sample>(_ channels: [[Sample]]) -> [Sample] {
        (0..<channels[0].count).flatMap { frame in channels.map { $0[frame] } }
    }
}

/// Writes test fixtures through the project's own libsndfile writer.
public enum Fixture {
    /// Writes interleaved Float samples as a file of `format`.
    @discardableResult
    public static func write(
        _ samples: [Float], to path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int = 1
    ) throws -> String {
        let writer = try AudioFileWriter(path: path, format: format, sampleRate: sampleRate, channelCount: channelCount)
        try writer.write(samples)
        try writer.commit()
        return path
    }

    /// Writes interleaved 16-bit samples as a file of `format`.
    @discardableResult
    public static func write(
        _ samples: [Int16], to path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int = 1
    ) throws -> String {
        let writer = try AudioFileWriter(path: path, format: format, sampleRate: sampleRate, channelCount: channelCount)
        try writer.write(samples)
        try writer.commit()
        return path
    }

    /// A 24 kHz 16-bit mono AIFF tone, the seed article's `Hello.aiff` format.
    @discardableResult
    public static func seedClip(at path: String, seconds: Double = 0.5, frequency: Double = 440) throws -> String {
        let frames = Int(seconds * 24_000)
        return try write(
            Signal.sine(frequency: frequency, sampleRate: 24_000, frameCount: frames), to: path,
            format: AudioFileFormat(.aiff, .pcm16), sampleRate: 24_000)
    }

    /// An AIFF-C file laid out like macOS `say -o` output: `FORM`/`AIFC`, an `FVER` chunk, a `COMM` chunk with
    /// the `NONE` (big-endian 16-bit) compression and its Pascal-string name, an `FLLR` filler chunk, then `SSND`.
    public static func sayStyleAIFC(_ samples: [Int16], sampleRate: Int = 22_050, to path: String) throws {
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + bigEndian(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        // 80-bit IEEE extended sample rate.
        var exponent: UInt16 = 16383 + 63
        var mantissa = UInt64(sampleRate)
        while mantissa & (1 << 63) == 0 {
            mantissa <<= 1
            exponent -= 1
        }
        let compressionName: [UInt8] = [14] + Array("not compressed".utf8) + [0]
        let comm =
            bigEndian(Int16(1)) + bigEndian(UInt32(samples.count)) + bigEndian(Int16(16)) + bigEndian(exponent)
            + bigEndian(mantissa) + Array("NONE".utf8) + compressionName
        let filler = chunk("FLLR", [UInt8](repeating: 0, count: 4028))
        let sound = chunk("SSND", bigEndian(UInt32(0)) + bigEndian(UInt32(0)) + samples.flatMap { bigEndian($0) })
        let body =
            Array("AIFC".utf8) + chunk("FVER", bigEndian(UInt32(0xA280_5140))) + chunk("COMM", comm) + filler + sound
        let file = Array("FORM".utf8) + bigEndian(UInt32(body.count)) + body
        try Data(file).write(to: URL(fileURLWithPath: path))
    }
}
