// SPDX-License-Identifier: GPL-3.0-or-later
import CAubio
import SpeechCore

/// What can go wrong measuring audio features; each case carries the library's reason.
public enum AudioFeaturesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// aubio could not make or set up its pitch detector.
    case pitchTracker(reason: String)
    /// aubio could not make or set up the phase vocoder or MFCC that measure a take's edges.
    case takeAnalyzer(reason: String)

    public var description: String {
        switch self {
        case .pitchTracker(let reason):
            return "F0 measurement failed: \(reason); expected aubio 0.4 with its YIN pitch detector"
        case .takeAnalyzer(let reason):
            return "measuring a take's edges failed: \(reason); expected aubio 0.4 with its phase vocoder and MFCC"
        }
    }
}

/// The fundamental frequency (F0) of mono audio, hop by hop, with aubio's YIN: how a voice's pitch is measured.
///
/// Owns an `aubio_pitch_t` and its two `fvec_t` buffers, deleted in `deinit`. A tracker remembers the last window
/// it was given, so each recording gets a tracker of its own (`medianFrequency(of:)` makes one).
///
/// ```swift
/// let f0 = try PitchTracker.medianFrequency(of: samples)   // 201.4, or nil for audio with no voiced part
/// ```
public final class PitchTracker {
    /// Frames YIN looks at for each estimate: 46 ms at 22050 Hz, which reaches down to 43 Hz.
    public static let windowFrames = 1_024
    /// Frames between estimates: 12 ms at 22050 Hz.
    public static let hopFrames = 256
    /// Frequencies a voice's F0 can have; an estimate outside them is not counted.
    public static let voiceFrequencies: ClosedRange<Double> = 50...1_000
    /// How sure YIN must be of a hop (aubio's confidence, 1 minus YIN's dip) for it to count as voiced.
    public static let minimumConfidence: Float = 0.8
    /// Hops quieter than this (dBFS) are not estimated: silence and breath.
    public static let silenceDecibels: Float = -50

    public let sampleRate: Int
    private let detector: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>

    /// - Throws: `AudioFeaturesError.pitchTracker` when aubio refuses the rate or the settings.
    public init(sampleRate: Int = RenderFormat.sampleRate) throws(AudioFeaturesError) {
        self.sampleRate = sampleRate
        guard sampleRate > 0,
            let detector = new_aubio_pitch("yin", UInt32(Self.windowFrames), UInt32(Self.hopFrames), UInt32(sampleRate))
        else { throw .pitchTracker(reason: "aubio cannot make a YIN detector at \(sampleRate) Hz") }
        guard let input = new_fvec(UInt32(Self.hopFrames)), let output = new_fvec(1) else {
            del_aubio_pitch(detector)
            throw .pitchTracker(reason: "aubio cannot allocate its buffers")
        }
        self.detector = detector
        self.input = input
        self.output = output
        for (setting, status) in [
            ("unit Hz", aubio_pitch_set_unit(detector, "Hz")), ("tolerance", aubio_pitch_set_tolerance(detector, 0.15)),
            ("silence", aubio_pitch_set_silence(detector, Self.silenceDecibels)),
        ] where status != 0 {
            throw .pitchTracker(reason: "aubio refused its \(setting) setting")
        }
    }

    deinit {
        del_fvec(output)
        del_fvec(input)
        del_aubio_pitch(detector)
    }

    /// One hop YIN was sure of: which hop of the samples (the estimate is of the window that ends with it), and its
    /// F0 in Hz.
    public struct VoicedHop: Equatable, Sendable {
        public var hop: Int
        public var frequency: Double

        public init(hop: Int, frequency: Double) {
            self.hop = hop
            self.frequency = frequency
        }
    }

    /// The voiced hops of `samples`, in order: hops above the silence threshold that YIN is sure of, within
    /// `voiceFrequencies`.
    public func voicedHops(_ samples: [Float]) -> [VoicedHop] {
        var hops: [VoicedHop] = []
        var start = 0
        while start + Self.hopFrames <= samples.count {
            let data = input.pointee.data!
            for index in 0..<Self.hopFrames { data[index] = samples[start + index] }
            aubio_pitch_do(detector, input, output)
            let frequency = Double(output.pointee.data[0])
            if aubio_pitch_get_confidence(detector) >= Self.minimumConfidence, Self.voiceFrequencies.contains(frequency)
            {
                hops.append(VoicedHop(hop: start / Self.hopFrames, frequency: frequency))
            }
            start += Self.hopFrames
        }
        return hops
    }

    /// The median of F0s (the upper one of two middles); `nil` for none.
    public static func median(_ frequencies: [Double]) -> Double? {
        let sorted = frequencies.sorted()
        return sorted.isEmpty ? nil : sorted[sorted.count / 2]
    }

    /// The median F0 of the voiced hops of `samples` (the upper one of two middles), in Hz; `nil` when no hop is
    /// voiced (silence, noise, a clip shorter than a window).
    ///
    /// - Throws: `AudioFeaturesError.pitchTracker` when aubio cannot make a detector.
    public static func medianFrequency(
        of samples: [Float], sampleRate: Int = RenderFormat.sampleRate
    ) throws(AudioFeaturesError) -> Double? {
        median(try PitchTracker(sampleRate: sampleRate).voicedHops(samples).map(\.frequency))
    }
}
