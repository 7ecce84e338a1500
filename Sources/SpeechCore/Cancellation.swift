// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// A flag another thread may raise to stop a render: between two pulls, and inside the synthesis of a long fallback
/// phrase.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
