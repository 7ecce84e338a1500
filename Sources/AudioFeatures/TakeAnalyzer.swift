// SPDX-License-Identifier: GPL-3.0-or-later
import CAubio
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What import measures of a take, over the samples it plays: its edges as a join compares them, the hint of its
/// place its pitch gives, and its median F0, all from one pass of the pitch tracker.
public struct TakeMeasurement: Equatable, Sendable {
    public var edges: TakeEdges
    /// `nil` when its end has too few voiced hops to tell (`TakeAnalyzer.minimumContourHops`).
    public var contour: PitchContour?
    /// The median F0 of its voiced hops (as `PitchTracker.medianFrequency` measures it); `nil` when none is voiced.
    public var medianF0Hz: Double?
}

/// Measures takes (`TakeMeasurement`): F0 with aubio's YIN (`PitchTracker`), the level and mel-frequency cepstrum of
/// the first and last sounding analysis frames with aubio's phase vocoder (`aubio_pvoc_t`) and MFCC (`aubio_mfcc_t`).
///
/// Owns the phase vocoder, the MFCC and their three buffers, deleted in `deinit`; neither keeps anything from one
/// frame to the next (the vocoder's hop is its whole window), so one analyzer measures any number of takes, one at a
/// time. The pitch tracker does remember, so each take gets a new one.
///
/// ```swift
/// let measurement = try TakeAnalyzer().measure(samples)   // edges, contour .falling, median F0 201.4 Hz
/// ```
public final class TakeAnalyzer {
    /// The analysis frame whose level and cepstrum stand for an edge: 512 frames, 23 ms at 22050 Hz, about two
    /// periods of a low voice. A take shorter than that is measured over what it has, padded with silence.
    public static let frameCount = 512
    /// Mel filters before the cepstrum: the 40 of Slaney's Auditory Toolbox, aubio's default design for 40.
    public static let filterCount = 40
    /// The voiced hops averaged (by median) for the F0 at each edge: 3 hops, 35 ms, so that one octave error where
    /// voicing starts or stops, where YIN errs most, does not become the edge's F0.
    public static let edgeHopCount = 3
    /// How much of a take's voiced end its contour is measured over: the last 200 ms before its last voiced hop.
    public static let contourSeconds = 0.2
    /// The fewest voiced hops in that stretch that tell a contour: 4 hops, about 46 ms of voicing.
    public static let minimumContourHops = 4
    /// A movement of less than this many semitones either way is `level`: 1.5 semitones is about the smallest pitch
    /// movement listeners hear as a rise or fall in a syllable ('t Hart, Collier and Cohen, "A perceptual study of
    /// intonation", 1990: 1.5 to 3 semitones).
    public static let levelSemitones = 1.5
    /// Hops further than this from the median F0 of the stretch are left out of its contour: YIN's octave errors
    /// (12 semitones) and sub-harmonics, not movements a voice makes in 200 ms.
    public static let outlierSemitones = 6.0

    public let sampleRate: Int
    private let vocoder: OpaquePointer
    private let mfcc: OpaquePointer
    private let frame: UnsafeMutablePointer<fvec_t>
    private let spectrum: UnsafeMutablePointer<cvec_t>
    private let cepstrum: UnsafeMutablePointer<fvec_t>

    /// - Throws: `AudioFeaturesError.takeAnalyzer` when aubio refuses the rate or cannot allocate.
    public init(sampleRate: Int = RenderFormat.sampleRate) throws(AudioFeaturesError) {
        self.sampleRate = sampleRate
        let size = UInt32(Self.frameCount)
        guard sampleRate > 0, let vocoder = new_aubio_pvoc(size, size) else {
            throw .takeAnalyzer(reason: "aubio cannot make a phase vocoder of \(Self.frameCount) frames")
        }
        guard
            let mfcc = new_aubio_mfcc(
                size, UInt32(Self.filterCount), UInt32(TakeEdges.cepstrumCount), UInt32(sampleRate))
        else {
            del_aubio_pvoc(vocoder)
            throw .takeAnalyzer(reason: "aubio cannot make an MFCC of \(Self.filterCount) filters at \(sampleRate) Hz")
        }
        guard let frame = new_fvec(size), let spectrum = new_cvec(size),
            let cepstrum = new_fvec(UInt32(TakeEdges.cepstrumCount))
        else {
            del_aubio_mfcc(mfcc)
            del_aubio_pvoc(vocoder)
            throw .takeAnalyzer(reason: "aubio cannot allocate its buffers")
        }
        self.vocoder = vocoder
        self.mfcc = mfcc
        self.frame = frame
        self.spectrum = spectrum
        self.cepstrum = cepstrum
    }

    deinit {
        del_fvec(cepstrum)
        del_cvec(spectrum)
        del_fvec(frame)
        del_aubio_mfcc(mfcc)
        del_aubio_pvoc(vocoder)
    }

    /// Measures the samples a take plays.
    ///
    /// - Throws: `AudioFeaturesError.pitchTracker` when aubio cannot make a pitch detector.
    public func measure(_ samples: [Float]) throws(AudioFeaturesError) -> TakeMeasurement {
        let hops = try PitchTracker(sampleRate: sampleRate).voicedHops(samples)
        let (head, tail) = Self.soundingEdges(samples)
        let edges = TakeEdges(
            firstF0Hz: PitchTracker.median(hops.prefix(Self.edgeHopCount).map(\.frequency)),
            lastF0Hz: PitchTracker.median(hops.suffix(Self.edgeHopCount).map(\.frequency)),
            firstEnergyDecibels: Self.level(head), lastEnergyDecibels: Self.level(tail),
            firstCepstrum: cepstrum(of: head), lastCepstrum: cepstrum(of: tail))
        return TakeMeasurement(
            edges: edges, contour: endMovement(hops).map(Self.contour),
            medianF0Hz: PitchTracker.median(hops.map(\.frequency)))
    }

