import SpeechCore

/// How much silence to cut from a clip's ends: samples under `thresholdDecibels` (dBFS, by absolute peak),
/// keeping `padFrames` of what was cut at each end so soft consonants and breaths are not clipped.
public struct Trimming: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var thresholdDecibels: Double
    public var padFrames: Int

    public init(thresholdDecibels: Double, padFrames: Int) {
        self.thresholdDecibels = thresholdDecibels
        self.padFrames = padFrames
    }

    /// The most pad a voice keeps: one second, the most `voicebank configure --trim-pad` takes.
    public static let maximumPadFrames = RenderFormat.sampleRate

    /// -50 dBFS with 30 ms of pad at 22050 Hz: below any speech, above the noise floor of most recordings.
    public static let standard = Trimming(thresholdDecibels: -50, padFrames: 661)

    public var description: String {
        "below \(thresholdDecibels) dBFS, keeping \(RenderFormat.milliseconds(padFrames)) ms (\(padFrames) frames)"
    }
}

/// What import does to render-ready samples: remove DC offset, find the frames to play.
public enum ClipConditioning {
    /// Subtracts the mean, so a clip that rests off zero does not click where it starts and stops.
    public static func removeDC(_ samples: inout [Float]) {
        guard !samples.isEmpty else { return }
        let mean = Float(samples.reduce(0.0) { $0 + Double($1) } / Double(samples.count))
        guard mean != 0 else { return }
        for index in samples.indices { samples[index] -= mean }
    }

    /// The frames to play: from the first sample whose level reaches the threshold to the last, widened by the
    /// pad. Nothing at or above the threshold is ever cut; a clip with nothing above it is kept whole, and
    /// `nil` trimming keeps every clip whole.
    public static func playedRange(_ samples: [Float], trimming: Trimming?) -> Range<Int> {
        guard let trimming else { return 0..<samples.count }
        let threshold = Float(Decibels.amplitude(trimming.thresholdDecibels))
        guard let first = samples.firstIndex(where: { abs($0) >= threshold }),
            let last = samples.lastIndex(where: { abs($0) >= threshold })
        else { return 0..<samples.count }
        return max(0, first - trimming.padFrames)..<min(samples.count, last + 1 + trimming.padFrames)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
