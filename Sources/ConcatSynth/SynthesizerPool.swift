// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

/// Synthesizers of one pack for many threads at once, such as a server's requests: each lent to one request at a
/// time, on a read-only connection of its own, and kept for the next when given back.
///
/// A `Synthesizer` is not safe to share between threads: its pack's SQLite connection is opened without a mutex,
/// and its clip look-ups keep prepared statements and an open blob handle that every render moves. The pool opens
/// another when every one it has is lent, so it grows to the number of requests in flight at once, and keeps them
/// (up to `maximumIdleCount`) for the next requests: a server's clients each hold one while their answers stream, and
/// opening a connection and its voices for each request beyond a few would cost more than a request itself.
///
/// ```swift
/// let pool = SynthesizerPool(bank: "my.sqlite")
/// let synthesizer = try pool.take()
/// defer { pool.giveBack(synthesizer) }
/// ```
public final class SynthesizerPool: Sendable {
    /// The voice pack's path.
    public let packPath: String
    private let pool: VoicePackPool<Synthesizer>

    /// The most synthesizers kept between requests: as many as the requests a server on a small machine has in flight
    /// at once, without keeping a burst's connections for good.
    public static let maximumIdleCount = 64

    /// - Parameter bank: the pack's path; with none, `$CONCAT_SYNTH_BANK`, else the default pack.
    public init(bank: String? = nil) {
        packPath = PackLocation.resolve(bank)
        pool = VoicePackPool(path: packPath, maximumIdleCount: Self.maximumIdleCount) { pack in
            try Synthesizer(pack: pack)
        }
    }

    /// A synthesizer no other thread is using, until `giveBack`.
    ///
    /// - Throws: `ConcatSynthError.noPack`, `.unusablePack` or `.newerPack` when the pack cannot be opened.
    public func take() throws(ConcatSynthError) -> Synthesizer {
        do { return try pool.take() } catch { throw ConcatSynthError(error) }
    }

    /// How many synthesizers (each a connection) the pool has opened so far.
    public var openedCount: Int { pool.openedCount }

    /// Takes back a synthesizer from `take()`, once no renderer made from it is alive.
    ///
    /// One given back while a renderer of it is still alive (a caller's local reference outliving its
    /// `giveBack`) is not lent again: that renderer's end would close the blob handle another request is reading
    /// through, on another thread, which read a clip's length as garbage. The connection closes with the renderer.
    public func giveBack(_ synthesizer: Synthesizer) {
        guard !synthesizer.isRendering else { return }
        pool.giveBack(synthesizer)
    }

    /// Runs `body` with a synthesizer no other thread is using; whatever it makes from it must be finished inside.
    public func borrow<Result>(_ body: (Synthesizer) throws -> Result) throws -> Result {
        let synthesizer = try take()
        defer { giveBack(synthesizer) }
        return try body(synthesizer)
    }
}
