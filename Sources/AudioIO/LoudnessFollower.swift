// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Plays a run of speech that arrives in pieces at a loudness, its peaks limited: a gain chosen before the run is
/// spoken, corrected as the run's own loudness so far becomes known.
///
/// A gain chosen in advance (from how loud espeak-ng speaks the voice's sample phrases) misses a given run by as much
/// as a few LU, as runs differ in their sounds and in how much the limiter takes off their peaks. So once
/// `settlingSeconds` of the run are in, at the end of each `blockSeconds` block the gain is chosen again: the one that
/// takes the run's loudness so far (before any gain) to the target, plus what the limiter has taken off so far (the
/// loudness before it less the loudness after it, over the samples it has let out), at most `correctionLimitDecibels`
/// from the first. What has played so far at a wrong gain is made up too: the gain goes on past that one by what
/// would bring the run as a whole to the target were the rest as long again as what has played (at most
/// `makeUpLimitDecibels`), less as the run so far comes nearer the target. The gain eases to it linearly over the next
/// block. The blocks are counted in samples, so the run comes out the same however it is cut into pieces.
///
/// Nothing is measured before the first correction is due: the samples wait, and the meters are made and given them
/// then. A run's first pieces, which its first audio waits for, are only levelled and limited: making a meter and
/// measuring with it, three times over, would delay that audio.
///
/// A run whose first audio need not come at once (one that plays after other audio) can be held: its first
/// `heldSeconds` are measured before any of it is let out, and play at the gain that takes them to the target through
/// the limiter. A run no longer than that is then at the target as a whole; a longer one is corrected as above once
/// past them.
///
/// ```swift
/// var follower = LoudnessFollower(targetLUFS: -14, gainDecibels: 6, ceiling: 0.84)
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
    /// How far the gain may go past the corrected one to make up for what has played at a wrong gain.
    static let makeUpLimitDecibels = 3.0

    private let targetLUFS: Double
    /// The gain chosen before the run, or from its held samples: what corrections stay near.
    private var firstGain: Double
    private let ceiling: Float
    private var limiter: PeakLimiter
    /// How many samples are held and measured before any is let out; and those held, `nil` once let out.
    private let heldFrames: Int
    private var held: [Float]?
    /// The run before any gain; the samples the limiter let out, before it and after it.
    private var input = LazyMeter()
    private var beforeLimiter = LazyMeter()
    private var afterLimiter = LazyMeter()
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
    ///   - heldSeconds: how much of the run is measured before any of it is let out; 0 lets the first piece out at
    ///     once, at `gainDecibels`.
    public init(targetLUFS: Double, gainDecibels: Double, ceiling: Float, heldSeconds: Double = 0) {
        self.targetLUFS = targetLUFS
        firstGain = gainDecibels
        fromGain = gainDecibels
        toGain = gainDecibels
        self.ceiling = ceiling
        limiter = PeakLimiter(gainDecibels: 0, ceiling: ceiling)
        heldFrames = Int((heldSeconds * Double(RenderFormat.sampleRate)).rounded())
        held = heldFrames > 0 ? [] : nil
    }

    /// Takes the next samples in; returns those now settled: the limiter's look-ahead behind, or none while the run's
    /// first `heldSeconds` are still coming. Should a meter fail (libebur128 out of memory), the gain stays as it is
    /// from then on.
    public mutating func process(_ samples: [Float]) -> [Float] {
        guard held != nil else { return level(samples) }
        held! += samples
        return held!.count >= heldFrames ? letHeldOut() : []
    }

    /// The samples still held, and those the limiter holds.
    public mutating func finish() -> [Float] {
        (held == nil ? [] : letHeldOut()) + limiter.finish()
    }

    /// Chooses the gain from the first `heldFrames` samples held (all of them in a shorter run), then levels them all.
    private mutating func letHeldOut() -> [Float] {
        let samples = held ?? []
        held = nil
        if let gain = try? PeakLimiter.gainDecibels(
            reaching: targetLUFS, from: Array(samples.prefix(heldFrames)), ceiling: ceiling)
        {
            firstGain = gain
            fromGain = gain
            toGain = gain
        }
        return level(samples)
    }

    /// Levels the samples at the gain of each block and limits them; returns those now settled.
    private mutating func level(_ samples: [Float]) -> [Float] {
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
            input.add(piece)
            start += count
            blockFrameCount += count
            frameCount += count
            if blockFrameCount == blockFrames { endBlock() }
        }
        return output
    }

    /// Notes the samples the limiter let out, before and after it, and returns them.
    private mutating func letOut(_ limited: [Float], after levelled: [Float]) -> [Float] {
        gained += levelled
        beforeLimiter.add(gained.prefix(limited.count))
        afterLimiter.add(limited)
        gained.removeFirst(limited.count)
        return limited
    }

    /// Chooses the gain the next block eases to.
    private mutating func endBlock() {
        blockFrameCount = 0
        fromGain = toGain
        guard Double(frameCount) >= Self.settlingSeconds * Double(RenderFormat.sampleRate), frameCount > heldFrames,
            let loudness = input.loudnessLUFS()
        else { return }
        let before = beforeLimiter.loudnessLUFS()
        let after = afterLimiter.loudnessLUFS()
        let limited = before.flatMap { before in after.map { before - $0 } } ?? 0
        // The run so far, as it played, is `playedPower` times the target's power: half of a run at that and half at
        // `power` times it average to the target.
        let makeUp =
            after.map { after in
                let amplitude = Decibels.amplitude(after - targetLUFS)
                let playedPower = amplitude * amplitude
                let power = 2 - playedPower
                return power > 0
                    ? min(max(Decibels.level(power: power), -Self.makeUpLimitDecibels), Self.makeUpLimitDecibels)
                    : -Self.makeUpLimitDecibels
            } ?? 0
        let limit = Self.correctionLimitDecibels
        toGain = min(max(targetLUFS - loudness + limited + makeUp, firstGain - limit), firstGain + limit)
    }
}

/// A loudness meter made when it is first asked for a loudness, and given the samples that waited for it then.
private struct LazyMeter {
    private var meter: LoudnessMeter?
    private var waiting: [Float] = []
    /// Whether libebur128 failed to make or feed the meter, which then measures nothing more.
    private var hasFailed = false

    /// Adds samples, to be measured when a loudness is asked for.
    mutating func add<Samples: Collection<Float>>(_ samples: Samples) {
        if !hasFailed { waiting += samples }
    }

    /// The loudness (`Loudness.clipLUFS`) of every sample so far; `nil` for too few, or when the meter failed.
    mutating func loudnessLUFS() -> Double? {
        guard !hasFailed else { return nil }
        do throws(AudioIOError) {
            let meter: LoudnessMeter
            if let made = self.meter { meter = made } else { meter = try LoudnessMeter(measuringTruePeak: false) }
            self.meter = meter
            try waiting.withUnsafeBufferPointer { (samples) throws(AudioIOError) in try meter.add(samples) }
            waiting.removeAll(keepingCapacity: true)
            return try meter.loudness().clipLUFS
        } catch {
            hasFailed = true
            waiting = []
            return nil
        }
    }
}
