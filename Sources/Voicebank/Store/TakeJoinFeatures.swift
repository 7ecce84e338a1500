// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

// An aligned take's join features (schema 12's `join_features`): what the units' join cost compares at the middle of
// each of its phones, measured when it was aligned, so that choosing units reads no audio.
extension VoicePack {
    /// A take's join features; `nil` when they have not been measured (the take is not aligned, or the pack is from
    /// before schema 12).
    ///
    /// - Throws: `.damagedPack` when the stored features are not a measurement of the take's phones, `.sqlite`.
    public func joinFeatures(clipID: Int) throws(VoicebankError) -> JoinFeatures? {
        guard hasUnitWeights else { return nil }
        let statement = try database.prepare(
            """
            SELECT clip_id, features, (SELECT count(*) FROM aligned_phone WHERE aligned_phone.clip_id = ?1)
            FROM join_features WHERE clip_id = ?1
            """
        ).bind(.integer(clipID))
        guard try statement.step() else { return nil }
        return try joinFeatures(statement, clipID: clipID, phoneCount: statement.int(2))
    }

    /// The join features in column 1 of `row`, checked against the take's `phoneCount`.
    ///
    /// - Throws: `.damagedPack` naming the clip when they are not `phoneCount` phones' finite values, as an alignment
    ///   stores them.
    func joinFeatures(_ row: Statement, clipID: Int, phoneCount: Int) throws(VoicebankError) -> JoinFeatures {
        let features = JoinFeatures(values: row.floats(1))
        guard row.byteCount(1) % MemoryLayout<Float>.size == 0, features.isValid(phoneCount: phoneCount) else {
            throw .damagedPack(
                path: path,
                message:
                    "the join features of clip #\(clipID) are not \(JoinFeatures.valuesPerPhone) finite Float32 values for each of its \(phoneCount) phones, as an alignment stores them"
            )
        }
        return features
    }

    /// Stores a take's join features inside the caller's transaction, in place of any it had; the take's alignment
    /// must be stored already.
    ///
    /// - Throws: `.sqlite`.
    package func storeJoinFeatures(_ features: JoinFeatures, clipID: Int) throws(VoicebankError) {
        // An empty array binds as NULL: a take of no phones has an empty blob.
        try database.prepare("INSERT OR REPLACE INTO join_features (clip_id, features) VALUES (?, coalesce(?, x''))")
            .bind(.integer(clipID), .floats(features.values)).run()
    }
}
