// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The take the page is sending in pieces while it is recorded, until it is kept, discarded or replaced: one at a
/// time, numbered in the order they started.
final class RecordingInProgress: Sendable {
    private let recording = Mutex<(current: TakeRecording?, number: Int)>((nil, 0))

    /// How many recordings have started, the last one's number.
    var number: Int { recording.withLock { $0.number } }

    /// Starts a recording with its first piece, which may hold no samples; the recording in progress, if any, is
    /// dropped (a page records one take at a time, and a reloaded page knows no recording of its own).
    ///
    /// - Throws: `StudioError.recordingTooLong`, `.audio`.
    func start(_ piece: TakeUpload) throws(StudioError) -> TakeRecording.State {
        try recording.withLock { (recording) throws(StudioError) in
            recording.current = nil
            recording.number += 1
            let started = try TakeRecording(id: recording.number, sampleRate: piece.sampleRate)
            try started.append(piece, frame: 0, isLast: false)
            recording.current = started
            return started.state
        }
    }

    /// Adds a piece to the recording in progress and converts it; `isLast` ends it.
    ///
    /// - Throws: `StudioError.unknownRecording`, and what `TakeRecording.append` throws: `.recordingEnded`,
    ///   `.recordingFormat`, `.recordingOrder`, `.recordingTooLong`, `.audio`.
    func append(id: String, _ piece: TakeUpload, frame: Int, isLast: Bool) throws(StudioError) -> TakeRecording.State {
        try withRecording(id: id) { (recording) throws(StudioError) in
            try recording.append(piece, frame: frame, isLast: isLast)
            return recording.state
        }
    }

    /// Drops the recording in progress: nothing of it was in the pack.
    ///
    /// - Throws: `StudioError.unknownRecording`.
    func discard(id: String) throws(StudioError) -> TakeRecording.State {
        let state = try withRecording(id: id) { (recording) throws(StudioError) in recording.state }
        remove(id: state.id)
        return state
    }

    /// Drops the recording in progress whatever it is, when a new page takes over.
    ///
    /// - Returns: its number, if there was one.
    func drop() -> Int? {
        recording.withLock { recording in
            defer { recording.current = nil }
            return recording.current?.id
        }
    }

    /// Forgets the recording `id` once it is kept.
    func remove(id: Int) {
        recording.withLock { if $0.current?.id == id { $0.current = nil } }
    }

    /// The samples of a recording that has ended, as a take sent whole would bring them: what its loudness check
    /// measures.
    ///
    /// - Throws: `StudioError.unknownRecording`, `.recordingInProgress`.
    func recordedTake(id: String) throws(StudioError) -> TakeUpload {
        try withRecording(id: id) { (recording) throws(StudioError) in
            guard recording.isEnded else { throw .recordingInProgress(id: recording.id) }
            return TakeUpload(samples: recording.samples, sampleRate: recording.sampleRate)
        }
    }

    /// Runs `body` on the recording in progress if `id` names it.
    ///
    /// - Throws: `StudioError.unknownRecording`, and what `body` throws.
    func withRecording<T: Sendable>(id text: String, _ body: (TakeRecording) throws(StudioError) -> T)
        throws(StudioError) -> T
    {
        try recording.withLock { (recording) throws(StudioError) -> T in
            guard let current = recording.current, Int(text) == current.id else { throw .unknownRecording(id: text) }
            return try body(current)
        }
    }
}
