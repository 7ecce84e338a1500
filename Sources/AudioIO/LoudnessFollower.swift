import SpeechCore

/// Plays a run of speech that arrives in pieces at a loudness, its peaks limited: a gain chosen before the run is
/// spoken, corrected as the run's own loudness so far becomes known.
///
/// A gain chosen in advance (from how loud espeak-ng speaks the voice's sample phrases) misses a given run by up to
/// about 2 LU, as runs differ in their sounds and in how much the limiter takes off their peaks. So once
/// `settlingSeconds` of the run are in, at the end of each `blockSeconds` block the gain is chosen again: the one that
/// takes the run's loudness so far (before any gain) to the target, plus what the limiter has taken off so far (the
/// loudness before it less the loudness after it, over the samples it has let out), at most `correctionLimitDecibels`
/// from the first. The gain eases to it linearly over the next block. The blocks are counted in samples, so the run
/// comes out the same however it is cut into pieces.
///
/// ```swift
/// var follower = try LoudnessFollower(targetLUFS: -14, gainDecibels: 6, ceiling: 0.84)
/// play(follower.process(piece))
/// play(follower.finish())
/// ```
public struct LoudnessFollower {
    /// How much of a run is in before its loudness corrects the gain: one EBU R128 momentary window.
    static let settlingSeconds = 0.4
    /// How often the gain is chosen again, and how long it takes to move to the new one.
    static let blockSeconds = 0.1
    /// How far the correction may move the gain from the one chosen in advance.
    static let correctionLimitDecibels = 6.0

    private let targetLUFS: Double
    private let firstGain: Double
    private var limiter: PeakLimiter
    /// The run before any gain; the samples the limiter let out, before it and after it.
    private let input: LoudnessMeter
    private let beforeLimiter: LoudnessMeter
    private let afterLimiter: LoudnessMeter
    /// The samples given to the limiter that it has not let out yet, from `gainedStart`.
    private var gained: [Float] = []
    private let blockFrames = Int(blockSeconds * Double(RenderFormat.sampleRate))
    /// Samples in so far, and in the block under way.
    private var frameCount = 0
    private var blockFrameCount = 0
    /// The gain at the start of the block under way, and the one it eases to by its end (dB).
    private var fromGain: Double
    private var toGain: Double

    /// - Parameters:
    ///   - gainDecibels: the gain chosen in advance.
    ///   - ceiling: the largest magnitude a sample may have out, an amplitude (`PeakLimiter`).
    /// - Throws: `AudioIOError.loudnessMeter` when libebur128 cannot make a meter.
    public init(targetLUFS: Double, gainDecibels: Double, ceiling: Float) throws(AudioIOError) {
        self.targetLUFS = targetLUFS
        firstGain = gainDecibels
        fromGain = gainDecibels
        toGain = gainDecibels
        limiter = PeakLimiter(gainDecibels: 0, ceiling: ceiling)
        input = try LoudnessMeter(measuringTruePeak: false)
        beforeLimiter = try LoudnessMeter(measuringTruePeak: false)
        afterLimiter = try LoudnessMeter(measuringTruePeak: false)
    }

    /// Takes the next samples in; returns those now settled, the limiter's look-ahead behind. Should a meter fail
    /// (libebur128 out of memory), the gain stays as it is.
    public mutating func process(_ samples: [Float]) -> [Float] {
        var output: [Float] = []
        output.reserveCapacity(samples.count)
        var start = 0
        while start < samples.count {
            let count = min(samples.count - start, blockFrames - blockFrameCount)
            let piece = Array(samples[start..<start + count])
            let levelled: [Float]
            if fromGain == toGain {
                // Most blocks: one gain, worked out once rather than a power for each sample.
                let gain = Float(Decibels.amplitude(fromGain))
                levelled = piece.map { $0 * gain }
            } else {
                levelled = piece.indices.map { index in
                    let position = Double(blockFrameCount + index) / Double(blockFrames)
                    return piece[index] * Float(Decibels.amplitude(fromGain + (toGain - fromGain) * position))
                }
            }
            output += letOut(limiter.process(levelled), after: levelled)
            measure(input, piece)
            start += count
            blockFrameCount += count
            frameCount += count
            if blockFrameCount == blockFrames { endBlock() }
        }
        return output
    }

    /// The samples the limiter still holds.
    public mutating func finish() -> [Float] { limiter.finish() }

    /// Notes the samples the limiter let out, before and after it, and returns them.
    private mutating func letOut(_ limited: [Float], after levelled: [Float]) -> [Float] {
        gained += levelled
        measure(beforeLimiter, Array(gained.prefix(limited.count)))
        measure(afterLimiter, limited)
        gained.removeFirst(limited.count)
        return limited
    }

    /// Chooses the gain the next block eases to.
    private mutating func endBlock() {
        blockFrameCount = 0
        fromGain = toGain
        guard Double(frameCount) >= Self.settlingSeconds * Double(RenderFormat.sampleRate),
            let loudness = try? input.loudness().clipLUFS
        else { return }
        let before = try? beforeLimiter.loudness().clipLUFS
        let after = try? afterLimiter.loudness().clipLUFS
        let limited = before.flatMap { before in after.map { before - $0 } } ?? 0
        let limit = Self.correctionLimitDecibels
        toGain = min(max(targetLUFS - loudness + limited, firstGain - limit), firstGain + limit)
    }

    private func measure(_ meter: LoudnessMeter, _ samples: [Float]) {
        _ = try? samples.withUnsafeBufferPointer { (samples) throws(AudioIOError) in try meter.add(samples) }
    }
}
