// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Read-only connections to one voice pack for many threads at once, such as a server's renders: each use borrows
/// a resource made from a connection of its own, and gives it back for the next.
///
/// A `VoicePack` is one SQLite connection, opened `SQLITE_OPEN_NOMUTEX`: SQLite as Debian builds it
/// (`SQLITE_THREADSAFE=1`) then lets many connections work in parallel, but each only on one thread at a time, and
/// a pack's prepared statements, blob handle and read transaction are state of that connection. So threads never
/// share a `VoicePack`, or anything made from one (a `ClipIndex`, a synthesizer); they borrow from a pool:
///
/// ```swift
/// let pool = VoicePackPool(path: "my.sqlite") { pack in try Synthesizer(pack: pack) }
/// // on any thread:
/// let samples = try pool.borrow { synthesizer in try render(request, with: synthesizer) }
/// ```
///
/// The pool opens a connection when every one it has is lent out, and keeps up to `maximumIdleCount` for reuse.
/// Whatever `body` makes from the resource (a renderer) must be finished inside `body`: once it returns, another
/// thread may be using the connection.
public final class VoicePackPool<Resource>: @unchecked Sendable {
    // @unchecked Sendable: `Resource` (a VoicePack, a synthesizer) is not Sendable, so the compiler cannot see that the
    // pool is. It is safe because a resource is only ever in one place: idle, guarded by `lock`, or lent to the one
    // thread whose `borrow` took it out under the lock and puts it back under the lock when `body` returns. The other
    // stored properties are immutable, and `make` is @Sendable.

    public let path: String
    public let maximumIdleCount: Int
    private let make: @Sendable (VoicePack) throws -> Resource
    // Guards `idle` and `openedCount`; resources move between threads only through it, one holder at a time.
    private let lock = Mutex(())
    private var idle: [Resource] = []
    private var opened = 0

    /// - Parameter make: builds the resource a use borrows from a new read-only connection to the pack.
    public init(
        path: String, maximumIdleCount: Int = 2 * ProcessorCount.online,
        make: @escaping @Sendable (VoicePack) throws -> Resource
    ) {
        self.path = path
        self.maximumIdleCount = maximumIdleCount
        self.make = make
    }

    /// How many connections the pool has opened so far.
    public var openedCount: Int { lock.withLock { _ in opened } }

    /// Runs `body` with a resource no other thread is using.
    ///
    /// - Throws: what opening the pack (`VoicebankError`), `make` or `body` throws.
    public func borrow<Result>(_ body: (Resource) throws -> Result) throws -> Result {
        let resource = try take()
        defer { giveBack(resource) }
        return try body(resource)
    }

    /// A resource no other thread is using, until it is given back: for a use that outlives one call, such as a
    /// server's request waiting for its client.
    ///
    /// - Throws: what opening the pack (`VoicebankError`) or `make` throws.
    public func take() throws -> Resource {
        if let resource = lock.withLock({ _ in idle.popLast() }) { return resource }
        let resource = try make(try VoicePack(path: path, access: .readOnly))
        lock.withLock { _ in opened += 1 }
        return resource
    }

    /// Takes back a resource from `take()`, once nothing made from it is in use.
    public func giveBack(_ resource: Resource) {
        lock.withLock { _ in
            if idle.count < maximumIdleCount { idle.append(resource) }
        }
    }
}

extension VoicePackPool where Resource == VoicePack {
    /// A pool of the pack's connections themselves.
    public convenience init(path: String, maximumIdleCount: Int = 2 * ProcessorCount.online) {
        self.init(path: path, maximumIdleCount: maximumIdleCount) { $0 }
    }
}
