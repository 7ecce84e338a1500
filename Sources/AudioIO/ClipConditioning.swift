// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// `playedRange` for samples that arrive in pieces: it hands on each sample once it is sure to be played, and the
    /// end's pad at the end, so the samples out are those of `playedRange` over the whole, however they were cut.
    ///
    /// Before the first sample that reaches the threshold it holds what came (all of it is played should none reach
    /// it); after the last, it holds what is past the pad until another reaches it or the samples end.
    public struct Trimmer {
        private let threshold: Float
        private let padFrames: Int
        /// The samples held: before the first that reached the threshold, or past the pad after the last.
        private var held: [Float] = []
        private var hasStarted = false
        /// Samples since the last that reached the threshold.
        private var quietCount = 0

        public init(_ trimming: Trimming) {
            threshold = Float(Decibels.amplitude(trimming.thresholdDecibels))
            padFrames = trimming.padFrames
        }

        /// Takes the next samples; returns those now sure to be played.
        public mutating func process(_ samples: [Float]) -> [Float] {
            var output: [Float] = []
            output.reserveCapacity(held.count + samples.count)
            // The samples from `quietStart` up to the next that reaches the threshold are quiet: they are dealt with
            // as one run, not one at a time (a run's first piece is on the way to its first audio).
            var quietStart = 0
            for index in samples.indices where abs(samples[index]) >= threshold {
                takeQuiet(samples[quietStart..<index], into: &output)
                if !hasStarted {
                    hasStarted = true
                    held.removeFirst(max(0, held.count - padFrames))
                }
                if !held.isEmpty {
                    output += held
                    held.removeAll(keepingCapacity: true)
                }
                output.append(samples[index])
                quietCount = 0
                quietStart = index + 1
            }
            takeQuiet(samples[quietStart...], into: &output)
            return output
        }

        /// Quiet samples: played within the pad after the last that reached the threshold, held otherwise.
        private mutating func takeQuiet(_ quiet: ArraySlice<Float>, into output: inout [Float]) {
            guard !quiet.isEmpty else { return }
            let played = hasStarted ? min(quiet.count, padFrames - quietCount) : 0
            output += quiet.prefix(played)
            quietCount += played
            held += quiet.dropFirst(played)
        }

        /// The samples still held that are played: all of them if none reached the threshold, none past the pad.
        public mutating func finish() -> [Float] {
            defer { held.removeAll() }
            return hasStarted ? [] : held
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
