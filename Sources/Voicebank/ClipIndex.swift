import CSQLite

/// One take of a phrase: a clip the renderer can play.
public struct ClipTake: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var clipID: Int
    /// Render-ready frames at 22050 Hz that play.
    public var frameCount: Int
    /// Where in the clip's render-ready samples they start (past the trimmed silence).
    public var firstFrame: Int
    /// The gain in dB that plays the clip at its voice's loudness target; 0 without one.
    public var levelDecibels: Double

    public init(clipID: Int, frameCount: Int, firstFrame: Int = 0, levelDecibels: Double = 0) {
        self.clipID = clipID
        self.frameCount = frameCount
        self.firstFrame = firstFrame
        self.levelDecibels = levelDecibels
    }

    public var description: String { "#\(clipID)" }
}

/// Fast look-ups of one voice's clips by phrase key, and of their audio, with statements prepared once.
///
/// ```swift
/// let index = try pack.clipIndex(voice: "com.example.ann")
/// index.takes(forPhraseKey: "good morning")   // [#12, #40], first imported first
/// ```
public final class ClipIndex {
    public let voice: Voice
    /// The most tokens any phrase key of this voice has; the matcher never looks further ahead.
    public let longestPhraseTokenCount: Int
    /// The voice's fallback clip takes, first imported first.
    public let fallbackTakes: [ClipTake]
    private let pack: VoicePack
    private let takesByKey: Statement
    private var blob: OpaquePointer?

    init(pack: VoicePack, voice: Voice, voiceRowID: Int) throws(VoicebankError) {
        self.pack = pack
        self.voice = voice
        longestPhraseTokenCount = try pack.database.prepare(
            "SELECT coalesce(max(token_count), 0) FROM clip WHERE voice_id = ? AND is_fallback = 0"
        ).bind(.integer(voiceRowID)).firstInt() ?? 0
        let fallbacks = try pack.database.prepare(
            "SELECT \(Self.takeColumns) FROM clip WHERE voice_id = ? AND is_fallback = 1 ORDER BY id"
        ).bind(.integer(voiceRowID))
        var takes: [ClipTake] = []
        while try fallbacks.step() { takes.append(Self.take(fallbacks, target: voice.loudness)) }
        fallbackTakes = takes
        takesByKey = try pack.database.prepare(
            """
            SELECT \(Self.takeColumns) FROM clip
            WHERE voice_id = \(voiceRowID) AND is_fallback = 0 AND phrase_key = ? ORDER BY id
            """)
    }

    deinit { if let blob { sqlite3_blob_close(blob) } }

    /// The takes of the phrase whose key is `key`, first imported first; empty when the voice has none.
    public func takes(forPhraseKey key: String) throws(VoicebankError) -> [ClipTake] {
        try takesByKey.bind(.text(key))
        var takes: [ClipTake] = []
        while try takesByKey.step() { takes.append(Self.take(takesByKey, target: voice.loudness)) }
        return takes
    }

    private static let takeColumns = "id, frame_count, trim_start, loudness_lufs, true_peak_dbtp"

    private static func take(_ row: Statement, target: LoudnessTarget?) -> ClipTake {
        ClipTake(
            clipID: row.int(0), frameCount: row.int(1), firstFrame: row.int(2),
            levelDecibels: target?.gainDecibels(loudness: row.optionalDouble(3), truePeak: row.optionalDouble(4)) ?? 0)
    }

    /// Copies the frames a take plays into `buffer`, which must hold its frame count; returns the frames.
    ///
    /// Reads the blob in place (`sqlite3_blob_reopen`), so nothing is allocated per clip.
    /// - Throws: `VoicebankError.unknownClip`, or `.sqlite` with SQLite's message.
    public func readRenderReadyPCM(_ take: ClipTake, into buffer: UnsafeMutableBufferPointer<Float>) throws(VoicebankError) -> Int {
        let clipID = take.clipID
        let database = pack.database
        var status: Int32
        if let blob {
            status = sqlite3_blob_reopen(blob, sqlite3_int64(clipID))
        } else {
            status = sqlite3_blob_open(database.handle, "main", "clip", "pcm", sqlite3_int64(clipID), 0, &blob)
        }
        guard status == SQLITE_OK, let blob else {
            if let stale = blob { sqlite3_blob_close(stale) }
            self.blob = nil
            throw status == SQLITE_ERROR ? .unknownClip(id: clipID, path: pack.path)
                : .sqlite(path: pack.path, sql: nil, message: String(cString: sqlite3_errmsg(database.handle)))
        }
        let available = Int(sqlite3_blob_bytes(blob)) / MemoryLayout<Float>.size - take.firstFrame
        let frameCount = max(0, min(take.frameCount, available))
        precondition(frameCount <= buffer.count, "the caller's buffer is smaller than clip \(clipID)")
        let offset = Int32(take.firstFrame * MemoryLayout<Float>.size)
        try database.check(
            sqlite3_blob_read(blob, buffer.baseAddress, Int32(frameCount * MemoryLayout<Float>.size), offset), sql: nil)
        return frameCount
    }
}

extension VoicePack {
    /// A clip index of one voice (or the pack's only voice when `nil`).
    ///
    /// - Throws: `VoicebankError.unknownVoice`, `.noVoice`, `.ambiguousVoice`.
    public func clipIndex(voice identifier: String?) throws(VoicebankError) -> ClipIndex {
        let voice = try resolveVoice(identifier)
        guard let rowID = try voiceRowID(voice.identifier) else { throw .noVoice(path: path) }
        return try ClipIndex(pack: self, voice: voice, voiceRowID: rowID)
    }
}

extension Statement {
    /// Steps once and returns the first column of the row, if there is one.
    func firstInt() throws(VoicebankError) -> Int? {
        try step() ? int(0) : nil
    }
}
