// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Voicebank

extension VoicePack {
    /// Tags a take with another position (or none), in its own transaction, and names its source to match
    /// (`e.york.wav` for a final take of York), so that `voicebank export` writes it as a file that imports with the
    /// same position. Nothing else of the clip changes: its samples and measurements are its audio's, whatever its
    /// place.
    ///
    /// ```swift
    /// let take = try pack.setPosition(.final, clipID: 181, sourceName: "e.york.wav")
    /// ```
    /// - Throws: `AuthoringError.store` with `.unknownClip`; `.fallbackPosition` for a fallback clip, which is never
    ///   tagged.
    public func setPosition(_ position: TakePosition?, clipID: Int, sourceName: String) throws(AuthoringError) -> Clip {
        try database.transaction { () throws(AuthoringError) in
            let clip: Clip
            do throws(VoicebankError) { clip = try self.clip(id: clipID) } catch { throw .store(error) }
            guard !clip.isFallback || position == nil else { throw .fallbackPosition(clipID: clipID, path: path) }
            do throws(VoicebankError) {
                try database.prepare("UPDATE clip SET position = ?, source_name = ? WHERE id = ?")
                    .bind(position.map { .text($0.rawValue) }, .text(sourceName), .integer(clipID)).run()
                return try self.clip(id: clipID)
            } catch {
                throw .store(error)
            }
        }
    }
}
