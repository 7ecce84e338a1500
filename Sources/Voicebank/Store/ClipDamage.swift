// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// What makes a stored clip unplayable: its row and its render-ready audio disagree, the audio it plays holds a
/// sample that is not a number, or a feature selection weighs it by holds what no import writes.
///
/// The one check that rendering (`ClipIndex`) and `voicebank verify` share, so a clip that one refuses the other
/// reports, and the other way round. Only a hand-edited, synced-over or corrupted pack has one: import never
/// stores one.
public enum ClipDamage: Error, Equatable, Sendable, CustomStringConvertible {
    /// The render-ready audio is not a whole number of 4-byte Float32 samples.
    case partialSample(byteCount: Int)
    /// `trim_start` is negative, or `frame_count` is negative or longer than any clip an import makes.
    case impossibleFrames(firstFrame: Int, frameCount: Int)
    /// The frames the clip plays run past the end of its render-ready audio.
    case pastEnd(firstFrame: Int, frameCount: Int, storedFrameCount: Int)
    /// A sample the clip plays is NaN or infinite; `frame` counts from its first played frame.
    case nonFiniteSample(frame: Int)
    /// A take feature (schema 8: position, contour, edges, cut) holds what no import writes; `column` names it,
    /// `value` is what it holds, `expected` what it may (`StoredTakeFeatures`).
    case feature(column: String, value: String, expected: String)

    /// The longest a clip can play: import refuses files longer than `AudioLimits.maximumSeconds`, and its whole
    /// seconds are counted down, so a file can run up to one second more.
    public static let maximumFrameCount = (AudioLimits.maximumSeconds + 1) * RenderFormat.sampleRate

    /// Checks a clip row's `trim_start` and `frame_count` against its render-ready blob's byte length.
    public static func layout(firstFrame: Int, frameCount: Int, blobByteCount: Int) -> ClipDamage? {
        let size = MemoryLayout<Float>.size
        guard blobByteCount % size == 0 else { return .partialSample(byteCount: blobByteCount) }
        guard firstFrame >= 0, (0...maximumFrameCount).contains(frameCount) else {
            return .impossibleFrames(firstFrame: firstFrame, frameCount: frameCount)
        }
        let stored = blobByteCount / size
        // Subtracted rather than added: a hand-edited trim_start near Int.max must not overflow.
        guard firstFrame <= stored, frameCount <= stored - firstFrame else {
            return .pastEnd(firstFrame: firstFrame, frameCount: frameCount, storedFrameCount: stored)
        }
        return nil
    }

    /// Checks samples a clip plays, `offset` frames past its first played frame.
    public static func samples(_ samples: UnsafeBufferPointer<Float>, offset: Int = 0) -> ClipDamage? {
        FiniteSamples.firstNonFinite(in: samples).map { .nonFiniteSample(frame: offset + $0) }
    }

    public var description: String {
        switch self {
        case .partialSample(let byteCount):
            return
                "its render-ready audio is \(byteCount) byte\(byteCount == 1 ? "" : "s") long, not a whole number of 4-byte Float32 samples"
        case .impossibleFrames(let firstFrame, let frameCount):
            return
                "it plays \(frameCount) frames from frame \(firstFrame); expected a start of 0 or more and at most \(Self.maximumFrameCount) frames (\(AudioLimits.maximumSeconds + 1) s)"
        case .pastEnd(let firstFrame, let frameCount, let storedFrameCount):
            return
                "it plays \(frameCount) frames from frame \(firstFrame), but its render-ready audio holds \(storedFrameCount) frames"
        case .nonFiniteSample(let frame):
            return "it plays a sample that is not a number (NaN or infinite) at frame \(frame)"
        case .feature(let column, let value, let expected):
            return "its \(column) is \(value); expected \(expected)"
        }
    }
}

extension VoicePack {
    /// The error for a damaged clip, naming its phrase (read only now: the render path never reads phrases).
    func damagedClip(_ clipID: Int, _ damage: ClipDamage) -> VoicebankError {
        let statement = try? database.prepare("SELECT phrase FROM clip WHERE id = ?").bind(.integer(clipID))
        let phrase = (try? statement?.step()) == true ? statement?.text(0) : nil
        return .damagedClip(path: path, clipID: clipID, phrase: phrase ?? "", damage: damage)
    }

    /// What is wrong with a clip, checked as rendering checks it: its row against its blob, then every sample it
    /// plays; `nil` for a playable clip.
    ///
    /// - Throws: `VoicebankError.unknownClip`, `.sqlite`.
    public func damage(clipID: Int) throws(VoicebankError) -> ClipDamage? {
        if let damage = try layoutDamage(clipID: clipID) { return damage }
        return try playedSamples(clipID: clipID).withUnsafeBufferPointer { ClipDamage.samples($0) }
    }

    /// What is wrong with a clip's row: `ClipDamage.layout`, then its take features (`StoredTakeFeatures`) where the
    /// pack has them.
    package func layoutDamage(clipID: Int) throws(VoicebankError) -> ClipDamage? {
        let features = hasTakeFeatures ? ", " + StoredTakeFeatures.columns : ""
        let row = try database.prepare("SELECT trim_start, frame_count, length(pcm)\(features) FROM clip WHERE id = ?")
            .bind(.integer(clipID))
        guard try row.step() else { throw .unknownClip(id: clipID, path: path) }
        if let damage = ClipDamage.layout(firstFrame: row.int(0), frameCount: row.int(1), blobByteCount: row.int(2)) {
            return damage
        }
        guard hasTakeFeatures else { return nil }
        do throws(ClipDamage) {
            _ = try StoredTakeFeatures(row, from: 3)
            return nil
        } catch {
            return error
        }
    }

    /// The frames a clip plays, as its row says; only meaningful once `layoutDamage` found nothing.
    package func playedSamples(clipID: Int) throws(VoicebankError) -> [Float] {
        let statement = try database.prepare(
            "SELECT substr(pcm, trim_start * 4 + 1, frame_count * 4) FROM clip WHERE id = ?"
        ).bind(.integer(clipID))
        guard try statement.step() else { throw .unknownClip(id: clipID, path: path) }
        return statement.floats(0)
    }
}
