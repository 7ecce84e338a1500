// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// A take's words and phones with their times, as the aligner found them, or why it could not (schema 10's
/// `alignment`, `aligned_word` and `aligned_phone`).
public struct TakeAlignment: Equatable, Sendable {
    /// What aligned the take: its name and version (`pocketsphinx 5.1.1`).
    public var aligner: String
    /// The mean acoustic log-probability per frame of its phones (higher is better); `nil` for a failed take.
    public var score: Double?
    /// Why the take could not be aligned (its transcript does not match its audio, …); `nil` when it was. A failed
    /// take has no words or phones, and gives no units.
    public var failure: String?
    /// Words and phones with their frames in the take's whole conversion at 22050 Hz (the clip's `pcm`, not only
    /// what it plays, so that re-trimming keeps them).
    public var words: [AlignedTake.Segment]
    /// Phones in CMU's ARPAbet, without stress.
    public var phones: [AlignedTake.Segment]

    public init(
        aligner: String, score: Double?, failure: String?, words: [AlignedTake.Segment], phones: [AlignedTake.Segment]
    ) {
        self.aligner = aligner
        self.score = score
        self.failure = failure
        self.words = words
        self.phones = phones
    }
}

extension VoicePack {
    /// Whether the pack holds alignments (schema 10 on): a pack of schema 7 to 9 opened read-only has none.
    package var hasAlignments: Bool {
        get throws(VoicebankError) { try schemaVersion >= Schema.alignmentVersion }
    }

    /// A take's alignment; `nil` when it has not been aligned.
    ///
    /// - Throws: `.sqlite`.
    public func alignment(clipID: Int) throws(VoicebankError) -> TakeAlignment? {
        guard try hasAlignments else { return nil }
        let take = try database.prepare("SELECT aligner, score, failure FROM alignment WHERE clip_id = ?")
            .bind(.integer(clipID))
        guard try take.step() else { return nil }
        var alignment = TakeAlignment(
            aligner: take.text(0), score: take.optionalDouble(1), failure: take.optionalText(2), words: [], phones: [])
        let words = try database.prepare(
            "SELECT label, start_frame, end_frame, word_index FROM aligned_word WHERE clip_id = ? ORDER BY word_index"
        ).bind(.integer(clipID))
        while try words.step() { alignment.words.append(Self.segment(words)) }
        let phones = try database.prepare(
            """
            SELECT label, start_frame, end_frame, word_index FROM aligned_phone WHERE clip_id = ?
            ORDER BY phone_index
            """
        ).bind(.integer(clipID))
        while try phones.step() { alignment.phones.append(Self.segment(phones)) }
        return alignment
    }

    /// The clips whose alignment failed, with why, in import order.
    ///
    /// - Throws: `.sqlite`.
    public func failedAlignments() throws(VoicebankError) -> [(clip: Clip, failure: String)] {
        guard try hasAlignments else { return [] }
        let statement = try database.prepare(
            "SELECT clip_id, failure FROM alignment WHERE failure IS NOT NULL ORDER BY clip_id")
        var failed: [(Int, String)] = []
        while try statement.step() { failed.append((statement.int(0), statement.text(1))) }
        return try failed.map { (id, failure) throws(VoicebankError) in (try clip(id: id), failure) }
    }

    /// A segment from a row of label, start, end and word index; a start past its end (a hand edit) reads as empty.
    private static func segment(_ row: Statement) -> AlignedTake.Segment {
        let start = row.int(1)
        return AlignedTake.Segment(label: row.text(0), frames: start..<max(start, row.int(2)), word: row.int(3))
    }
}
