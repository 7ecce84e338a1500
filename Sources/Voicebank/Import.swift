import AudioIO
import Tokens

/// One file to import and how.
public struct ImportRequest: Equatable, Sendable {
    public var path: String
    /// The phrase; `nil` takes it from the file name (see `ImportRequest.phrase(forFileAt:)`).
    public var phrase: String?
    /// A fallback clip speaks for words no clip covers; it is never matched by its phrase.
    public var isFallback: Bool

    public init(path: String, phrase: String? = nil, isFallback: Bool = false) {
        self.path = path
        self.phrase = phrase
        self.isFallback = isFallback
    }

    /// The phrase a file name gives: the name without folders and extension, `_` and `-` read as spaces.
    ///
    /// `clips/double_tap_to_open.aiff` → `double tap to open`.
    public static func phrase(forFileAt path: String) -> String {
        var name = Substring(path.split(separator: "/").last ?? Substring(path))
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name.map { $0 == "_" || $0 == "-" ? " " : $0 }).trimmingSpaces
    }
}

/// What an import run did, file by file.
public struct ImportReport: Sendable {
    public struct Skipped: Sendable {
        public var path: String
        /// The clip already in the pack with the same voice, phrase and audio.
        public var existing: Clip
    }
    public struct Failed: Sendable {
        public var path: String
        public var error: VoicebankError
    }

    public var voice: Voice
    public var imported: [Clip] = []
    public var skipped: [Skipped] = []
    /// Only with `keepGoing`; otherwise the first failure is thrown and nothing is stored.
    public var failed: [Failed] = []
}

extension VoicePack {
    /// Imports files into a voice as one transaction: all of them are stored, or none.
    ///
    /// A file whose voice, phrase and audio equal a clip's already in the pack is skipped and reported, not
    /// stored twice; the same phrase with other audio is a new take of it.
    ///
    /// - Parameters:
    ///   - voice: the voice's identifier; `nil` for the pack's only voice.
    ///   - keepGoing: store the files that import and report the others, instead of storing nothing.
    /// - Throws: `VoicebankError` naming the file: `.audio` (unreadable, empty, …), `.emptyPhrase`; or a voice
    ///   error (`.unknownVoice`, `.noVoice`, `.ambiguousVoice`).
    public func importFiles(
        _ requests: [ImportRequest], into voice: String?, converter: Converter = .best, keepGoing: Bool = false
    ) throws(VoicebankError) -> ImportReport {
        try database.transaction { () throws(VoicebankError) in
            let target = try resolveVoice(voice)
            guard let voiceID = try voiceRowID(target.identifier) else {
                throw .unknownVoice(identifier: target.identifier, available: [], path: path)
            }
            var report = ImportReport(voice: target)
            let insert = try database.prepare(
                """
                INSERT INTO clip (voice_id, phrase, phrase_key, token_count, is_fallback, source_name, source_container,
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding, original_pcm,
                    content_hash, converter, frame_count, pcm)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let sameContent = try database.prepare(
                """
                SELECT id FROM clip WHERE voice_id = ?1 AND content_hash = ?2 AND phrase_key = ?3
                    AND is_fallback = ?4 AND original_pcm = ?5 ORDER BY id LIMIT 1
                """)
            for request in requests {
                let phrase = request.phrase ?? ImportRequest.phrase(forFileAt: request.path)
                let tokens = Tokenizer.tokens(in: phrase)
                let prepared: PreparedClip
                do throws(VoicebankError) {
                    guard !tokens.isEmpty || request.isFallback else {
                        throw .emptyPhrase(file: request.path, phrase: phrase)
                    }
                    do throws(AudioIOError) {
                        prepared = try PreparedClip(path: request.path, converter: converter)
                    } catch {
                        throw .audio(error)
                    }
                } catch {
                    // Only a file's own problem is kept going past; a database failure always ends the run.
                    guard keepGoing else { throw error }
                    report.failed.append(.init(path: request.path, error: error))
                    continue
                }
                let key = tokens.map(\.text).joined(separator: " ")
                let hash = Self.contentHash(prepared.original.bytes)
                try sameContent.bind(
                    .integer(voiceID), .integer(hash), .text(key), .integer(request.isFallback ? 1 : 0),
                    .blob(prepared.original.bytes))
                if try sameContent.step() {
                    report.skipped.append(.init(path: request.path, existing: try clip(id: sameContent.int(0))))
                    continue
                }
                try insert.bind(
                    .integer(voiceID), .text(phrase), .text(key), .integer(tokens.count),
                    .integer(request.isFallback ? 1 : 0), .text(Self.fileName(request.path)),
                    .text(prepared.source.container), .text(prepared.source.sampleFormat),
                    .integer(prepared.source.sampleRate), .integer(prepared.source.channelCount),
                    .integer(prepared.source.frameCount), .text(prepared.original.encoding.rawValue),
                    .blob(prepared.original.bytes), .integer(hash), .text(prepared.converter.rawValue),
                    .integer(prepared.renderReady.count), .floats(prepared.renderReady)
                ).run()
                report.imported.append(try clip(id: database.lastInsertedRowID))
            }
            return report
        }
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// 64-bit FNV-1a, as a signed integer for SQLite; a look-up key only, equality is checked on the bytes.
    static func contentHash(_ bytes: [UInt8]) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(bitPattern: UInt(hash))
    }
}
