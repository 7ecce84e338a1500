// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Work that blocks (a sound device, a decoder, a lock held while a C library loads, a module's render loop) runs on
// threads of its own, never on libdispatch's global queues: on Linux those are also the executor of Swift's
// concurrency, on which the test runner's tests run, and a blocked worker there holds up everything queued behind it.
// The three forms here are the project's one way to run work off the caller's thread (docs/architecture.md, "Threads").

/// Starts `body` on a new thread of its own, which nothing joins: for work that blocks (a sound device, a lock held
/// while a C library loads), kept off both the caller's thread and Swift's cooperative pool.
public func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { pointer in
            let box = Unmanaged<Box>.fromOpaque(pointer!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
}

/// The end of a job on a thread of its own (`startThread`), which the job marks once and others wait for: a recording
/// or a playback that the caller stops, then waits for.
///
/// ```swift
/// let played = Completion()
/// startThread { play(samples); played.complete() }
/// played.wait()
/// ```
public final class Completion: Sendable {
    private let lock = ConditionLock()
    private let state = State()

    /// Whether the job has ended; used only holding `lock`.
    private final class State: @unchecked Sendable {
        var isComplete = false
    }

    public init() {}

    /// Marks the job ended, and wakes whoever waits for it.
    public func complete() {
        lock.locked {
            state.isComplete = true
            lock.broadcast()
        }
    }

    /// Waits until the job has ended.
    public func wait() {
        lock.locked { while !state.isComplete { lock.wait() } }
    }
}

/// A thread of its own that runs the jobs given to it one after another, in order, and waits for more: for work that
/// must start at once (waking a thread that waits is quicker than starting one), or one job at a time, kept off the
/// caller's thread and Swift's cooperative pool. Its thread ends once the worker is released and the jobs given
/// before are done.
///
/// ```swift
/// let worker = WorkerThread()
/// worker.run { speak(run) }
/// ```
public final class WorkerThread: Sendable {
    private let lock = ConditionLock()
    private let jobs = JobQueue()

    /// The jobs given and not yet started, and whether more may come; used only holding `lock`.
    private final class JobQueue: @unchecked Sendable {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var isClosed = false
    }

    public init() {
        startThread { [lock, jobs] in
            while true {
                let job = lock.locked { () -> (@Sendable () -> Void)? in
                    while jobs.head == jobs.jobs.count && !jobs.isClosed { lock.wait() }
                    guard jobs.head < jobs.jobs.count else { return nil }
                    defer {
                        jobs.head += 1
                        if jobs.head == jobs.jobs.count {
                            jobs.jobs.removeAll(keepingCapacity: true)
                            jobs.head = 0
                        }
                    }
                    return jobs.jobs[jobs.head]
                }
                guard let job else { return }
                job()
            }
        }
    }

    deinit {
        lock.locked {
            jobs.isClosed = true
            lock.broadcast()
        }
    }

    /// Runs `job` on the thread once the jobs given before it are done.
    public func run(_ job: @escaping @Sendable () -> Void) {
        lock.locked {
            jobs.jobs.append(job)
            lock.broadcast()
        }
    }

    /// Runs `job` on the thread `seconds` from now, once the jobs given before then are done: for work that waits
    /// for a quiet moment.
    public func run(afterSeconds seconds: Double, _ job: @escaping @Sendable () -> Void) {
        startThread { [self] in
            usleep(useconds_t(max(0, seconds) * 1_000_000))
            run(job)
        }
    }
}
