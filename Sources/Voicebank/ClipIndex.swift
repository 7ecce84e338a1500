import CSQLite

/// One take of a phrase: a clip the renderer can play.
public struct ClipTake: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var clipID: Int
    /// Render-ready frames at 22050 Hz.
    public var frameCount: Int

    public init(clipID: Int, frameCount: Int) {
        self.clipID = clipID
        self.frameCount = frameCount
    }

    public var description: String { "#\(clipID)" }
}

/// Fast look-ups of one voice's clips by phrase key, and of their audio, with statements prepared once.
///
/// ```swift
/// let index = try pack.clipIndex(voice: "com.example.ann")
/// index.takes(forPhraseKey: "good morning")   // [#12, #40], first imported first
/// index.firstPhraseKey(atOrAfter: "good")      // "good", or "good morning" if there is no "good"
/// ```
///
/// Opening one costs the same whatever the number of clips: every look-up is one walk down the pack's index.
public final class ClipIndex {
    public let voice: Voice
    /// The voice's fallback clip takes, first imported first.
    public let fallbackTakes: [ClipTake]
    private let pack: VoicePack
    private let voiceRowID: Int
    // Prepared on first use: a request in one voice never pays for the pack's other voices.
    private var takesByKeyStatement: Statement?
    private var firstKeyStatement: Statement?
    private var blob: OpaquePointer?
    /// The clip `blob` is open on.
    private var blobClipID: Int?

    init(pack: VoicePack, voice: Voice, voiceRowID: Int) throws(VoicebankError) {
        self.pack = pack
        self.voice = voice
        self.voiceRowID = voiceRowID
        let fallbacks = try pack.database.prepare(
            "SELECT id, frame_count FROM clip WHERE voice_id = ? AND is_fallback = 1 ORDER BY id"
        ).bind(.integer(voiceRowID))
        var takes: [ClipTake] = []
        while try fallbacks.step() { takes.append(ClipTake(clipID: fallbacks.int(0), frameCount: fallbacks.int(1))) }
        fallbackTakes = takes
    }

    private var takesByKey: Statement {
        get throws(VoicebankError) {
            if let takesByKeyStatement { return takesByKeyStatement }
            let statement = try pack.database.prepare(
                "SELECT id, frame_count FROM clip WHERE voice_id = \(voiceRowID) AND is_fallback = 0 AND phrase_key = ? ORDER BY id")
            takesByKeyStatement = statement
            return statement
        }
    }

    /// Answered from the clip_by_phrase index alone (phrase keys compare as UTF-8 bytes, SQLite's BINARY).
    private var firstKeyAtOrAfter: Statement {
        get throws(VoicebankError) {
            if let firstKeyStatement { return firstKeyStatement }
            let statement = try pack.database.prepare(
                """
                SELECT phrase_key FROM clip WHERE voice_id = \(voiceRowID) AND is_fallback = 0 AND phrase_key >= ?
                ORDER BY phrase_key LIMIT 1
                """)
            firstKeyStatement = statement
            return statement
        }
    }

    deinit { if let blob { sqlite3_blob_close(blob) } }

    /// The takes of the phrase whose key is `key`, first imported first; empty when the voice has none.
    public func takes(forPhraseKey key: String) throws(VoicebankError) -> [ClipTake] {
        let statement = try takesByKey
        try statement.bind(.text(key))
        var takes: [ClipTake] = []
        while try statement.step() { takes.append(ClipTake(clipID: statement.int(0), frameCount: statement.int(1))) }
        return takes
    }

    /// The voice's first phrase key (not a fallback's) that is `key` or sorts after it, in UTF-8 byte order.
    public func firstPhraseKey(atOrAfter key: String) throws(VoicebankError) -> String? {
        let statement = try firstKeyAtOrAfter
        try statement.bind(.text(key))
        return try statement.step() ? statement.text(0) : nil
    }

