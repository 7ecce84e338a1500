// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Raises speech to a loudness its peaks would not allow with a gain alone, holding them under a ceiling: the
/// fallback voice's runs, whose loudness is matched to a voice's clips.
///
/// espeak-ng's speech has sharper peaks for its loudness than recorded speech: at the default English voice's median
/// of -13.8 LUFS, most runs would pass -1 dBTP by 2 to 6.5 dB, so a gain capped by the ceiling left them that much
/// quieter than the clips around them. The limiter looks `lookAheadSeconds` ahead, so that its gain comes down before
/// a peak rather than at it: each sample's gain is the least any sample up to the look-ahead after it may have (the
/// gain that keeps it under the ceiling), eased back towards no reduction at most as fast as `releaseSeconds` allows,
/// then averaged over the look-ahead, a ramp that reaches each peak's reduction by the peak. So it works on a run as it
/// arrives, a look-ahead behind it, and gives the same samples however the run is cut into pieces. Where no sample
/// within the look-ahead needs a reduction, the samples are the gain's exactly.
///
/// ```swift
/// var limiter = PeakLimiter(gainDecibels: 6, ceiling: 0.84)
/// play(limiter.process(piece))
/// play(limiter.finish())
/// ```
public struct PeakLimiter {
    /// How far ahead a reduction starts: the ramp down to a peak's gain.
    static let lookAheadSeconds = 0.005
    /// How slowly the gain comes back from a reduction: the time constant of its exponential ease, in seconds.
    static let releaseSeconds = 0.02
    /// A reduction this close to none is none (under 0.001 dB), so that the samples far from any peak are the gain's
    /// exactly.
    static let negligibleReduction: Double = 1e-4

    private let gain: Float
    private let ceiling: Float
    private let lookAhead = Int(lookAheadSeconds * Double(RenderFormat.sampleRate))
    private let ease = 1 - exp(-1 / (releaseSeconds * Double(RenderFormat.sampleRate)))
    /// The last `lookAhead + 1` samples in, times the gain, by index modulo their count: those not yet out.
    private var pending: [Float]
    /// How many samples have come in, and gone out; and where the next of each is in `pending` (and `recent`), kept
    /// rather than worked out from the count, since a division for each sample was a third of the limiter's time.
    private var inCount = 0
    private var outCount = 0
    private var inSlot = 0
    private var outSlot = 0
    /// The allowed gains under 1 that may still be the least in a look-ahead, by index, from `candidateHead`: each
    /// larger than the one before, so the first is the least. A sample not among them needs no reduction.
    private var candidates: [(index: Int, allowed: Double)] = []
    private var candidateHead = 0
    /// The eased gains of the last `lookAhead + 1` samples out, by index modulo their count, their sum, and how many
    /// of them reduce.
    private var recent: [Double]
    private var recentSum: Double
    private var reducing = 0
    private var eased: Double = 1

    /// - Parameters:
    ///   - gainDecibels: the gain every sample is given before its peaks are limited.
    ///   - ceiling: the largest magnitude a sample may have out, an amplitude.
    public init(gainDecibels: Double, ceiling: Float) {
        gain = Float(Decibels.amplitude(gainDecibels))
        self.ceiling = ceiling
        pending = Array(repeating: 0, count: lookAhead + 1)
        recent = Array(repeating: 1, count: lookAhead + 1)
        recentSum = Double(lookAhead + 1)
    }

    /// Takes the next samples in; returns those now settled, `lookAheadSeconds` behind.
    public mutating func process(_ samples: [Float]) -> [Float] {
        let outputCount = max(0, min(samples.count, inCount + samples.count - lookAhead - outCount))
        let output = [Float](unsafeUninitializedCapacity: outputCount) { output, count in
            for sample in samples {
                let gained = sample * gain
                pending[inSlot] = gained
                inSlot = inSlot + 1 == pending.count ? 0 : inSlot + 1
                if gained.magnitude > ceiling {
                    let allowed = Double(ceiling / gained.magnitude)
                    while candidates.count > candidateHead && candidates[candidates.count - 1].allowed >= allowed {
                        candidates.removeLast()
                    }
                    candidates.append((inCount, allowed))
                }
                inCount += 1
                if inCount > lookAhead {
                    output[count] = next()
                    count += 1
                }
            }
        }
        compact()
        return output
    }

    /// The samples still held: the last look-ahead's, with no samples after them.
    public mutating func finish() -> [Float] {
        let output = [Float](unsafeUninitializedCapacity: inCount - outCount) { output, count in
            while outCount < inCount {
                output[count] = next()
                count += 1
            }
        }
        compact()
        return output
    }

    /// `samples` at `gainDecibels`, with every sample's magnitude at most `ceiling` (an amplitude).
    public static func limit(_ samples: [Float], gainDecibels: Double, ceiling: Float) -> [Float] {
        var limiter = PeakLimiter(gainDecibels: gainDecibels, ceiling: ceiling)
        return limiter.process(samples) + limiter.finish()
    }

