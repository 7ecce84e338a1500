// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Synchronization

/// soxr converters kept for reuse across streams, such as a server's requests, each lent to one stream at a time.
///
/// Setting up a converter (designing its filter) costs more than converting a stream's first blocks, and would come
/// before its first frame. The pool lends a converter already set up and resets the one given back
/// when its stream has ended, so that cost falls between streams; a reset converter gives the same samples as a new
/// one. It makes a converter when every one it has for the rates is lent, and keeps up to `maximumIdleCount` of each
/// pair of rates.
final class ResamplerPool: @unchecked Sendable {
    // @unchecked Sendable: a `StreamingResampler` is not Sendable, but each is only ever in one place: idle, guarded by
    // `lock`, or lent to the one stream that took it out under the lock, until it puts it back under the lock.

    let quality: SoxrQuality
    let maximumIdleCount: Int
    private struct Rates: Hashable {
        var source: Int
        var target: Int
    }
    // Guards `idle`; converters move between threads only through it.
    private let lock = Mutex(())
    private var idle: [Rates: [StreamingResampler]] = [:]

    /// - Parameter maximumIdleCount: as many as the synthesizers a pool keeps, one for each request in flight.
    init(quality: SoxrQuality, maximumIdleCount: Int = SynthesizerPool.maximumIdleCount) {
        self.quality = quality
        self.maximumIdleCount = maximumIdleCount
    }

    /// A converter from `sourceRate` to `targetRate` that no other stream is using, ready for a new stream, until
    /// `giveBack`.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with soxr's message, for rates it cannot convert between.
    func take(from sourceRate: Int, to targetRate: Int) throws(AudioIOError) -> StreamingResampler {
        let rates = Rates(source: sourceRate, target: targetRate)
        if let resampler = lock.withLock({ _ in idle[rates]?.popLast() }) { return resampler }
        return try StreamingResampler(from: sourceRate, to: targetRate, soxr: quality)
    }

    /// Takes back a converter from `take`, whatever its stream reached, and resets it for the next; one the pool has
    /// no room for is deleted, not reset.
    func giveBack(_ resampler: StreamingResampler) {
        let rates = Rates(source: resampler.sourceRate, target: resampler.targetRate)
        guard lock.withLock({ _ in idle[rates, default: []].count < maximumIdleCount }) else { return }
        do { try resampler.reset() } catch { return }
        lock.withLock { _ in
            if idle[rates, default: []].count < maximumIdleCount { idle[rates, default: []].append(resampler) }
        }
    }

    /// How many converters wait, set up, for the next streams.
    var idleCount: Int { lock.withLock { _ in idle.values.map(\.count).reduce(0, +) } }
}
