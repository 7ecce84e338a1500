// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import ConcatSynth
import SpeechCore
import Voicebank
import VoicebankAuthoring

/// A clip of the default pack that the benchmark's requests speak, with the source file it was imported from.
struct CoreClip: Hashable {
    var path: String
    var phrase: String
    var isFallback: Bool
}

/// Makes the benchmark's voice packs: one voice, the clips the requests need (imported from the default pack's
/// sources through the library, so they are real speech), and filler clips up to the size asked for.
///
/// Filler clips are rows copied from a real clip with a new phrase and their audio cut to `fillerSeconds`,
/// so that a pack of many clips takes far less room than one of half-second clips would (plus their originals).
struct PackFactory {
    static let voice = "org.concatsynth.bench"
    /// Goes up when the packs change, so that packs kept with --pack-folder are made anew.
    static let version = 2
    static let fillerSeconds = 0.2
    let core: [CoreClip]

    /// The clips the default pack speaks `requests` with, and its fallback clip.
    init(requests: [Request]) throws {
        let pack = try VoicePack(path: Locations.screenReaderPack, access: .readOnly)
        var clips: [CoreClip] = []
        for request in requests {
            let plan = try Synthesizer(pack: pack, voice: request.defaultPackVoice).renderPlan(request.text)
            for segment in plan.segments {
                switch segment.kind {
                case .phrase(let take), .fallback(let take):
                    let clip = try pack.clip(id: take.clipID)
                    let folder = clip.voice.split(separator: ".").last.map(String.init) ?? ""
                    let core = CoreClip(
                        path: "\(Locations.clipSources(folder))/\(clip.sourceName)", phrase: clip.phrase,
                        isFallback: clip.isFallback)
                    if !clips.contains(core) { clips.append(core) }
                default: break
                }
            }
        }
        if !clips.contains(where: \.isFallback) {
            clips.append(CoreClip(path: "\(Locations.clipSources("ja"))/fallback.aiff", phrase: "", isFallback: true))
        }
        core = clips
    }

    /// Makes a pack of exactly `clipCount` clips at `path` (at least the core clips), with `takesPerPhrase` takes of
    /// every phrase: the core clips' copies and the filler's takes tagged in turn untagged, initial, medial, final
    /// and question.
    func makePack(clipCount: Int, at path: String, takesPerPhrase: Int = 1) throws {
        do {
            let pack = try VoicePack(path: path, access: .create)
            try pack.addVoice(
                Voice(
                    identifier: Self.voice, name: "Bench", primaryLanguages: ["ja-JP"], supportedLanguages: ["en-US"],
                    normalRate: 4))
            let spoken = core.filter { !$0.isFallback }.map { ImportRequest(path: $0.path, phrase: $0.phrase) }
            let fallback = core.filter(\.isFallback).prefix(1).map { ImportRequest(path: $0.path, isFallback: true) }
            _ = try pack.importFiles(spoken + fallback, into: Self.voice)
        }
        let spokenCount = core.count { !$0.isFallback }
        if takesPerPhrase > 1 { try addTakes(takesPerPhrase - 1, ofEachOf: spokenCount, to: path) }
        let fillerCount = clipCount - core.count - spokenCount * (takesPerPhrase - 1)
        guard fillerCount > 0 else { return }
        try addFiller(fillerCount, to: path, takesPerPhrase: takesPerPhrase)
    }

    /// The position the `take`-th take of a phrase is tagged with, in turn; `nil` for untagged.
    private static func position(ofTake take: Int) -> String? {
        [nil, "initial", "medial", "final", "question"][take % 5]
    }

    /// Copies each phrase clip `count` times as further takes, tagged in turn.
    private func addTakes(_ count: Int, ofEachOf clipCount: Int, to path: String) throws {
        let database = try RawDatabase(path: path, readOnly: false)
        var columns: [String] = []
        try database.query("PRAGMA table_info(clip)") { columns.append($0.text(1)) }
        let copied = columns.filter { !["id", "position", "content_hash"].contains($0) }
        try database.execute("BEGIN")
        for take in 1...count {
            let position = columns.contains("position") ? ", position" : ""
            let value =
                columns.contains("position") ? ", " + (Self.position(ofTake: take).map { "'\($0)'" } ?? "NULL") : ""
            try database.execute(
                """
                INSERT INTO clip (\(copied.joined(separator: ", ")), content_hash\(position))
                SELECT \(copied.joined(separator: ", ")), content_hash + \(take)\(value) FROM clip
                WHERE is_fallback = 0 ORDER BY id LIMIT \(clipCount)
                """)
        }
        try database.execute("COMMIT")
    }

