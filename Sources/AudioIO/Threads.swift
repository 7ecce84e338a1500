import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// A thread of its own that runs the jobs given to it one after another, in order, and waits for more: for work that
/// must start at once (starting a thread takes about a tenth of a millisecond), kept off the caller's thread and
/// Swift's cooperative pool. It lives as long as the process.
///
/// ```swift
/// let worker = WorkerThread()
/// worker.run { speak(run) }
/// ```
public final class WorkerThread: Sendable {
    private let lock = ConditionLock()
    private let jobs = JobQueue()

    /// The jobs given and not yet started; used only holding `lock`.
    private final class JobQueue: @unchecked Sendable {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
    }

    public init() {
        startThread { [lock, jobs] in
            while true {
                let job = lock.locked { () -> @Sendable () -> Void in
                    while jobs.head == jobs.jobs.count { lock.wait() }
                    defer {
                        jobs.head += 1
                        if jobs.head == jobs.jobs.count {
                            jobs.jobs.removeAll(keepingCapacity: true)
                            jobs.head = 0
                        }
                    }
                    return jobs.jobs[jobs.head]
                }
                job()
            }
        }
    }

    /// Runs `job` on the thread once the jobs given before it are done.
    public func run(_ job: @escaping @Sendable () -> Void) {
        lock.locked {
            jobs.jobs.append(job)
            lock.broadcast()
        }
    }
}
