// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite file holding voices and their clips: opening it (its schema upgraded in place), and reading its voices
/// and clips. Making and changing a pack (adding voices, importing, exporting, verifying) is VoicebankAuthoring's.
///
/// ```swift
/// let pack = try VoicePack(path: "my.sqlite", access: .readOnly)
/// let voices = try pack.voices()
/// let index = try pack.clipIndex(voice: voices[0].identifier)
/// ```
public final class VoicePack {
    public enum Access: Sendable {
        /// Reading only; the pack must exist.
        case readOnly
        /// Reading and writing; the pack must exist.
        case readWrite
        /// Reading and writing; an empty pack is made if there is no file.
        case create
    }

    public let path: String
    package let database: Database
    /// The statements of `beginReading()` and `endReading()`, prepared at the first: a long-lived reader runs them
    /// for every request, and `sqlite3_exec` would parse them again each time.
    var readTransaction: (begin: Statement, read: Statement, commit: Statement)?
    /// The data version of the snapshot a read begun by `beginReading()` holds; `nil` outside one.
    var readingVersion: UInt32?
    /// Whether the pack's clip rows hold the take features (schema 8 on): a pack of schema 7 opened read-only is read
    /// as it is, and its takes have none.
    package private(set) var hasTakeFeatures = false
    /// Whether the pack's voices hold how loud their fallback voice speaks (schema 9 on).
    package private(set) var hasSpokenLoudness = false
    /// Whether the pack's voices hold their units' weights and its aligned takes their join features (schema 12 on).
    package private(set) var hasUnitWeights = false

    /// What an upgrade does beyond its SQL, inside its transaction, once the new columns are there: given the pack
    /// and the version it had. VoicebankAuthoring's measures the take features a pack from before schema 8 lacks.
    package typealias MigrationCompletion = (VoicePack, _ fromVersion: Int) throws(VoicebankError) -> Void

    /// Opens (or with `.create` makes) the pack at `path`. Opened to write, an older schema is upgraded in one
    /// transaction; opened read-only, a pack of schema 7 or later is read as it is (its takes without the features
    /// of schema 8), and an older one is upgraded first.
    ///
    /// - Throws: `VoicebankError.noPack`, `.notAVoicePack` (not SQLite, or another application's database),
    ///   `.newerSchema`, or `.sqlite`.
    public convenience init(path: String, access: Access) throws(VoicebankError) {
        try self.init(path: path, access: access) { _, _ throws(VoicebankError) in }
    }

    /// Opens the pack as `init(path:access:)` does, running `completingMigration` inside the transaction of an
    /// upgrade, if one is made.
    ///
    /// - Throws: as `init(path:access:)`, and what `completingMigration` throws (the upgrade is then rolled back).
    package init(path: String, access: Access, completingMigration: MigrationCompletion) throws(VoicebankError) {
        self.path = path
        let exists = fileExists(path)
        guard exists || access == .create else { throw .noPack(path: path) }
        switch access {
        case .readOnly: database = try Self.openForReading(path)
        case .readWrite: database = try Database(path: path, mode: .readWrite)
        case .create: database = try Database(path: path, mode: .readWriteCreate)
        }
        do {
            try database.execute("PRAGMA foreign_keys = ON")
            try prepareSchema(isWritable: access != .readOnly, completingMigration: completingMigration)
            let version = try schemaVersion
            hasTakeFeatures = version >= Schema.takeFeaturesVersion
            hasSpokenLoudness = version >= Schema.spokenLoudnessVersion
            hasUnitWeights = version >= Schema.joinFeaturesVersion
        } catch {
            if case .sqlite(_, _, let message) = error, message.contains("not a database") {
                throw .notAVoicePack(path: path, reason: "it is not an SQLite database")
            }
            throw error
        }
    }

