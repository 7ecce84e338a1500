// SPDX-License-Identifier: GPL-3.0-or-later
// A take's pitch marks (schema 11's `pitch_marks`): one frame a pitch period of its voiced stretches, in frames of the
// clip's whole conversion at 22050 Hz, where its units are cut and joined.
extension VoicePack {
    /// Whether the pack holds pitch marks (schema 11 on): a pack of schema 7 to 10 opened read-only has none.
    package var hasPitchMarks: Bool {
        get throws(VoicebankError) { try schemaVersion >= Schema.pitchMarksVersion }
    }

    /// A take's pitch marks, in increasing order; empty when nothing in it is voiced, `nil` when it has not been
    /// measured.
    ///
    /// - Throws: `.damagedPack` when the stored marks are not increasing frames of the clip, `.sqlite`.
    public func pitchMarks(clipID: Int) throws(VoicebankError) -> [Int]? {
        guard try hasPitchMarks else { return nil }
        let statement = try database.prepare(
            "SELECT marks, length(clip.pcm) / 4 FROM pitch_marks JOIN clip ON clip.id = clip_id WHERE clip_id = ?"
        ).bind(.integer(clipID))
        guard try statement.step() else { return nil }
        let bytes = statement.blob(0)
        let frameCount = statement.int(1)
        let marks = bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count / 4 * 4, by: 4).map {
                Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0, as: Int32.self)))
            }
        }
        let isIncreasing = zip(marks, marks.dropFirst()).allSatisfy { $0 < $1 }
        guard bytes.count % 4 == 0, isIncreasing, marks.allSatisfy({ (0..<frameCount).contains($0) }) else {
            throw .damagedPack(
                path: path,
                message:
                    "the pitch marks of clip #\(clipID) are not increasing frames of its audio (0 to \(frameCount)), as an import stores them"
            )
        }
        return marks
    }

    /// Stores a take's pitch marks inside the caller's transaction, in place of any it had.
    ///
    /// - Throws: `.sqlite`.
    package func storePitchMarks(_ marks: [Int], clipID: Int) throws(VoicebankError) {
        let bytes = marks.map { Int32(clamping: $0).littleEndian }.withUnsafeBytes { Array($0) }
        // An empty array binds as NULL: no marks are stored as an empty blob.
        try database.prepare("INSERT OR REPLACE INTO pitch_marks (clip_id, marks) VALUES (?, coalesce(?, x''))")
            .bind(.integer(clipID), .blob(bytes)).run()
    }
}
