// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The stop flag of a render that another thread may cancel before its renderer exists, as a server's client may go
/// while its request is still being planned: a renderer attached after `cancel()` is cancelled at once.
public final class RenderCancellation: Sendable {
    private let state = Mutex<(isCancelled: Bool, renderer: Cancellation?)>((false, nil))

    public init() {}

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Makes `cancel()` stop `renderer` at its next pull; stops it now if `cancel()` came first.
    public func attach(_ renderer: Renderer) {
        let isCancelled = state.withLock {
            $0.renderer = renderer.cancellation
            return $0.isCancelled
        }
        if isCancelled { renderer.cancel() }
    }

    /// Stops the attached renderer at its next pull, and any attached later; from any thread.
    public func cancel() {
        let renderer = state.withLock {
            $0.isCancelled = true
            return $0.renderer
        }
        renderer?.cancel()
    }
}