    /// A read-only connection, also to a WAL pack on a read-only file system or in a folder this process cannot
    /// write, where SQLite cannot make the `-shm` file a WAL reader needs.
    private static func openForReading(_ path: String) throws(VoicebankError) -> Database {
        let database = try Database(path: path, mode: .readOnly)
        do {
            _ = try database.integer("PRAGMA user_version")
            return database
        } catch {
            guard database.lastErrorCode & 0xFF == SQLITE_CANTOPEN else { throw error }
        }
        // Nobody can write a pack whose -shm file cannot be made, so reading it as immutable is safe: unless a
        // -wal file holds commits not yet in the pack, which an immutable reader would not see.
        if let walSize = fileSize(path + "-wal"), walSize > 0 {
            throw .readOnlyPack(
                path: path,
                reason:
                    "its \(path)-wal file holds changes not yet in the pack, and SQLite cannot read them where it cannot write (\(Database.unwritableReason(path))); open it once where it can be written"
            )
        }
        return try Database(path: path, mode: .immutable)
    }

    /// The pack's schema version (`PRAGMA user_version`).
    public var schemaVersion: Int {
        get throws(VoicebankError) { try database.integer("PRAGMA user_version") }
    }

    private func prepareSchema(
        isWritable: Bool, completingMigration: MigrationCompletion
    ) throws(VoicebankError) {
        // The header's numbers, then the schema's rows, before any query reads a table of the pack.
        let version = try schemaVersion
        let applicationID = try database.integer("PRAGMA application_id")
        let rows = try schemaRows()
        if applicationID != Schema.applicationID && !(applicationID == 0 && version == 0 && rows.isEmpty) {
            throw .notAVoicePack(path: path, reason: "it is an SQLite database of another application")
        }
        // SQLite's user_version is any 32-bit number; below 0 it would index the migrations from before the first.
        guard version >= 0 else {
            throw .notAVoicePack(path: path, reason: "its schema version is \(version), which no voicebank writes")
        }
        guard version <= Schema.currentVersion else {
            throw .newerSchema(path: path, version: version, supported: Schema.currentVersion)
        }
        // Before a migration writes, and before a read could run a view or trigger of someone else's making.
        let expected = Schema.objects(version: version)
        if let foreign = rows.first(where: { !$0.isPlain || !expected.contains($0.object) }) {
            throw .foreignSchemaObject(path: path, kind: foreign.kind, name: foreign.object.name)
        }
        guard version < Schema.currentVersion else {
            try checkColumns(version: version)
            return
        }
        guard isWritable else {
            // An empty file is not a pack to read; a new pack is made by `voicebank create`, which writes.
            if version == 0 && rows.isEmpty { throw .notAVoicePack(path: path, reason: "it is empty") }
            // Reading writes nothing it need not: rendering, a server and a pack on a read-only file system read a
            // pack of schema 7 as it is; the take features come with an upgrade opened to write.
            if version >= Schema.oldestReadVersion {
                try checkColumns(version: version)
                return
            }
            // An older pack opened for reading: upgrade it through a connection of our own, then read on.
            do {
                _ = try VoicePack(path: path, access: .readWrite)
            } catch .readOnlyPack(let path, let reason) {
                throw .readOnlyPack(
                    path: path,
                    reason:
                        "\(reason), and its schema version \(version) must be upgraded to \(Schema.currentVersion) before this version reads it"
                )
            }
            return
        }
        // WAL makes every import one atomic step that readers never see half done.
        try database.execute("PRAGMA journal_mode = WAL")
        try database.transaction { () throws(VoicebankError) in
            // Read again inside the lock: another process may have migrated meanwhile.
            let lockedVersion = try schemaVersion
            for step in lockedVersion..<Schema.currentVersion {
                try database.execute(Schema.migrations[step])
            }
            hasTakeFeatures = true
            hasSpokenLoudness = true
            hasUnitWeights = true
            try completingMigration(self, lockedVersion)
            try database.execute("PRAGMA application_id = \(Schema.applicationID)")
            try database.execute("PRAGMA user_version = \(Schema.currentVersion)")
        }
        // Move the migration out of the WAL into the file: a read-only connection of this process may still be
        // open, so closing would not, and a WAL left beside the file would be applied to whatever file later
        // takes its place (a new default pack from git, say).
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Compiles a statement reading every column a pack of `version` has (`Schema.columns(version:)`), which checks
    /// its tables and columns without reading a row.
    private func checkColumns(version: Int) throws(VoicebankError) {
        for (table, columns) in Schema.columns(version: version) {
            _ = try database.prepare("SELECT \(columns) FROM \(table)")
        }
    }

    /// One row of `sqlite_schema`: the object it names, the first words of its statement, and whether they are what
    /// SQLite writes for an object the store makes.
    private struct SchemaRow {
        var object: Schema.Object
        var statementStart: String?
        var isPlain: Bool

        /// What the statement makes (`table`, `virtual table`, `index`, `view`, `trigger`) as far as its first words
        /// tell, else the row's type: only for the error, as it costs more than the whole check.
        var kind: String { VoicePack.kind(ofStatement: statementStart) ?? object.type }
    }

    /// The rows of `sqlite_schema`, in the order they were made. Reading them runs nothing of the pack's: with the
    /// schema untrusted and defensive mode on (`Database`), SQLite parses each statement into its schema but calls no
    /// function, view, trigger or virtual table module in it.
    private func schemaRows() throws(VoicebankError) -> [SchemaRow] {
        // The first words, not the whole statement: a table's is a kilobyte, and only its start tells.
        let statement = try database.prepare(
            "SELECT type, name, tbl_name, substr(sql, 1, 40) FROM sqlite_schema ORDER BY rowid")
        var rows: [SchemaRow] = []
        while try statement.step() {
            let object = Schema.Object(type: statement.text(0), name: statement.text(1), table: statement.text(2))
            let start = statement.optionalText(3)
            // SQLite builds each object from its row's statement; type and name say only what the row calls it. A
            // virtual table named clip is a row of type table too: the statement must start as SQLite writes ours.
            let isPlain: Bool
            switch object.type {
            case "table": isPlain = start?.hasPrefix("CREATE TABLE ") == true
            case "index" where object.name.hasPrefix("sqlite_autoindex_"): isPlain = start == nil
            case "index": isPlain = start?.hasPrefix("CREATE INDEX ") == true
            default: isPlain = false
            }
            rows.append(SchemaRow(object: object, statementStart: start, isPlain: isPlain))
        }
        return rows
    }

    /// What a `CREATE …` statement makes, from its first words; `nil` when they do not say.
    static func kind(ofStatement start: String?) -> String? {
        guard let start else { return nil }
        let words = start.uppercased().split(whereSeparator: \.isWhitespace).drop { $0 == "CREATE" }
        let isQualified = ["TEMP", "TEMPORARY", "UNIQUE"].contains(words.first)
        return kind(isQualified ? words.dropFirst().first : words.first)
    }

    private static func kind(_ word: Substring?) -> String? {
        switch word {
        case "TABLE": "table"
        case "VIRTUAL": "virtual table"
        case "INDEX": "index"
        case "VIEW": "view"
        case "TRIGGER": "trigger"
        default: nil
        }
    }

    // MARK: Voices

    /// The pack's voices, in the order they were added.
    ///
    /// - Throws: `VoicebankError.damagedVoice` for a voice row holding a setting `voicebank configure` cannot set.
    public func voices() throws(VoicebankError) -> [Voice] {
        try voiceRows().map(\.voice)
    }

    /// The voices with their row ids, in the order they were added.
    /// The voice rows; each checked (`checkSettings`) unless `isChecked` is false, which only the setters that
    /// repair a damaged row use.
    package func voiceRows(isChecked: Bool = true) throws(VoicebankError) -> [(id: Int, voice: Voice)] {
        let statement = try database.prepare(
            """
            SELECT identifier, name, primary_languages, supported_languages, normal_rate, trim_threshold_db,
                trim_pad_frames, edge_fade_frames, crossfade_frames, target_loudness_lufs, true_peak_ceiling_dbtp, id,
                fallback_mode, median_f0_hz, median_loudness_lufs, fallback_variant, fallback_pitch,
                fallback_pitch_range, fallback_words_per_minute, fallback_pitch_shift\(
                    hasTakeFeatures
                    ? ", selection_position_weight, selection_pitch_weight, selection_energy_weight, "
                        + "selection_spectrum_weight" : "")\(hasSpokenLoudness ? ", fallback_spoken_loudness_lufs" : "")\(
                    hasUnitWeights ? ", " + Schema.unitWeightColumns.joined(separator: ", ") : "")
            FROM voice ORDER BY id
            """)
        var rows: [(id: Int, voice: Voice)] = []
        while try statement.step() {
            let mode = FallbackMode(rawValue: statement.text(12))
            var voice = Voice(
                stored: statement.text(0), name: statement.text(1), primary: statement.text(2),
                supported: statement.text(3), normalRate: statement.double(4),
                trimming: statement.optionalDouble(5).map {
                    Trimming(thresholdDecibels: $0, padFrames: statement.int(6))
                },
                joins: Joins(edgeFadeFrames: statement.int(7), crossfadeFrames: statement.int(8)),
                loudness: statement.optionalDouble(9).map {
                    LoudnessTarget(targetLUFS: $0, truePeakCeilingDBTP: statement.double(10))
                },
                fallbackMode: mode ?? .clip,
                fallbackVoice: FallbackVoiceSettings(
                    variant: statement.text(15), pitch: statement.int(16), pitchRange: statement.int(17),
                    wordsPerMinute: statement.int(18), pitchShiftSemitones: statement.double(19)),
                medianF0Hz: statement.optionalDouble(13), medianLoudnessLUFS: statement.optionalDouble(14))
            if hasTakeFeatures {
                voice.selection = SelectionWeights(
                    position: statement.double(20), pitch: statement.double(21), energy: statement.double(22),
                    spectrum: statement.double(23))
            }
            if hasSpokenLoudness { voice.fallbackVoice.spokenLoudnessLUFS = statement.optionalDouble(24) }
            if hasUnitWeights { voice.units = UnitWeights(values: (25..<33).map { statement.double(Int32($0)) }) }
            if isChecked {
                guard mode != nil else {
                    throw .damagedVoice(
                        path: path, voice: voice.identifier, field: "fallback_mode", value: statement.text(12),
                        expected: FallbackMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                try checkSettings(voice)
            }
            rows.append((statement.int(11), voice))
        }
        return rows
    }

    /// Refuses a stored voice whose settings are outside what the setters accept: a hand-edited or damaged row,
    /// whose crossfade of 9e18 frames would overflow a frame count, or whose negative normal rate would play
    /// every request at the slowest speed.
    ///
    /// - Throws: `VoicebankError.damagedVoice` naming the first such column.
    private func checkSettings(_ voice: Voice) throws(VoicebankError) {
        let damage = { (field: String, value: String, expected: String) -> VoicebankError in
            .damagedVoice(path: self.path, voice: voice.identifier, field: field, value: value, expected: expected)
        }
        let joinFrames = 0...Joins.maximumFrames
        let joinsExpected = "0 to \(Joins.maximumFrames) frames (0 to 500 ms)"
        guard Voice.normalRates.contains(voice.normalRate) else {
            throw damage(
                "normal_rate", "\(voice.normalRate)",
                "a multiple of SSML's default rate from \(Voice.normalRates.lowerBound) to \(Voice.normalRates.upperBound)"
            )
        }
        guard joinFrames.contains(voice.joins.edgeFadeFrames) else {
            throw damage("edge_fade_frames", "\(voice.joins.edgeFadeFrames)", joinsExpected)
        }
        guard joinFrames.contains(voice.joins.crossfadeFrames) else {
            throw damage("crossfade_frames", "\(voice.joins.crossfadeFrames)", joinsExpected)
        }
        if let trimming = voice.trimming {
            guard trimming.thresholdDecibels.isFinite, trimming.thresholdDecibels <= 0 else {
                throw damage(
                    "trim_threshold_db", "\(trimming.thresholdDecibels)", "a level of at most 0 dBFS such as -50")
            }
            guard (0...Trimming.maximumPadFrames).contains(trimming.padFrames) else {
                throw damage(
                    "trim_pad_frames", "\(trimming.padFrames)",
                    "0 to \(Trimming.maximumPadFrames) frames (0 to 1000 ms)")
            }
        }
        try checkFallbackSettings(voice, damage)
        let weights = [
            ("selection_position_weight", voice.selection.position),
            ("selection_pitch_weight", voice.selection.pitch),
            ("selection_energy_weight", voice.selection.energy),
            ("selection_spectrum_weight", voice.selection.spectrum),
        ]
        for (field, weight) in weights where !SelectionWeights.weights.contains(weight) {
            throw damage(field, "\(weight)", SelectionWeights.accepted)
        }
        for (field, weight) in zip(Schema.unitWeightColumns, voice.units.values)
        where !UnitWeights.weights.contains(weight) {
            throw damage(field, "\(weight)", UnitWeights.accepted)
        }
        if let loudness = voice.loudness {
            guard LoudnessTarget.targets.contains(loudness.targetLUFS) else {
                throw damage(
                    "target_loudness_lufs", "\(loudness.targetLUFS)",
                    "\(LoudnessTarget.targets.lowerBound) to \(LoudnessTarget.targets.upperBound) LUFS")
            }
            guard loudness.truePeakCeilingDBTP.isFinite, loudness.truePeakCeilingDBTP <= 0 else {
                throw damage(
                    "true_peak_ceiling_dbtp", "\(loudness.truePeakCeilingDBTP)", "at most 0 dBTP such as -1")
            }
        }
    }

    /// Refuses fallback-voice settings `voicebank configure` would not have chosen: a variant that is not a plain
    /// name (it goes to espeak-ng as part of a voice name), pitches, rates and medians out of range.
    private func checkFallbackSettings(
        _ voice: Voice, _ damage: (String, String, String) -> VoicebankError
    ) throws(VoicebankError) {
        let settings = voice.fallbackVoice
        guard settings.variant.utf8.count <= 32, settings.variant.utf8.allSatisfy(Voice.isNameByte) else {
            throw damage("fallback_variant", settings.variant, "an espeak-ng variant such as f3, or none")
        }
        guard FallbackVoiceSettings.pitches.contains(settings.pitch) else {
            throw damage("fallback_pitch", "\(settings.pitch)", "an espeak-ng pitch from 0 to 100")
        }
        guard FallbackVoiceSettings.pitches.contains(settings.pitchRange) else {
            throw damage(
                "fallback_pitch_range", "\(settings.pitchRange)", "an espeak-ng pitch range from 0 to 100")
        }
        guard FallbackVoiceSettings.wordsPerMinuteRange.contains(settings.wordsPerMinute) else {
            throw damage(
                "fallback_words_per_minute", "\(settings.wordsPerMinute)", "an espeak-ng rate from 80 to 450")
        }
        guard Prosody.pitchShifts.contains(settings.pitchShiftSemitones) else {
            throw damage(
                "fallback_pitch_shift", "\(settings.pitchShiftSemitones)", "a shift from -24 to 24 semitones")
        }
        if let f0 = voice.medianF0Hz, !(f0.isFinite && f0 > 0) {
            throw damage("median_f0_hz", "\(f0)", "a frequency above 0 Hz")
        }
        if let loudness = voice.medianLoudnessLUFS, !LoudnessTarget.targets.contains(loudness) {
            throw damage("median_loudness_lufs", "\(loudness)", "-70 to 0 LUFS")
        }
        if let loudness = settings.spokenLoudnessLUFS, !LoudnessTarget.targets.contains(loudness) {
            throw damage("fallback_spoken_loudness_lufs", "\(loudness)", "-70 to 0 LUFS")
        }
    }

    package func voiceRowID(_ identifier: String) throws(VoicebankError) -> Int? {
        let statement = try database.prepare("SELECT id FROM voice WHERE identifier = ?").bind(.text(identifier))
        return try statement.step() ? statement.int(0) : nil
    }

    /// The voice an operation applies to: the one named, or the only one in the pack.
    ///
    /// - Parameter isChecked: `false` to get a voice whose settings are damaged, to repair them.
    /// - Throws: `VoicebankError.unknownVoice`, `.noVoice`, or `.ambiguousVoice` when the pack has several;
    ///   `.damagedVoice`.
    public func resolveVoice(_ identifier: String?, isChecked: Bool = true) throws(VoicebankError) -> Voice {
        let voices = try voiceRows(isChecked: isChecked).map(\.voice)
        if let identifier {
            guard let voice = voices.first(where: { $0.identifier == identifier }) else {
                throw .unknownVoice(identifier: identifier, available: voices.map(\.identifier), path: path)
            }
            return voice
        }
        guard let only = voices.first else { throw .noVoice(path: path) }
        guard voices.count == 1 else { throw .ambiguousVoice(available: voices.map(\.identifier), path: path) }
        return only
    }

    // MARK: Clips

    static let clipColumns = """
        clip.id, voice.identifier, phrase, phrase_key, is_fallback, frame_count, source_name, source_container,
        source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding
        """

    /// `clipColumns`, and the take features a clip's metadata shows where the pack has them.
    private var metadataColumns: String {
        Self.clipColumns
            + (hasTakeFeatures
                ? ", position, CASE WHEN is_features_measured THEN contour END, recording, cut_start, cut_end" : "")
    }

    /// The clips of one voice, or of all voices, in import order.
    public func clips(voice identifier: String? = nil) throws(VoicebankError) -> [Clip] {
        var sql = "SELECT \(metadataColumns) FROM clip JOIN voice ON voice.id = clip.voice_id"
        if let identifier {
            _ = try resolveVoice(identifier)
            sql += " WHERE voice.identifier = ?1"
        }
        let statement = try database.prepare(sql + " ORDER BY clip.id")
        if let identifier { try statement.bind(.text(identifier)) }
        var clips: [Clip] = []
        while try statement.step() { clips.append(Self.clip(from: statement)) }
        return clips
    }

    public func clip(id: Int) throws(VoicebankError) -> Clip {
        let statement = try database.prepare(
            "SELECT \(metadataColumns) FROM clip JOIN voice ON voice.id = clip.voice_id WHERE clip.id = ?"
        ).bind(.integer(id))
        guard try statement.step() else { throw .unknownClip(id: id, path: path) }
        return Self.clip(from: statement)
    }

    /// A clip from a row of `metadataColumns`. Its position, contour and cut are shown as far as they are what import
    /// writes; rendering and `verify` check them (`StoredTakeFeatures`), so a damaged one is not left unnoticed.
    static func clip(from row: Statement) -> Clip {
        var clip = Clip(
            id: row.int(0), voice: row.text(1), phrase: row.text(2), phraseKey: row.text(3),
            isFallback: row.int(4) != 0, frameCount: row.int(5), sourceName: row.text(6),
            source: SourceFormat(
                sampleRate: row.int(9), channelCount: row.int(10), frameCount: row.int(11), container: row.text(7),
                sampleFormat: row.text(8)),
            originalEncoding: SampleEncoding(rawValue: row.text(12)) ?? .float32)
        guard row.columnCount > 13 else { return clip }
        clip.position = row.optionalText(13).flatMap(TakePosition.init)
        clip.contour = row.optionalText(14).flatMap(PitchContour.init)
        if !row.isNull(15), !row.isNull(16), !row.isNull(17) {
            clip.cut = RecordingCut(recording: Int64(row.int(15)), startFrame: row.int(16), endFrame: row.int(17))
        }
        return clip
    }

    /// A clip's render-ready samples as it plays them: mono Float32 at 22050 Hz, trimmed.
    ///
    /// - Throws: `VoicebankError.damagedClip` (see `ClipDamage`), `.unknownClip`, `.sqlite`.
    public func renderReadyPCM(clipID: Int) throws(VoicebankError) -> [Float] {
        if let damage = try layoutDamage(clipID: clipID) { throw damagedClip(clipID, damage) }
        let samples = try playedSamples(clipID: clipID)
        if let damage = samples.withUnsafeBufferPointer({ ClipDamage.samples($0) }) {
            throw damagedClip(clipID, damage)
        }
        return samples
    }

    /// A clip's samples exactly as its source file held them.
    public func originalPCM(clipID: Int) throws(VoicebankError) -> OriginalPCM {
        let statement = try database.prepare(
            "SELECT original_encoding, source_channel_count, original_pcm FROM clip WHERE id = ?"
        ).bind(.integer(clipID))
        guard try statement.step() else { throw .unknownClip(id: clipID, path: path) }
        return OriginalPCM(
            encoding: SampleEncoding(rawValue: statement.text(0)) ?? .float32, channelCount: statement.int(1),
            bytes: statement.blob(2))
    }
}
