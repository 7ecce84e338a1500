#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Darwin)
    @_exported import Darwin
#endif

// No Foundation in the module: it starts at every server start and after every crash, and Foundation's loading
// is most of a short process's start-up (issue 6).

/// The C library's `read`, which `LineReader.readLine` hides.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Writes all of `bytes` to `descriptor`, retrying short writes.
///
/// - Throws: `SpeechServiceError.outputClosed` with the system's reason.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SpeechServiceError) {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            throw .outputClosed(reason: String(cString: strerror(errno)))
        }
        offset += written
    }
}

/// Monotonic time in nanoseconds, for the benchmark and for logs.
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// A mutex with a condition variable, for the hand-off between the thread that reads commands and the thread
/// that renders.
///
/// `@unchecked Sendable`: its only state is a pthread mutex and condition variable, made to be used from any thread,
/// at addresses that never change (the compiler cannot see through the pointers).
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call only inside `withLock`.
    func wait() { pthread_cond_wait(condition, mutex) }

    func broadcast() { pthread_cond_broadcast(condition) }
}
