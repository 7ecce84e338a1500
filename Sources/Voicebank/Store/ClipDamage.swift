import AudioIO
import SpeechCore

/// What makes a stored clip unplayable: its row and its render-ready audio disagree, or the audio it plays holds a
/// sample that is not a number.
///
/// The one check that rendering (`ClipIndex`) and `voicebank verify` share, so a clip that one refuses the other
/// reports, and the other way round. Only a hand-edited, synced-over or corrupted pack has one: import never
/// stores one.
public enum ClipDamage: Equatable, Sendable, CustomStringConvertible {
    /// The render-ready audio is not a whole number of 4-byte Float32 samples.
    case partialSample(byteCount: Int)
    /// `trim_start` is negative, or `frame_count` is negative or longer than any clip an import makes.
    case impossibleFrames(firstFrame: Int, frameCount: Int)
    /// The frames the clip plays run past the end of its render-ready audio.
    case pastEnd(firstFrame: Int, frameCount: Int, storedFrameCount: Int)
    /// A sample the clip plays is NaN or infinite; `frame` counts from its first played frame.
    case nonFiniteSample(frame: Int)

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

    /// `ClipDamage.layout` of a clip's row.
    package func layoutDamage(clipID: Int) throws(VoicebankError) -> ClipDamage? {
        let row = try database.prepare("SELECT trim_start, frame_count, length(pcm) FROM clip WHERE id = ?")
            .bind(.integer(clipID))
        guard try row.step() else { throw .unknownClip(id: clipID, path: path) }
        return ClipDamage.layout(firstFrame: row.int(0), frameCount: row.int(1), blobByteCount: row.int(2))
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
