// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Synchronization
import Voicebank
import VoicebankAuthoring

/// What aligning a kept take to its words and phones came to: what `voicebank align` would store for it, done behind
/// the studio's keep.
struct TakeAlignmentState: Encodable, Sendable, Equatable {
    enum Status: String, Encodable, Sendable {
        /// Not aligned yet: the aligner is on an earlier take, or on this one.
        case pending
        /// Aligned and stored: its words can be cut from it, and its phone-pairs are units.
        case aligned
        /// Its audio does not match its phrase: stored as failed, so it gives no units (the take stays).
        case failed
        /// It cannot be aligned at all (too short for its words, a word without phones): nothing stored.
        case unusable
        /// The aligner could not run, or the take could not be read or stored (`message` says why).
        case unavailable
        /// The voice's language has no aligner, or the studio was told not to align (`message` says which).
        case skipped
    }

    var status: Status
    /// What to tell the user, a sentence; `nil` while pending.
    var message: String?

    static let pending = TakeAlignmentState(status: .pending)
}

/// Aligns each kept take, one at a time, on a thread of its own, so that keep does not wait for the aligner (which
/// starts its process and model with the first take), as `voicebank import` aligns the takes it imports. A take stays
/// kept whatever alignment finds; `voicebank align` aligns later what could not be aligned now.
final class TakeAligning: Sendable {
    /// The voice's language has an aligner (English).
    let alignsLanguage: Bool
    /// It was not told not to align (`--no-align`, `VOICEBANK_ALIGN=0`).
    let isAligning: Bool
    private let pack: StudioPack
    private let aligner = TakeAligner()
    private let worker = WorkerThread()
    private let states = Mutex<[Int: TakeAlignmentState]>([:])

    init(pack: StudioPack, isAligning: Bool) {
        self.pack = pack
        self.isAligning = isAligning
        alignsLanguage = pack.voice.isEnglish
    }

    /// What aligning take `id` came to: `pending` until it is done; `nil` for a take this studio did not keep.
    func state(take id: Int) -> TakeAlignmentState? {
        states.withLock { $0[id] }
    }

    /// Aligns a kept take after the ones before it and calls `done` with what came of it, on the aligner's thread.
    ///
    /// - Parameter name: the take as sentences name it: `take 2 of “York.”`.
    func align(take id: Int, name: String, done: @escaping @Sendable (TakeAlignmentState) -> Void) {
        guard alignsLanguage, isAligning else {
            let state = TakeAlignmentState(
                status: .skipped,
                message: alignsLanguage
                    ? "Not aligned: the studio was told not to align; `voicebank align` aligns it later."
                    : "Not aligned: the aligner knows English only, and voice \(pack.voice.identifier) is not.")
            states.withLock { $0[id] = state }
            done(state)
            return
        }
        states.withLock { $0[id] = .pending }
        worker.run { [self] in
            let state = align(take: id, name: name)
            states.withLock { $0[id] = state }
            done(state)
        }
    }

    /// Reads the take, aligns it while the pack serves other requests, and stores what came of it.
    private func align(take id: Int, name: String) -> TakeAlignmentState {
        let later = "; `voicebank align` aligns it later"
        do throws(StudioError) {
            guard let take = try pack.withPack({ (pack) throws(VoicebankError) in try pack.takeToAlign(clipID: id) })
            else {
                return TakeAlignmentState(status: .aligned, message: "\(name) is aligned already.")
            }
            let outcome: TakeAlignmentOutcome
            do throws(AuthoringError) { outcome = try aligner.align(take) } catch {
                return TakeAlignmentState(status: .unavailable, message: "Not aligned: \(error)\(later).")
            }
            let report = try pack.withPack { (pack) throws(VoicebankError) in try pack.storeAlignment(outcome) }
            if let failed = report.failed.first {
                return TakeAlignmentState(
                    status: .failed,
                    message:
                        "Not aligned: \(failed.reason). It gives no units; listen to it, and record it again if it does not say its phrase."
                )
            }
            if let unusable = report.unusable.first {
                return TakeAlignmentState(status: .unusable, message: "Cannot be aligned: \(unusable.reason).")
            }
            guard !report.aligned.isEmpty else {
                return TakeAlignmentState(status: .unavailable, message: "Not aligned: \(name) was discarded.")
            }
            return TakeAlignmentState(
                status: .aligned, message: "Aligned \(name) to its words and phones: its phone-pairs are units now.")
        } catch {
            return TakeAlignmentState(status: .unavailable, message: "Not aligned: \(error)\(later).")
        }
    }
}