    /// Copies a clip's render-ready samples into `buffer`, which must hold its frame count; returns the frames.
    ///
    /// - Throws: `VoicebankError.unknownClip`, or `.sqlite` with SQLite's message.
    public func readRenderReadyPCM(clipID: Int, into buffer: UnsafeMutableBufferPointer<Float>) throws(VoicebankError) -> Int {
        let frameCount = try renderReadyFrameCount(clipID: clipID)
        precondition(frameCount <= buffer.count, "the caller's buffer is smaller than clip \(clipID)")
        return try readRenderReadyPCM(clipID: clipID, from: 0, into: buffer)
    }

    /// Copies a clip's render-ready samples from frame `start` on into `buffer`, as many as fit; returns the frames
    /// copied (fewer where the clip ends).
    ///
    /// Reads the blob in place, reopening one handle on the next clip (`sqlite3_blob_reopen`), so nothing is
    /// allocated per clip or per read.
    /// - Throws: `VoicebankError.unknownClip`, or `.sqlite` with SQLite's message.
    public func readRenderReadyPCM(
        clipID: Int, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>
    ) throws(VoicebankError) -> Int {
        let frameCount = try renderReadyFrameCount(clipID: clipID)
        let count = max(0, min(buffer.count, frameCount - start))
        guard count > 0, let blob else { return 0 }
        let size = MemoryLayout<Float>.size
        try pack.database.check(
            sqlite3_blob_read(blob, buffer.baseAddress, Int32(count * size), Int32(start * size)), sql: nil)
        return count
    }

    /// Opens the blob handle on a clip's render-ready samples, unless it is open on them already; their frames.
    private func renderReadyFrameCount(clipID: Int) throws(VoicebankError) -> Int {
        let database = pack.database
        if blobClipID != clipID {
            blobClipID = nil
            var status: Int32
            if let blob {
                status = sqlite3_blob_reopen(blob, sqlite3_int64(clipID))
            } else {
                status = sqlite3_blob_open(database.handle, "main", "clip", "pcm", sqlite3_int64(clipID), 0, &blob)
            }
            guard status == SQLITE_OK, blob != nil else {
                if let stale = blob { sqlite3_blob_close(stale) }
                blob = nil
                throw status == SQLITE_ERROR ? .unknownClip(id: clipID, path: pack.path)
                    : .sqlite(path: pack.path, sql: nil, message: String(cString: sqlite3_errmsg(database.handle)))
            }
            blobClipID = clipID
        }
        return Int(sqlite3_blob_bytes(blob)) / MemoryLayout<Float>.size
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

    /// Runs `body` inside one read transaction (unless one is open already): its look-ups see one snapshot of the
    /// pack, and SQLite takes its locks once rather than once per statement.
    ///
    /// - Throws: what `body` throws, or `VoicebankError.sqlite` when the transaction cannot begin.
    public func reading<Result>(_ body: () throws -> Result) throws -> Result {
        guard sqlite3_get_autocommit(database.handle) != 0 else { return try body() }
        try database.execute("BEGIN")
        defer { sqlite3_exec(database.handle, "COMMIT", nil, nil, nil) }
        return try body()
    }

    /// A clip index of every voice, in the pack's order, read with one query of the voices.
    public func clipIndexes() throws(VoicebankError) -> [ClipIndex] {
        let statement = try database.prepare(
            "SELECT id, identifier, name, primary_languages, supported_languages, normal_rate FROM voice ORDER BY id")
        var rows: [(Int, Voice)] = []
        while try statement.step() {
            rows.append(
                (statement.int(0),
                 Voice(
                    stored: statement.text(1), name: statement.text(2), primary: statement.text(3),
                    supported: statement.text(4), normalRate: statement.double(5))))
        }
        var indexes: [ClipIndex] = []
        for (rowID, voice) in rows { indexes.append(try ClipIndex(pack: self, voice: voice, voiceRowID: rowID)) }
        return indexes
    }
}
