// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite
import SpeechCore

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
    /// `takeColumns`, and the take features where the pack has them.
    private let takeColumns: String
    // Prepared on first use: a request in one voice never pays for the pack's other voices.
    private var takesByKeyStatement: Statement?
    private var firstKeyStatement: Statement?
    private var blob: OpaquePointer?
    /// The clip `blob` is open on.
    private var blobClipID: Int?
    /// Takes whose every played sample was found to be a number, in the pack as it was at `checkedVersion`.
    private var checkedTakes: Set<ClipTake> = []
    private var checkedVersion: UInt32?
    /// The take checked last: most reads continue it, and need no look-up in `checkedTakes`.
    private var lastCheckedTake: ClipTake?

    init(pack: VoicePack, voice: Voice, voiceRowID: Int) throws(VoicebankError) {
        self.pack = pack
        self.voice = voice
        self.voiceRowID = voiceRowID
        let columns = Self.takeColumns + (pack.hasTakeFeatures ? ", " + StoredTakeFeatures.columns : "")
        takeColumns = columns
        let fallbacks = try pack.database.prepare(
            "SELECT \(columns) FROM clip WHERE voice_id = ? AND is_fallback = 1 ORDER BY id"
        ).bind(.integer(voiceRowID))
        var takes: [ClipTake] = []
        while try fallbacks.step() { takes.append(try Self.take(fallbacks, target: voice.loudness, pack: pack)) }
        fallbackTakes = takes
    }

    private var takesByKey: Statement {
        get throws(VoicebankError) {
            if let takesByKeyStatement { return takesByKeyStatement }
            let statement = try pack.database.prepare(
                """
                SELECT \(takeColumns) FROM clip
                WHERE voice_id = \(voiceRowID) AND is_fallback = 0 AND phrase_key = ? ORDER BY id
                """)
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

    deinit { closeBlob() }

    /// Closes the handle on the last clip read. An open blob handle holds its read snapshot of the pack, so a
    /// long-lived reader (a server, a speech-dispatcher module) closes it after each request to see later imports
    /// and to let SQLite checkpoint them; the next read opens it again.
    public func closeBlob() {
        if let blob { sqlite3_blob_close(blob) }
        blob = nil
        blobClipID = nil
    }

    /// What the planner needs of the voice.
    public var settings: VoiceSettings { voice.settings }

    /// The takes of the phrase whose key is `key`, first imported first, with their position, contour, edges and cut
    /// where the pack has them; empty when the voice has none.
    ///
    /// - Throws: `VoicebankError.damagedClip` for a take whose row does not fit its audio or holds a feature no
    ///   import writes (`ClipDamage`), `.sqlite`.
    public func takes(forPhraseKey key: String) throws(VoicebankError) -> [ClipTake] {
        let statement = try takesByKey
        defer { statement.reset() }
        try statement.bind(.text(key))
        var takes: [ClipTake] = []
        while try statement.step() { takes.append(try Self.take(statement, target: voice.loudness, pack: pack)) }
        return takes
    }

    // length() of a blob reads the row's header, not the blob: the check below costs no audio read.
    private static let takeColumns = "id, frame_count, trim_start, loudness_lufs, true_peak_dbtp, length(pcm)"

    /// A take from a row of `takeColumns` (and `StoredTakeFeatures.columns` where the pack has them), checked against
    /// its blob (`ClipDamage.layout`) and its features checked (`StoredTakeFeatures`).
    private static func take(_ row: Statement, target: LoudnessTarget?, pack: VoicePack) throws(VoicebankError)
        -> ClipTake
    {
        if let damage = ClipDamage.layout(firstFrame: row.int(2), frameCount: row.int(1), blobByteCount: row.int(5)) {
            throw pack.damagedClip(row.int(0), damage)
        }
        var take = ClipTake(
            clipID: row.int(0), frameCount: row.int(1), firstFrame: row.int(2),
            levelDecibels: target?.gainDecibels(loudness: row.optionalDouble(3), truePeak: row.optionalDouble(4)) ?? 0)
        guard pack.hasTakeFeatures else { return take }
        do throws(ClipDamage) {
            let features = try StoredTakeFeatures(row, from: 6)
            take.position = features.position
            take.contour = features.contour
            take.edges = features.edges
            take.cut = features.cut
        } catch {
            throw pack.damagedClip(row.int(0), error)
        }
        return take
    }

    /// The voice's takes that were aligned, with their words and phones, first imported first: what the unit index
    /// is built from, with each take's join features and level where the pack keeps them (schema 12 on). Fallback
    /// clips and takes whose alignment failed give none; a pack from before alignments has none.
    ///
    /// - Throws: `VoicebankError.damagedPack` for join features that are not a measurement of the take's phones,
    ///   `.sqlite`.
    public func alignedTakes() throws(VoicebankError) -> [AlignedTake] {
        guard try pack.hasAlignments else { return [] }
        let aligned = "SELECT clip_id FROM alignment WHERE failure IS NULL"
        let hasJoinFeatures = pack.hasUnitWeights
        // Only columns the index clip_level holds (schema 12) or the id alone: reading a column of the row after the
        // clip's audio (its loudness, even the audio's length) walks the audio's pages, tens of megabytes for a voice
        // of half an hour.
        let rows = try pack.database.prepare(
            """
            SELECT id\(hasJoinFeatures ? ", loudness_lufs, true_peak_dbtp" : "") FROM clip
            WHERE voice_id = \(voiceRowID) AND is_fallback = 0 AND id IN (\(aligned)) ORDER BY id
            """)
        var takes: [AlignedTake] = []
        var positions: [Int: Int] = [:]
        while try rows.step() {
            positions[rows.int(0)] = takes.count
            var take = AlignedTake(clipID: rows.int(0), words: [], phones: [])
            if hasJoinFeatures {
                take.levelDecibels =
                    voice.loudness?.gainDecibels(loudness: rows.optionalDouble(1), truePeak: rows.optionalDouble(2))
                    ?? 0
            }
            takes.append(take)
        }
        for (table, order) in [("aligned_word", "word_index"), ("aligned_phone", "phone_index")] {
            let segments = try pack.database.prepare(
                """
                SELECT clip_id, label, start_frame, end_frame, word_index FROM \(table)
                WHERE clip_id IN (SELECT id FROM clip WHERE voice_id = \(voiceRowID)) ORDER BY clip_id, \(order)
                """)
            while try segments.step() {
                guard let position = positions[segments.int(0)] else { continue }
                let start = segments.int(2)
                let segment = AlignedTake.Segment(
                    label: segments.text(1), frames: start..<max(start, segments.int(3)), word: segments.int(4))
                if table == "aligned_word" {
                    takes[position].words.append(segment)
                } else {
                    takes[position].phones.append(segment)
                }
            }
        }
        guard hasJoinFeatures else { return takes }
        let features = try pack.database.prepare(
            """
            SELECT clip_id, features FROM join_features
            WHERE clip_id IN (SELECT id FROM clip WHERE voice_id = \(voiceRowID)) ORDER BY clip_id
            """)
        while try features.step() {
            guard let position = positions[features.int(0)] else { continue }
            takes[position].joinFeatures = try pack.joinFeatures(
                features, clipID: features.int(0), phoneCount: takes[position].phones.count)
        }
        return takes
    }

    /// A clip's level (the gain in dB that plays it at the voice's loudness target; 0 without one), its whole
    /// render-ready length and the frames it plays.
    ///
    /// - Throws: `VoicebankError.unknownClip`, `.sqlite`.
    public func audio(clipID: Int) throws(VoicebankError) -> AlignedTake.Audio {
        let row = try pack.database.prepare(
            "SELECT loudness_lufs, true_peak_dbtp, length(pcm), trim_start, frame_count FROM clip WHERE id = ?"
        ).bind(.integer(clipID))
        guard try row.step() else { throw .unknownClip(id: clipID, path: pack.path) }
        return AlignedTake.Audio(
            levelDecibels: voice.loudness?.gainDecibels(
                loudness: row.optionalDouble(0), truePeak: row.optionalDouble(1))
                ?? 0,
            wholeFrameCount: row.int(2) / MemoryLayout<Float>.size, playedFrames: row.int(3)..<row.int(3) + row.int(4))
    }

    /// A take's pitch marks as import measured them; empty for a take with none stored (a pack before schema 11).
    ///
    /// - Throws: `.damagedPack` for marks that are not increasing frames of the clip, `.sqlite`.
    public func pitchMarks(clipID: Int) throws(VoicebankError) -> [Int] { try pack.pitchMarks(clipID: clipID) ?? [] }

    /// The voice's first phrase key (not a fallback's) that is `key` or sorts after it, in UTF-8 byte order.
    public func firstPhraseKey(atOrAfter key: String) throws(VoicebankError) -> String? {
        let statement = try firstKeyAtOrAfter
        defer { statement.reset() }
        try statement.bind(.text(key))
        return try statement.step() ? statement.text(0) : nil
    }

    /// Copies frames `start…` of what `take` plays (past its trimmed silence) into `buffer`, as many as fit;
    /// returns the frames copied (fewer where the take ends).
    ///
    /// Reads the blob in place, reopening one handle on the next clip (`sqlite3_blob_reopen`), so nothing is
    /// allocated per read. No sample that is not a number reaches the output: the first read of a take checks every
    /// sample it plays, once for as long as the pack file is unchanged (see `checkSamples`).
    /// - Throws: `VoicebankError.damagedClip` for a take that does not fit its blob or a sample that is NaN or
    ///   infinite, `.unknownClip`, or `.sqlite` with SQLite's message.
    public func readRenderReadyPCM(
        _ take: ClipTake, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>
    ) throws(VoicebankError) -> Int {
        let storedBytes = try renderReadyByteCount(clipID: take.clipID)
        // Takes come checked from this index's rows; a take made by hand, or from another pack, may not be.
        if let damage = ClipDamage.layout(
            firstFrame: take.firstFrame, frameCount: take.frameCount, blobByteCount: storedBytes)
        {
            throw pack.damagedClip(take.clipID, damage)
        }
        let count = max(0, min(buffer.count, take.frameCount - start))
        guard count > 0, start >= 0, let blob else { return 0 }
        try checkSamples(take, blob: blob, scratch: buffer)
        try read(blob, frames: take.firstFrame + start, into: UnsafeMutableBufferPointer(rebasing: buffer[..<count]))
        return count
    }

    /// Checks every sample `take` plays (`ClipDamage.samples`), through `scratch`, unless that take was checked
    /// already in the pack as it is now.
    ///
    /// Checking each pull instead was a large part of a long render's work; once per take, a render pays for its
    /// distinct clips only. A take checked stays checked while SQLite's data version of the file stands still, and
    /// any commit, by any connection or process, moves it; a read transaction (a render's snapshot) holds it still.
    private func checkSamples(
        _ take: ClipTake, blob: OpaquePointer, scratch: UnsafeMutableBufferPointer<Float>
    ) throws(VoicebankError) {
        let version = pack.database.dataVersion
        if version != checkedVersion || version == nil {
            checkedTakes.removeAll(keepingCapacity: true)
            checkedVersion = version
            lastCheckedTake = nil
        }
        guard take != lastCheckedTake else { return }
        if !checkedTakes.contains(take) {
            var checked = 0
            while checked < take.frameCount {
                let chunk = UnsafeMutableBufferPointer(
                    rebasing: scratch[..<min(scratch.count, take.frameCount - checked)])
                try read(blob, frames: take.firstFrame + checked, into: chunk)
                if let damage = ClipDamage.samples(UnsafeBufferPointer(chunk), offset: checked) {
                    throw pack.damagedClip(take.clipID, damage)
                }
                checked += chunk.count
            }
            checkedTakes.insert(take)
        }
        lastCheckedTake = take
    }

    /// Copies `buffer.count` samples of the open blob, from frame `first` on, into `buffer`.
    private func read(
        _ blob: OpaquePointer, frames first: Int, into buffer: UnsafeMutableBufferPointer<Float>
    ) throws(VoicebankError) {
        let size = MemoryLayout<Float>.size
        try pack.database.check(
            sqlite3_blob_read(blob, buffer.baseAddress, Int32(buffer.count * size), Int32(first * size)), sql: nil)
    }

    /// Opens the blob handle on a clip's render-ready samples, unless it is open on them already; their bytes.
    private func renderReadyByteCount(clipID: Int) throws(VoicebankError) -> Int {
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
                throw status == SQLITE_ERROR
                    ? .unknownClip(id: clipID, path: pack.path) : database.error(status, sql: nil)
            }
            blobClipID = clipID
        }
        return Int(sqlite3_blob_bytes(blob))
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
        let isReading = try beginReading()
        defer { if isReading { endReading() } }
        return try body()
    }

    /// Starts a read transaction that holds the pack as it is now until `endReading()`: a request planned and
    /// rendered while another process imports sees the pack from before or after the import, never between.
    /// Returns `false`, and starts nothing, when a transaction is open already.
    public func beginReading() throws(VoicebankError) -> Bool {
        guard sqlite3_get_autocommit(database.handle) != 0 else { return false }
        if readTransaction == nil {
            readTransaction = (
                try database.prepare("BEGIN"), try database.prepare("PRAGMA data_version"),
                try database.prepare("COMMIT")
            )
        }
        let (begin, read, _) = readTransaction!
        defer {
            begin.reset()
            read.reset()
        }
        try begin.run()
        do {
            // A read takes the snapshot now rather than at the first look-up, so the data version is the snapshot's.
            try read.run()
        } catch {
            endReading()
            throw error
        }
        readingVersion = database.dataVersion
        return true
    }

    /// Ends the read transaction `beginReading()` started.
    public func endReading() {
        readingVersion = nil
        guard let commit = readTransaction?.commit else { return }
        _ = try? commit.run()
        commit.reset()
    }

    /// A clip index of every voice, in the pack's order, read with one query of the voices.
    public func clipIndexes() throws(VoicebankError) -> [ClipIndex] {
        let rows = try voiceRows()
        var indexes: [ClipIndex] = []
        for (rowID, voice) in rows { indexes.append(try ClipIndex(pack: self, voice: voice, voiceRowID: rowID)) }
        return indexes
    }
}

extension ClipIndex: PhraseLookup, ClipAudioSource, UnitLookup {
    /// The pack file's data version: any commit to it, through any connection, moves it.
    public var samplesVersion: UInt64? { pack.database.dataVersion.map(UInt64.init) }

    /// The data version of the snapshot `VoicePack.beginReading()` holds; `nil` outside one, where each look-up
    /// reads the pack as it is at that moment.
    public var phrasesVersion: UInt64? { pack.readingVersion.map(UInt64.init) }
}
