// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// Bytes a process writes, read on one thread and looked at on another.
public final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()

    public init() {}

    public func append(_ data: Data) {
        lock.lock()
        bytes.append(data)
        lock.unlock()
    }

    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
