import AudioIO
import Dispatch
import Tokens
import Voicebank

/// One file to import and how.
public struct ImportRequest: Equatable, Sendable {
    public var path: String
    /// The phrase; `nil` takes it from the file name (see `ImportRequest.phrase(forFileAt:)`).
    public var phrase: String?
    /// A fallback clip speaks for words no clip covers; it is never matched by its phrase.
    public var isFallback: Bool
    /// The file name the clip records as its source; `nil` for the name of the file at `path`. For audio that
    /// reaches the pack through a file of the importer's making (a take of the studio).
    public var sourceName: String?

    public init(path: String, phrase: String? = nil, isFallback: Bool = false, sourceName: String? = nil) {
        self.path = path
        self.phrase = phrase
        self.isFallback = isFallback
        self.sourceName = sourceName
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

/// Where an import run is, for a progress display: called after each file, in order.
public struct ImportProgress: Sendable {
    public var completed: Int
    public var total: Int
    /// The file just handled.
    public var path: String
}

extension VoicePack {
    /// Imports files into a voice as one transaction: all of them are stored, or none.
    ///
    /// Files are read and converted on `parallelism` threads ahead of the one that stores them, in the order given,
    /// so the pack is the same whatever the parallelism. Each clip's render-ready copy has its DC offset removed and is
    /// trimmed by the voice's trimming setting (the whole conversion is kept). A file whose voice, phrase and
    /// audio equal a clip's already in the pack is skipped and reported, not stored twice; the same phrase with
    /// other audio is a new take of it.
    ///
    /// - Parameters:
    ///   - voice: the voice's identifier; `nil` for the pack's only voice.
    ///   - keepGoing: store the files that import and report the others, instead of storing nothing.
    ///   - parallelism: how many files are converted at once; the number of cores by default.
    ///   - progress: called after each file.
    /// - Throws: `VoicebankError` naming the file: `.audio` (unreadable, empty, …), `.emptyPhrase`; or a voice
    ///   error (`.unknownVoice`, `.noVoice`, `.ambiguousVoice`).
    public func importFiles(
        _ requests: [ImportRequest], into voice: String?, converter: Converter = .best, keepGoing: Bool = false,
        parallelism: Int = ProcessorCount.online, progress: (ImportProgress) -> Void = { _ in }
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
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
                    original_pcm, content_hash, converter, trim_start, frame_count, pcm, loudness_lufs, true_peak_dbtp,
                    is_loudness_measured, f0_hz, is_f0_measured)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                """)
            let sameContent = try database.prepare(
                """
                SELECT id FROM clip WHERE voice_id = ?1 AND content_hash = ?2 AND phrase_key = ?3
                    AND is_fallback = ?4 AND original_pcm = ?5 ORDER BY id LIMIT 1
                """)
            let trimming = target.trimming
            // True peak only matters under a loudness target; measuring it is most of the meter's cost.
            let measuringTruePeak = target.loudness != nil
            let pipeline = PreparationPipeline(count: requests.count, workerCount: parallelism) { index in
                Self.prepare(
                    requests[index], converter: converter, trimming: trimming, measuringTruePeak: measuringTruePeak)
            }
            defer { pipeline.finish() }
            for (index, request) in requests.enumerated() {
                defer { progress(ImportProgress(completed: index + 1, total: requests.count, path: request.path)) }
                let prepared: Prepared
                switch pipeline.next() {
                case .success(let value): prepared = value
                case .failure(let error):
                    // Only a file's own problem is kept going past; a database failure always ends the run.
                    guard keepGoing else { throw error }
                    report.failed.append(.init(path: request.path, error: error))
                    continue
                }
                let (clip, tokens, played, loudness, hash) = (
                    prepared.clip, prepared.tokens, prepared.played, prepared.loudness, prepared.contentHash
                )
                let key = Tokenizer.phraseKey(tokens)
                try sameContent.bind(
                    .integer(voiceID), .integer(hash), .text(key), .integer(request.isFallback ? 1 : 0),
                    .blob(clip.original.bytes))
                if try sameContent.step() {
                    report.skipped.append(.init(path: request.path, existing: try self.clip(id: sameContent.int(0))))
                    continue
                }
                try insert.bind(
                    .integer(voiceID), .text(request.phrase ?? ImportRequest.phrase(forFileAt: request.path)),
                    .text(key), .integer(tokens.count), .integer(request.isFallback ? 1 : 0),
                    .text(request.sourceName ?? Self.fileName(request.path)), .text(clip.source.container),
                    .text(clip.source.sampleFormat),
                    .integer(clip.source.sampleRate), .integer(clip.source.channelCount),
                    .integer(clip.source.frameCount), .text(clip.original.encoding.rawValue),
                    .blob(clip.original.bytes), .integer(hash), .text(clip.converter.rawValue),
                    .integer(played.lowerBound), .integer(played.count), .floats(clip.renderReady),
                    loudness.clipLUFS.map { .real($0) },
                    loudness.storedTruePeak, prepared.f0.map { .real($0) }, .integer(request.isFallback ? 0 : 1)
                ).run()
                report.imported.append(try self.clip(id: database.lastInsertedRowID))
            }
            if !report.imported.isEmpty { try updateMeasurements(voice: target.identifier) }
            return report
        }
    }

    /// A file read, converted, conditioned and measured, ready to store.
    struct Prepared: Sendable {
        var clip: PreparedClip
        var tokens: [Token]
        /// The frames that play, after trimming.
        var played: Range<Int>
        /// The loudness of what plays.
        var loudness: Loudness
        /// The median F0 of what plays, for a phrase clip (`nil` also when no part is voiced).
        var f0: Double?
        var contentHash: Int
    }

    /// Reads, converts, conditions and measures one file: the part of an import that runs on every core.
    static func prepare(
        _ request: ImportRequest, converter: Converter, trimming: Trimming?, measuringTruePeak: Bool
    ) -> Result<Prepared, VoicebankError> {
        Result { () throws(VoicebankError) in
            let phrase = request.phrase ?? ImportRequest.phrase(forFileAt: request.path)
            let tokens = Tokenizer.tokens(in: phrase)
            guard !tokens.isEmpty || request.isFallback else {
                throw .emptyPhrase(file: request.path, phrase: phrase)
            }
            var clip: PreparedClip
            let played: Range<Int>
            let loudness: Loudness
            do throws(AudioIOError) {
                clip = try PreparedClip(path: request.path, converter: converter)
                ClipConditioning.removeDC(&clip.renderReady)
                played = ClipConditioning.playedRange(clip.renderReady, trimming: trimming)
                loudness = try Loudness(Array(clip.renderReady[played]), measuringTruePeak: measuringTruePeak)
            } catch {
                throw .audio(error)
            }
            return Prepared(
                clip: clip, tokens: tokens, played: played, loudness: loudness,
                f0: request.isFallback ? nil : try medianF0(Array(clip.renderReady[played])),
                contentHash: contentHash(clip.original.bytes))
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
