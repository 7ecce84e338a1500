// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How fast, how high and how loud to speak, in the terms of SSML's `<prosody>`.
///
/// A request's prosody is what wrapping it in `<prosody>` would say: `Prosody(rate: 2)` is
/// `<prosody rate="200%">`. Nested prosody multiplies rates and adds semitones and decibels.
public struct Prosody: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A multiple of the default rate (`2` for `rate="200%"`); `nil` when no rate is given, which speaks at the
    /// voice's normal speed whatever the voice's normal rate.
    public var rate: Double?
    /// A pitch shift in semitones that keeps the duration: `12` is an octave up.
    public var pitchSemitones: Double
    /// A gain in dB; `-infinity` is silent.
    public var volumeDecibels: Double

    public init(rate: Double? = nil, pitchSemitones: Double = 0, volumeDecibels: Double = 0) {
        self.rate = rate
        self.pitchSemitones = pitchSemitones
        self.volumeDecibels = volumeDecibels
    }

    /// No change: the clips as recorded.
    public static let normal = Prosody()

    /// Speeds the renderer stretches clips to; a faster or slower request is clamped, with a warning.
    public static let speeds: ClosedRange<Double> = 0.2...8
    /// Pitch shifts the renderer makes, in semitones; a larger shift is clamped, with a warning.
    public static let pitchShifts: ClosedRange<Double> = -24...24

    /// The tempo a voice speaks `rate` at: the rate divided by the voice's normal rate, 1 (the clips as recorded)
    /// when no rate is given. A voice whose normal rate is 4 speaks `rate="400%"` at 1x, as it speaks no rate.
    public static func speed(rate: Double?, normalRate: Double) -> Double {
        // x / x is exactly 1 in floating point, so the normal rate needs no case of its own.
        guard let rate else { return 1 }
        return rate / normalRate
    }

    /// The frequency ratio of a shift in semitones: 2 for +12.
    public static func pitchFactor(semitones: Double) -> Double {
        semitones == 0 ? 1 : pow(2, semitones / 12)
    }

    /// The interval in semitones from one frequency to another: 12 from 110 Hz to 220 Hz, -12 back.
    public static func semitones(from frequency: Double, to other: Double) -> Double {
        12 * log2(other / frequency)
    }

    /// `rate 2.0, pitch +2.0st, volume -6.0 dB`: the parts that differ from normal; `normal` when none does.
    public var description: String {
        var parts: [String] = []
        if let rate { parts.append("rate \(rate)") }
        if pitchSemitones != 0 { parts.append("pitch \(pitchSemitones < 0 ? "" : "+")\(pitchSemitones)st") }
        if volumeDecibels != 0 { parts.append(volumeDecibels == -.infinity ? "silent" : "volume \(volumeDecibels) dB") }
        return parts.isEmpty ? "normal" : parts.joined(separator: ", ")
    }
}
