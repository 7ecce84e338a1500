import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Raises a whole run of speech to a loudness its peaks would not allow with a gain alone, holding them under a
/// ceiling: the fallback voice's runs, whose loudness is matched to a voice's clips.
///
/// espeak-ng's speech has sharper peaks for its loudness than recorded speech: at the default English voice's median
/// of -13.8 LUFS, most runs would pass -1 dBTP by 2 to 6.5 dB, so a gain capped by the ceiling left them that much
/// quieter than the clips around them. The limiter sees the whole run (it is made whole before it plays), so its gain
/// comes down ahead of each peak as well as after it: the gain a sample needs to stay under the ceiling, held for
/// `holdSeconds` either side, then eased back to no reduction at most as fast as `releaseSeconds` allows, in both
/// directions. A run that needs no reduction comes out as `samples` times the gain, exactly.
///
/// ```swift
/// let level = try PeakLimiter.match(samples, loudnessLUFS: -14, ceilingDBTP: -1)
/// ```
public enum PeakLimiter {
    /// How long a reduction is held on either side of the peak that needs it.
    static let holdSeconds = 0.002
    /// How slowly the gain comes back from a reduction: the time constant of its exponential ease, in seconds.
    static let releaseSeconds = 0.02
    /// A reduction this close to none is none (under 0.001 dB), so that the samples far from any peak are the gain's
    /// exactly.
    static let negligibleReduction: Float = 1e-4

    /// `samples` at `gainDecibels`, with every sample's magnitude at most `ceiling` (an amplitude).
    public static func limit(_ samples: [Float], gainDecibels: Double, ceiling: Float) -> [Float] {
        let gain = Float(Decibels.amplitude(gainDecibels))
        var output = samples.map { $0 * gain }
        // The gain each sample may have at most, then held either side, then eased both ways.
        var allowed = output.map { $0.magnitude > ceiling ? ceiling / $0.magnitude : 1 }
        guard allowed.contains(where: { $0 < 1 }) else { return output }
        let hold = max(1, Int(holdSeconds * Double(RenderFormat.sampleRate)))
        allowed = minimum(of: allowed, within: hold)
        let ease = Float(1 - exp(-1 / (releaseSeconds * Double(RenderFormat.sampleRate))))
        let eased = { (before: Float) -> Float in
            let next = before + (1 - before) * ease
            return 1 - next < negligibleReduction ? 1 : next
        }
        for index in allowed.indices.dropFirst() { allowed[index] = min(allowed[index], eased(allowed[index - 1])) }
        for index in allowed.indices.dropLast().reversed() {
            allowed[index] = min(allowed[index], eased(allowed[index + 1]))
        }
        for index in output.indices { output[index] *= allowed[index] }
        return output
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
        var gain = target - measured
        guard truePeak + gain > ceilingDBTP else { return (samples, gain) }
        // Sample peaks a little under the ceiling leave room for the peaks between samples, which true peak counts.
        let ceiling = Float(Decibels.amplitude(ceilingDBTP - Self.interSampleMarginDecibels))
        var limited = limit(samples, gainDecibels: gain, ceiling: ceiling)
        for _ in 1..<Self.passes {
            guard let reached = try Loudness(limited, measuringTruePeak: false).clipLUFS,
                abs(target - reached) > Self.loudnessToleranceLU
            else { break }
            gain += target - reached
            limited = limit(samples, gainDecibels: gain, ceiling: ceiling)
        }
        // Whatever true peak is left over the ceiling comes off the whole run.
        let over = (try Loudness(limited).truePeakDBTP ?? -.infinity) - ceilingDBTP
        guard over > 0 else { return (limited, 0) }
        return (limited, -over)
    }

    /// How far under a true-peak ceiling the sample peaks are held.
    static let interSampleMarginDecibels = 0.5
    /// How near the loudness a limited run is left, and how many times the gain is corrected at most to get there.
    static let loudnessToleranceLU = 0.2
    static let passes = 5

    /// Each value the least of those within `radius` places of it, in a window that slides: a deque of candidates,
    /// linear in the count.
    private static func minimum(of values: [Float], within radius: Int) -> [Float] {
        var result = values
        var candidates: [Int] = []
        var head = 0
        var next = 0
        for index in values.indices {
            while next < values.count && next <= index + radius {
                while candidates.count > head && values[candidates[candidates.count - 1]] >= values[next] {
                    candidates.removeLast()
                }
                candidates.append(next)
                next += 1
            }
            while candidates[head] < index - radius { head += 1 }
            result[index] = values[candidates[head]]
        }
        return result
    }
}