    /// Copies real clips' rows with new phrases and shortened audio, in one transaction: each phrase
    /// `takesPerPhrase` times.
    private func addFiller(_ count: Int, to path: String, takesPerPhrase: Int) throws {
        let database = try RawDatabase(path: path, readOnly: false)
        // A rollback journal (and no syncing) while filling: the WAL would write every byte twice.
        try database.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF")
        var columns: [String] = []
        try database.query("PRAGMA table_info(clip)") { columns.append($0.text(1)) }
        let templates = try database.integers("SELECT id FROM clip WHERE is_fallback = 0 ORDER BY id")
        let frames = Int((Self.fillerSeconds * Double(RenderFormat.sampleRate)).rounded())
        let sourceFrames = "((source_sample_rate * ?4 + 11025) / 22050)"
        var names: [String] = []
        var values: [String] = []
        for column in columns where column != "id" {
            names.append(column)
            switch column {
            case "phrase": values.append("?1")
            case "phrase_key": values.append("?2")
            case "token_count": values.append("?3")
            case "is_fallback": values.append("0")
            case "frame_count": values.append("?4")
            case "pcm": values.append("substr(pcm, 1, ?4 * 4)")
            case "source_frame_count": values.append(sourceFrames)
            case "original_pcm":
                values.append("substr(original_pcm, 1, \(sourceFrames) * (length(original_pcm) / source_frame_count))")
            case "content_hash": values.append("?5")
            case "source_name": values.append("?6")
            case "position": values.append("?8")
            default: values.append(column)
            }
        }
        let insert = try database.prepare(
            "INSERT INTO clip (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM clip WHERE id = ?7"
        )
        try database.execute("BEGIN")
        for index in 0..<count {
            // 1 to 4 made-up words per phrase ("qab", "qxyz"): none is a word of the requests.
            let phraseIndex = index / takesPerPhrase
            let words = (0..<(1 + phraseIndex % 4)).map { Self.word(phraseIndex &* 7 &+ $0 &* 104_729) }
            let phrase = words.joined(separator: " ")
            try insert.reset()
            try insert.bind(1, phrase)
            try insert.bind(2, phrase)
            try insert.bind(3, words.count)
            try insert.bind(4, frames)
            try insert.bind(5, 0x6669_6c6c_0000_0000 | index)
            try insert.bind(6, "filler-\(index).aiff")
            try insert.bind(7, templates[index % templates.count])
            if columns.contains("position") { try insert.bind(8, Self.position(ofTake: index % takesPerPhrase)) }
            try insert.stepToEnd()
        }
        try database.execute("COMMIT; PRAGMA journal_mode = WAL")
    }

    /// A made-up word: `q` and the number in base 26.
    static func word(_ number: Int) -> String {
        var number = number
        var letters: [UInt8] = []
        repeat {
            letters.append(UInt8(ascii: "a") + UInt8(number % 26))
            number /= 26
        } while number > 0
        return "q" + String(decoding: letters, as: UTF8.self)
    }
}

/// A bare SQLite connection for what the library does not offer: filling packs fast, and reading blobs with
/// nothing of ours in between (the anchor of the long render). Owns the `sqlite3*`.
final class RawDatabase {
    let path: String
    let handle: OpaquePointer

    init(path: String, readOnly: Bool) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            throw BenchError(description: "cannot open \(path): \(String(cString: sqlite3_errstr(status)))")
        }
        self.path = path
        self.handle = handle
    }

    deinit { sqlite3_close_v2(handle) }

    func check(_ status: Int32, _ what: String) throws {
        guard status == SQLITE_OK || status == SQLITE_ROW || status == SQLITE_DONE else {
            throw BenchError(description: "\(what) in \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    func prepare(_ sql: String) throws -> RawStatement { try RawStatement(database: self, sql: sql) }

    func query(_ sql: String, _ row: (RawStatement) throws -> Void) throws {
        let statement = try prepare(sql)
        while try statement.step() { try row(statement) }
    }

    func integers(_ sql: String) throws -> [Int] {
        var values: [Int] = []
        try query(sql) { values.append($0.int(0)) }
        return values
    }
}

/// A prepared statement of a `RawDatabase`; owns the `sqlite3_stmt*`.
final class RawStatement {
    private let database: RawDatabase
    private let handle: OpaquePointer
    private let sql: String
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(database: RawDatabase, sql: String) throws {
        var handle: OpaquePointer?
        try database.check(sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil), sql)
        self.database = database
        self.handle = handle!
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func reset() throws { try database.check(sqlite3_reset(handle), sql) }
    func bind(_ index: Int32, _ value: Int) throws {
        try database.check(sqlite3_bind_int64(handle, index, Int64(value)), sql)
    }
    func bind(_ index: Int32, _ value: String?) throws {
        guard let value else {
            try database.check(sqlite3_bind_null(handle, index), sql)
            return
        }
        try database.check(sqlite3_bind_text(handle, index, value, -1, Self.transient), sql)
    }
    func step() throws -> Bool {
        let status = sqlite3_step(handle)
        try database.check(status, sql)
        return status == SQLITE_ROW
    }
    func stepToEnd() throws { while try step() {} }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func text(_ column: Int32) -> String { String(cString: sqlite3_column_text(handle, column)) }
}
