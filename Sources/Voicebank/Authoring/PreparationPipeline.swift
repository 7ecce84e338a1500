import Dispatch
import Synchronization

/// Runs `prepare` for items `0..<count` on worker threads, ahead of the one thread that takes the results in
/// order with `next()`: converting the next files overlaps storing the last ones, and no more than a few
/// results per worker wait in memory.
///
/// `next()` and `finish()` are for that one thread (an import's), which made the pipeline.
final class PreparationPipeline<Output: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: the workers capture `self`, and two of its stored properties are not Sendable. `slots` is
    // shared memory, but each slot is written by the one worker that took its index (handed out once, under the
    // `nextIndex` lock) before it signals `ready[index]`, and read and cleared by the consumer only after waiting on
    // that semaphore, which orders the two; `finish()` frees the slots only after `workers.wait()`. `consumed` is
    // touched by the consumer alone. The rest is thread-safe by itself: semaphores, a dispatch group, Mutex, Atomic,
    // `let`s.

    private let count: Int
    private let workerCount: Int
    private let slots: UnsafeMutableBufferPointer<Output?>
    private let ready: [DispatchSemaphore]
    /// Free places ahead of the consumer: a worker takes one before it starts an item, `next()` gives it back.
    private let window: DispatchSemaphore
    private let nextIndex = Mutex(0)
    private let isStopped = Atomic(false)
    private let workers = DispatchGroup()
    private var consumed = 0

    /// Starts `workerCount` workers (at least one), each running `prepare` on the next item not yet taken.
    init(count: Int, workerCount: Int, prepare: @escaping @Sendable (Int) -> Output) {
        self.count = count
        self.workerCount = max(1, min(workerCount, count))
        slots = .allocate(capacity: max(1, count))
        slots.initialize(repeating: nil)
        ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        // Made at 0 and raised: libdispatch traps when a semaphore dies below the value it was made with, and
        // workers that stop keep the places they took.
        window = DispatchSemaphore(value: 0)
        for _ in 0..<(self.workerCount * 4) { window.signal() }
        for _ in 0..<self.workerCount {
            workers.enter()
            DispatchQueue.global().async { [self] in
                defer { workers.leave() }
                while true {
                    window.wait()
                    let index = nextIndex.withLock { next in
                        defer { next += 1 }
                        return next
                    }
                    guard index < count, !isStopped.load(ordering: .acquiring) else { return }
                    // Each item's slot is written by one worker and read by the consumer after `ready` says so.
                    slots[index] = prepare(index)
                    ready[index].signal()
                }
            }
        }
    }

    /// The next item's output, in order; waits until a worker has made it. Called once per item: no input
    /// decides how often (an import calls it once for each of its files), so a call past the last is a bug.
    func next() -> Output {
        precondition(consumed < count, "the pipeline has no more items")
        ready[consumed].wait()
        let output = slots[consumed]!
        slots[consumed] = nil
        consumed += 1
        window.signal()
        return output
    }

    /// Stops the workers (after the items they are on) and waits for them; call it once, when done or giving up.
    func finish() {
        isStopped.store(true, ordering: .releasing)
        for _ in 0..<workerCount { window.signal() }
        workers.wait()
        slots.deinitialize()
        slots.deallocate()
    }
}
