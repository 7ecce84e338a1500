// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock with a condition to wait on: what one thread holds while it changes some state, and another waits for
/// until the state it wants is there.
///
/// ```swift
/// let lock = ConditionLock()
/// lock.locked { items.append(item); lock.broadcast() }
/// lock.locked { while items.isEmpty { lock.wait() } }
/// ```
public final class ConditionLock: @unchecked Sendable {
    // pthreads asks for both at fixed addresses.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Runs `body` holding the lock.
    public func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked`: lets the lock go until another thread broadcasts, then holds it again.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Inside `locked`: wakes every thread waiting.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