    /// The next sample out: its gain is the average of the eased least gains of the look-ahead up to it.
    private mutating func next() -> Float {
        let index = outCount
        let slot = outSlot
        outCount += 1
        outSlot = outSlot + 1 == pending.count ? 0 : outSlot + 1
        while candidateHead < candidates.count && candidates[candidateHead].index < index { candidateHead += 1 }
        let sample = pending[slot]
        // Far from any peak, as most samples are: the gain's, exactly.
        if candidateHead == candidates.count && eased == 1 && reducing == 0 { return sample }
        let least = candidateHead < candidates.count ? candidates[candidateHead].allowed : 1
        eased = min(least, eased + (1 - eased) * ease)
        if 1 - eased < Self.negligibleReduction { eased = 1 }
        if recent[slot] < 1 { reducing -= 1 }
        if eased < 1 { reducing += 1 }
        recentSum += eased - recent[slot]
        recent[slot] = eased
        // A sum of ones is exact again: no rounding left over from the reductions.
        if reducing == 0 { recentSum = Double(recent.count) }
        return reducing == 0 ? sample : sample * Float(recentSum / Double(recent.count))
    }

    /// Drops the candidates gone out, once they are most of their storage.
    private mutating func compact() {
        if candidateHead > 0 && candidateHead * 2 >= candidates.count {
            candidates.removeFirst(candidateHead)
            candidateHead = 0
        }
    }

    /// `samples` at `loudnessLUFS`, their true peak at most `ceilingDBTP`: a gain to the loudness, peaks limited under
    /// the ceiling (a little under, for the peaks between samples), then the gain corrected for the loudness the
    /// limiting took, again until within `loudnessToleranceLU` (at most `passes` times). Returns the samples
    /// unchanged, with the gain left to the caller, when no peak needs limiting.
    ///
    /// - Returns: the samples to play and the gain in dB still to apply to them.
    /// - Throws: `AudioIOError` when the loudness meter fails.
    public static func match(
        _ samples: [Float], loudnessLUFS target: Double, ceilingDBTP: Double
    ) throws(AudioIOError) -> (samples: [Float], levelDecibels: Double) {
        let loudness = try Loudness(samples)
        guard let measured = loudness.clipLUFS, let truePeak = loudness.truePeakDBTP else { return (samples, 0) }
        let gain = target - measured
        guard truePeak + gain > ceilingDBTP else { return (samples, gain) }
        let limited = try reach(
            target, from: samples, gainDecibels: gain, ceiling: sampleCeiling(underDBTP: ceilingDBTP)
        ).samples
        // Whatever true peak is left over the ceiling comes off the whole run.
        let over = (try Loudness(limited).truePeakDBTP ?? -.infinity) - ceilingDBTP
        guard over > 0 else { return (limited, 0) }
        return (limited, -over)
    }

    /// The gain in dB that takes `samples` to `loudnessLUFS` through the limiter under `ceilingDBTP`: what a run made
    /// while it plays is given, measured beforehand on sample phrases.
    ///
    /// - Returns: `nil` for samples too short or too quiet to measure.
    /// - Throws: `AudioIOError` when the loudness meter fails.
    public static func gainDecibels(
        reaching target: Double, from samples: [Float], ceilingDBTP: Double
    ) throws(AudioIOError) -> Double? {
        try gainDecibels(reaching: target, from: samples, ceiling: sampleCeiling(underDBTP: ceilingDBTP))
    }

    /// The gain in dB that takes `samples` to `loudnessLUFS` through the limiter under `ceiling`, an amplitude.
    static func gainDecibels(
        reaching target: Double, from samples: [Float], ceiling: Float
    ) throws(AudioIOError) -> Double? {
        guard let measured = try Loudness(samples, measuringTruePeak: false).clipLUFS else { return nil }
        return try reach(target, from: samples, gainDecibels: target - measured, ceiling: ceiling).gain
    }

    /// The sample ceiling that keeps the true peak under `ceilingDBTP`: a little under it, for the peaks between
    /// samples, which true peak counts.
    public static func sampleCeiling(underDBTP ceilingDBTP: Double) -> Float {
        Float(Decibels.amplitude(ceilingDBTP - Self.interSampleMarginDecibels))
    }

    /// Limits `samples` at `gain` under `ceiling` (an amplitude), then corrects the gain for the loudness the limiting
    /// took until within `loudnessToleranceLU` of `target` (at most `passes` times).
    private static func reach(
        _ target: Double, from samples: [Float], gainDecibels: Double, ceiling: Float
    ) throws(AudioIOError) -> (samples: [Float], gain: Double) {
        var gain = gainDecibels
        var limited = limit(samples, gainDecibels: gain, ceiling: ceiling)
        for _ in 1..<Self.passes {
            guard let reached = try Loudness(limited, measuringTruePeak: false).clipLUFS,
                abs(target - reached) > Self.loudnessToleranceLU
            else { break }
            gain += target - reached
            limited = limit(samples, gainDecibels: gain, ceiling: ceiling)
        }
        return (limited, gain)
    }

    /// How far under a true-peak ceiling the sample peaks are held.
    static let interSampleMarginDecibels = 0.5
    /// How near the loudness a limited run is left, and how many times the gain is corrected at most to get there.
    static let loudnessToleranceLU = 0.2
    static let passes = 5
}