    /// Measures `samples` with an analyzer of its own.
    ///
    /// - Throws: `AudioFeaturesError` when aubio cannot make its objects.
    public static func measure(
        _ samples: [Float], sampleRate: Int = RenderFormat.sampleRate
    ) throws(AudioFeaturesError) -> TakeMeasurement {
        try TakeAnalyzer(sampleRate: sampleRate).measure(samples)
    }

    /// The contour a movement of `semitones` over a take's voiced end is classed as (`levelSemitones` either way).
    public static func contour(_ semitones: Double) -> PitchContour {
        semitones <= -levelSemitones ? .falling : semitones >= levelSemitones ? .rising : .level
    }

    /// How far below a take's loudest analysis frame its edge frames may be: the frames of its trimmed silence and
    /// of its decay are quieter, and what they would say of the take's edge is the room's noise.
    static let soundingRangeDecibels = 30.0

    /// The first and last analysis frames whose level is within `soundingRangeDecibels` of the loudest: where the take
    /// starts and stops sounding, past the silence trimming keeps around it (a half step further in where that is
    /// louder: the first frame past the threshold may hold little of the sound). Frames step half a frame in from each end,
    /// so that a take sounding to its ends is measured on its first and last `frameCount` samples; a take shorter than
    /// a frame is both.
    static func soundingEdges(_ samples: [Float]) -> (head: ArraySlice<Float>, tail: ArraySlice<Float>) {
        guard samples.count > frameCount else { return (samples[...], samples[...]) }
        let starts = Array(stride(from: 0, through: samples.count - frameCount, by: frameCount / 2))
        let ends = Array(stride(from: samples.count, through: frameCount, by: -frameCount / 2))
        let headLevels = starts.map { level(samples[$0..<$0 + frameCount]) }
        let tailLevels = ends.map { level(samples[$0 - frameCount..<$0]) }
        let threshold = max(headLevels.max()!, tailLevels.max()!) - soundingRangeDecibels
        // The first frame past the threshold may be mostly silence with the sound's start in its end: where the next
        // half step is louder, that is the edge.
        let edge = { (levels: [Double]) -> Int in
            let index = levels.firstIndex { $0 >= threshold } ?? 0
            return index + 1 < levels.count && levels[index + 1] > levels[index] + 1 ? index + 1 : index
        }
        let first = starts[edge(headLevels)]
        let last = ends[edge(tailLevels)]
        return (samples[first..<first + frameCount], samples[last - frameCount..<last])
    }

    /// RMS level of `frames` in dB relative to full scale, over the frames it has; `TakeEdges.silenceDecibels` for
    /// digital silence (or nothing).
    static func level(_ frames: ArraySlice<Float>) -> Double {
        let power = frames.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, frames.count))
        guard power > 0 else { return TakeEdges.silenceDecibels }
        return max(TakeEdges.silenceDecibels, Decibels.level(power: power))
    }

    /// The MFCC of one analysis frame (`frames`, padded with silence to `frameCount`).
    private func cepstrum(of frames: ArraySlice<Float>) -> [Float] {
        let data = frame.pointee.data!
        for (offset, sample) in frames.enumerated() { data[offset] = sample }
        for offset in frames.count..<Self.frameCount { data[offset] = 0 }
        aubio_pvoc_do(vocoder, frame, spectrum)
        aubio_mfcc_do(mfcc, spectrum, cepstrum)
        return (0..<TakeEdges.cepstrumCount).map { cepstrum.pointee.data[$0] }
    }

    /// The pitch movement over the voiced end, in semitones: the least-squares line through the F0s (in semitones) of
    /// the voiced hops in the last `contourSeconds` before the last one, across the time they span; `nil` with fewer
    /// than `minimumContourHops` hops once `outlierSemitones` strays are left out.
    func endMovement(_ hops: [PitchTracker.VoicedHop]) -> Double? {
        guard let last = hops.last?.hop else { return nil }
        let span = Int((Self.contourSeconds * Double(sampleRate) / Double(PitchTracker.hopFrames)).rounded())
        let end = hops.drop { $0.hop < last - span }
        guard let middle = PitchTracker.median(end.map(\.frequency)) else { return nil }
        let points = end.map { hop in
            (
                seconds: Double(hop.hop * PitchTracker.hopFrames) / Double(sampleRate),
                semitones: 12 * log2(hop.frequency / middle)
            )
        }.filter { abs($0.semitones) <= Self.outlierSemitones }
        guard points.count >= Self.minimumContourHops, let first = points.first, let final = points.last else {
            return nil
        }
        let count = Double(points.count)
        let meanSeconds = points.reduce(0) { $0 + $1.seconds } / count
        let meanSemitones = points.reduce(0) { $0 + $1.semitones } / count
        let covariance = points.reduce(0) { $0 + ($1.seconds - meanSeconds) * ($1.semitones - meanSemitones) }
        let variance = points.reduce(0) { $0 + ($1.seconds - meanSeconds) * ($1.seconds - meanSeconds) }
        return covariance / variance * (final.seconds - first.seconds)
    }
}
