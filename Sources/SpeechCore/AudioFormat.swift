// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output format every clip is prepared in and every render produces.
public enum RenderFormat {
    /// Frames per second of render-ready audio: what Apple's speech-synthesizer voices answer with.
    public static let sampleRate = 22_050

    /// A frame count as whole milliseconds, rounded: 661 frames are 30 ms.
    public static func milliseconds(_ frames: Int) -> Int { (frames * 1000 + sampleRate / 2) / sampleRate }

    /// Where render frame `frame` falls in output converted to `outputRate`: `frame × outputRate ÷ 22050`, rounded
    /// half up, the rule the converted output's length follows too (AudioIO's `StreamingResampler`).
    public static func frame(_ frame: Int, atSampleRate outputRate: Int) -> Int {
        (frame * outputRate + sampleRate / 2) / sampleRate
    }
}

/// Levels in decibels and the amplitudes they stand for.
public enum Decibels {
    /// The amplitude factor of a level: 10^(dB/20); 0 for -infinity (silent).
    public static func amplitude(_ decibels: Double) -> Double {
        decibels == -.infinity ? 0 : pow(10, decibels / 20)
    }

    /// The level of an amplitude factor: 20·log10(amplitude); -infinity (silent) for 0, or anything not above it.
    public static func level(amplitude: Double) -> Double {
        amplitude > 0 ? 20 * log10(amplitude) : -.infinity
    }

    /// The level of a power (a mean square, or a ratio of two): 10·log10(power); -infinity for 0, or anything not
    /// above it.
    public static func level(power: Double) -> Double {
        power > 0 ? 10 * log10(power) : -.infinity
    }

    /// A level with one decimal, as messages give it: `-6.0`, `7.2`; `-inf` for silence.
    public static func text(_ decibels: Double) -> String {
        guard decibels.isFinite else { return decibels < 0 ? "-inf" : "inf" }
        return decimal(decibels, places: 1)
    }
}
