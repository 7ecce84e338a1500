// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Pitch marks: one frame in each pitch period of a take's voiced stretches, at the period's largest waveform peak,
/// where units of a take are cut and joined so that a join keeps the periods whole.
///
/// The period comes from aubio's YIN (`PitchTracker`, hop by hop); the mark is the largest sample of the polarity the
/// voice's peaks have (a voice's glottal pulses point one way, which a microphone's wiring may flip), searched within
/// a fraction of a period of where the last mark and the period put the next one, so that the marks follow the
/// waveform rather than the hops. Unvoiced stretches (silence, breath, fricatives) get none.
///
/// ```swift
/// let marks = try PitchMarks.measure(samples)   // [6_674, 6_825, 6_975, …]: frames at 22050 Hz
/// ```
public enum PitchMarks {
    /// How far from one period after the last mark the next is looked for, as a share of the period: enough for F0
    /// to move by a fifth between periods, too little to take the next period's peak.
    public static let searchShare = 0.3

    /// The marks of `samples` (mono), in increasing order, as frames of `samples`.
    ///
    /// - Throws: `AudioFeaturesError.pitchTracker` when aubio cannot make its detector.
    public static func measure(
        _ samples: [Float], sampleRate: Int = RenderFormat.sampleRate
    ) throws(AudioFeaturesError) -> [Int] {
        let hops = try PitchTracker(sampleRate: sampleRate).voicedHops(samples)
        guard !hops.isEmpty else { return [] }
        let hopFrames = PitchTracker.hopFrames
        // A hop's estimate is of the window that ends with it; it stands for the hop of frames at that window's middle.
        let lag = PitchTracker.windowFrames / 2 - hopFrames
        var frequencies = [Double?](repeating: nil, count: samples.count / hopFrames + 1)
        for hop in hops {
            let middle = (hop.hop * hopFrames - lag) / hopFrames
            if middle >= 0 && middle < frequencies.count { frequencies[middle] = hop.frequency }
        }
        func frequency(at frame: Int) -> Double? {
            let hop = frame / hopFrames
            return hop >= 0 && hop < frequencies.count ? frequencies[hop] : nil
        }
        let sign = polarity(samples, voicedHops: frequencies, hopFrames: hopFrames)
        func peak(in range: Range<Int>) -> Int? {
            let clamped = max(0, range.lowerBound)..<min(samples.count, range.upperBound)
            guard !clamped.isEmpty else { return nil }
            var best = clamped.lowerBound
            for frame in clamped where sign * samples[frame] > sign * samples[best] { best = frame }
            return best
        }
        var marks: [Int] = []
        var frame = 0
        while frame < samples.count {
            guard let start = frequency(at: frame) else {
                frame += hopFrames - frame % hopFrames
                continue
            }
            // A voiced stretch begins: its first mark is the peak of its first period.
            var step = period(start, sampleRate)
            guard var mark = peak(in: frame..<(frame + step)) else { break }
            marks.append(mark)
            while let f0 = frequency(at: mark) {
                step = period(f0, sampleRate)
                let reach = Int((Double(step) * searchShare).rounded())
                let expected = mark + step
                guard let next = peak(in: (expected - reach)..<(expected + reach + 1)), next > mark else { break }
                mark = next
                marks.append(mark)
            }
            // Half a period on, so that a stretch that goes on voiced does not mark the same period twice.
            frame = mark + max(1, step / 2)
        }
        return marks
    }

    /// The period of `frequency` Hz, in frames.
    static func period(_ frequency: Double, _ sampleRate: Int) -> Int {
        max(1, Int((Double(sampleRate) / frequency).rounded()))
    }

    /// 1 when the voiced hops' positive peaks are the larger, else -1.
    static func polarity(_ samples: [Float], voicedHops: [Double?], hopFrames: Int) -> Float {
        var positive: Float = 0
        var negative: Float = 0
        for (hop, frequency) in voicedHops.enumerated() where frequency != nil {
            let frames = (hop * hopFrames)..<min(samples.count, (hop + 1) * hopFrames)
            guard !frames.isEmpty else { continue }
            positive += samples[frames].max() ?? 0
            negative -= samples[frames].min() ?? 0
        }
        return positive >= negative ? 1 : -1
    }
}
