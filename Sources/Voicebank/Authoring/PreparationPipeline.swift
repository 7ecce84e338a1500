// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// Runs `prepare` for items `0..<count` on worker threads, ahead of the one thread that takes the results in
/// order with `next()`: converting the next files overlaps storing the last ones, and no more than a few
/// results per worker wait in memory.
///
/// `next()` and `finish()` are for that one thread (an import's), which made the pipeline.
final class PreparationPipeline<Output: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: the workers capture `self`, and its mutable state is used only holding `lock`.

    private let count: Int
    private let workerCount: Int
    /// Items a worker may start ahead of the consumer: a few per worker.
    private let window: Int
    private let prepare: @Sendable (Int) -> Output
    private let lock = ConditionLock()

    // Used only holding `lock`.
    private var slots: [Output?]
    private var isReady: [Bool]
    private var nextIndex = 0
    private var consumed = 0
    private var isStopped = false
    private var runningWorkers: Int

    /// Starts `workerCount` workers (at least one), each running `prepare` on the next item not yet taken.
    init(count: Int, workerCount: Int, prepare: @escaping @Sendable (Int) -> Output) {
        self.count = count
        self.workerCount = max(1, min(workerCount, count))
        window = self.workerCount * 4
        self.prepare = prepare
        slots = Array(repeating: nil, count: count)
        isReady = Array(repeating: false, count: count)
        runningWorkers = self.workerCount
        for _ in 0..<self.workerCount {
            startThread { [self] in work() }
        }
    }

    /// A worker: takes the next item while it is within the window ahead of the consumer, and prepares it.
    private func work() {
        while true {
            let taken = lock.locked { () -> Int? in
                while !isStopped && nextIndex < count && nextIndex - consumed >= window { lock.wait() }
                guard !isStopped, nextIndex < count else { return nil }
                defer { nextIndex += 1 }
                return nextIndex
            }
            guard let index = taken else { break }
            let output = prepare(index)
            lock.locked {
                slots[index] = output
                isReady[index] = true
                lock.broadcast()
            }
        }
        lock.locked {
            runningWorkers -= 1
            lock.broadcast()
        }
    }

    /// The next item's output, in order; waits until a worker has made it. Called once per item: no input
    /// decides how often (an import calls it once for each of its files), so a call past the last is a bug.
    func next() -> Output {
        precondition(consumed < count, "the pipeline has no more items")
        return lock.locked {
            while !isReady[consumed] { lock.wait() }
            let output = slots[consumed]!
            slots[consumed] = nil
            consumed += 1
            lock.broadcast()
            return output
        }
    }

    /// Stops the workers (after the items they are on) and waits for them; call it once, when done or giving up.
    func finish() {
        lock.locked {
            isStopped = true
            lock.broadcast()
            while runningWorkers > 0 { lock.wait() }
        }
    }
}
