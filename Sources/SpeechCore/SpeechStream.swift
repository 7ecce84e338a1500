// SPDX-License-Identifier: GPL-3.0-or-later
/// Render-ready samples that arrive while they play: the fallback voice's speech of a run, handed over as espeak-ng
/// makes it, so that its first frames play before the run is spoken whole.
///
/// One thread appends and then finishes it; any thread reads. A reader that wants samples not yet there waits for them,
/// or for the end: speech is made far faster than it plays, so the wait is for the next piece, not for the run.
///
/// ```swift
/// let stream = SpeechStream()
/// startThread { stream.append(piece); stream.finish() }
/// let (available, isFinished) = stream.wait(forCount: 512)
/// ```
public final class SpeechStream: @unchecked Sendable {
    // @unchecked Sendable: `samples` and `isFinished` are used only holding `lock`.
    private let lock = ConditionLock()
    private var samples: [Float]
    private var isFinished: Bool

    /// An empty stream, to be appended to and finished.
    public init() {
        samples = []
        isFinished = false
    }

    /// A stream that is whole already.
    public init(finished samples: [Float]) {
        self.samples = samples
        isFinished = true
    }

    /// Adds samples at the end, waking readers.
    public func append(_ piece: [Float]) {
        guard !piece.isEmpty else { return }
        lock.locked {
            precondition(!isFinished, "samples appended to a finished speech stream")
            samples += piece
            lock.broadcast()
        }
    }

    /// Says no more samples will come, waking readers.
    public func finish() {
        lock.locked {
            isFinished = true
            lock.broadcast()
        }
    }

    /// Waits until at least `count` samples are in, or the stream is finished.
    ///
    /// - Returns: how many samples are in, and whether that is all of them.
    public func wait(forCount count: Int) -> (count: Int, isFinished: Bool) {
        lock.locked {
            while samples.count < count && !isFinished { lock.wait() }
            return (samples.count, isFinished)
        }
    }

    /// Copies samples from `start` into `buffer`, as many as are in and fit; returns how many.
    public func copy(from start: Int, into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        lock.locked {
            let count = max(0, min(buffer.count, samples.count - start))
            guard count > 0 else { return 0 }
            samples.withUnsafeBufferPointer { samples in
                _ = buffer.initialize(from: UnsafeBufferPointer(rebasing: samples[start..<start + count]))
            }
            return count
        }
    }

    /// Every sample, once the stream is finished (waits for it).
    public var wholeSamples: [Float] {
        _ = wait(forCount: .max)
        return lock.locked { samples }
    }
}
