// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import SpeechCore
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
    /// The place in a sentence the take was recorded for; `nil` leaves it untagged. Never set for a fallback clip.
    public var position: TakePosition?

    public init(
        path: String, phrase: String? = nil, isFallback: Bool = false, sourceName: String? = nil,
        position: TakePosition? = nil
    ) {
        self.path = path
        self.phrase = phrase
        self.isFallback = isFallback
        self.sourceName = sourceName
        self.position = position
    }

    /// The phrase a file name gives: the name without folders and extension, `_` and `-` read as spaces.
    ///
    /// `clips/double_tap_to_open.aiff` → `double tap to open`.
    public static func phrase(forFileAt path: String) -> String {
        phrase(ofName: stem(ofFileAt: path))
    }

    /// The position prefix of a file's name, as UK railway announcement systems name their files: `s.`, `m.`, `e.`
    /// or `q.` before a phrase (`TakePosition.filePrefix`), and the phrase after it. `e.good_morning.wav` is the final
    /// take of "good morning"; `e.wav` and `hello.wav` have no prefix.
    public static func positionPrefix(ofFileAt path: String) -> (
        prefix: String, position: TakePosition, phrase: String
    )? {
        positionPrefix(ofName: stem(ofFileAt: path)).map { ($0.prefix, $0.position, phrase(ofName: $0.rest)) }
    }

    /// A name's position prefix and what follows it: `e.hello` → `e.`, final, `hello`.
    static func positionPrefix(ofName name: Substring) -> (prefix: String, position: TakePosition, rest: Substring)? {
        guard name.count > 2, let first = name.first, let position = TakePosition.filePrefix(first),
            name.dropFirst().first == "."
        else { return nil }
        return (String(name.prefix(2)), position, name.dropFirst(2))
    }

    /// The request for a file given by name (`voicebank import FILE …`): its phrase is `phrase`, else its name past a
    /// position prefix; its position is its name's prefix, else `position`.
    ///
    /// ```swift
    /// try ImportRequest.tagged(path: "clips/e.hello.wav")   // "hello", final
    /// ```
    /// - Throws: `AuthoringError.position` when the prefix and `position` disagree, or a fallback clip's name has a
    ///   prefix.
    public static func tagged(
        path: String, phrase: String? = nil, position: TakePosition? = nil, isFallback: Bool = false
    ) throws(AuthoringError) -> ImportRequest {
        guard let prefixed = positionPrefix(ofFileAt: path) else {
            return ImportRequest(path: path, phrase: phrase, isFallback: isFallback, position: position)
        }
        if isFallback {
            throw .position(
                file: path,
                reason:
                    "its name tags it \(prefixed.position) (\(prefixed.prefix)), but a fallback clip has no position; expected the file renamed without the prefix"
            )
        }
        if let position, position != prefixed.position {
            throw .position(
                file: path,
                reason:
                    "its name tags it \(prefixed.position) (\(prefixed.prefix)), but the position given tags it \(position); expected one position (rename the file, or give no position)"
            )
        }
        return ImportRequest(path: path, phrase: phrase ?? prefixed.phrase, position: prefixed.position)
    }

    /// A file's name without folders and extension.
    private static func stem(ofFileAt path: String) -> Substring {
        var name = Substring(path.split(separator: "/").last ?? Substring(path))
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return name
    }

    private static func phrase(ofName name: Substring) -> String {
        String(name.map { $0 == "_" || $0 == "-" ? " " : $0 }).trimmingSpaces
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
        public var error: AuthoringError
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
    /// trimmed by the voice's trimming setting (the whole conversion is kept), and what plays is measured: loudness,
    /// F0 and the take features (`TakeAnalyzer`). A file whose voice, phrase and audio equal a clip's already in the
    /// pack is skipped and reported, not stored twice; the same phrase with other audio is a new take of it.
    ///
    /// - Parameters:
    ///   - voice: the voice's identifier; `nil` for the pack's only voice.
    ///   - keepGoing: store the files that import and report the others, instead of storing nothing.
    ///   - parallelism: how many files are converted at once; the number of cores by default.
    ///   - choosesFallbackVoice: whether a voice whose fallback voice is espeak-ng has its settings chosen anew from
    ///     its clips (a second or two: espeak-ng speaks sample phrases in each variant and pitch). The studio, which
    ///     keeps takes one at a time, leaves it to `updateFallbackVoice(voice:)` before it listens and at its end.
    ///   - progress: called after each file.
    /// - Throws: `AuthoringError` naming the file: `.audio` (unreadable, empty, …), `.emptyPhrase`; or `.store` with
    ///   a voice error (`.unknownVoice`, `.noVoice`, `.ambiguousVoice`).
    public func importFiles(
        _ requests: [ImportRequest], into voice: String?, converter: Converter = .best, keepGoing: Bool = false,
        parallelism: Int = ProcessorCount.online, choosesFallbackVoice: Bool = true,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws(AuthoringError) -> ImportReport {
        try store(
            requests.map(\.path), into: voice, keepGoing: keepGoing, parallelism: parallelism,
            choosesFallbackVoice: choosesFallbackVoice, progress: progress
        ) { index, conditioning in
            Result { () throws(AuthoringError) in
                let clip: PreparedClip
                do throws(AudioIOError) {
                    clip = try PreparedClip(path: requests[index].path, converter: converter)
                } catch {
                    throw .audio(error)
                }
                return try Self.prepare(clip, as: requests[index], cut: nil, conditioning)
            }
        }
    }

    /// Imports one clip read and converted already (a take converted while it was recorded), in its own
    /// transaction, as `importFiles` imports a file: conditioned, measured and stored the same way, so that a take's
    /// samples give the same clip row whether they came as a file or as a `PreparedClip`. `request.path` names it in
    /// errors and the report.
    ///
    /// ```swift
    /// let clip = PreparedClip(floatSamples: take, sampleRate: 48_000, renderReady: converted)
    /// let report = try pack.importClip(clip, as: ImportRequest(path: "take", phrase: "York"), into: nil)
    /// ```
    /// - Throws: `AuthoringError.emptyPhrase`; `.store` with `.measurement` when the meter fails, or a voice error.
    public func importClip(
        _ clip: PreparedClip, as request: ImportRequest, into voice: String?, choosesFallbackVoice: Bool = true
    ) throws(AuthoringError) -> ImportReport {
        try store(
            [request.path], into: voice, keepGoing: false, parallelism: 1, choosesFallbackVoice: choosesFallbackVoice,
            progress: { _ in }
        ) { _, conditioning in
            Result { () throws(AuthoringError) in try Self.prepare(clip, as: request, cut: nil, conditioning) }
        }
    }

    /// Imports the takes a label track marks in one recording as clips of a voice, in one transaction: each label
    /// (Audacity's `start<TAB>end<TAB>label`) becomes a clip of its frames, as a file holding only them would, that
    /// knows its cut (`RecordingCut`: the recording named by a hash of its samples, and the frames in its own rate),
    /// so that selection joins two takes cut one after the other as they were spoken.
    ///
    /// ```swift
    /// let labels = try LabelTrack(path: "session.txt")
    /// let report = try pack.importRecording("session.wav", labels: labels, into: nil)
    /// ```
    /// - Parameters:
    ///   - position: the position of every label without a prefix of its own (see `LabelTrack.takes`).
    ///   - keepGoing: store the takes that import and report the others, instead of storing nothing.
    /// - Throws: `.audio` for a recording that cannot be read, `.labels` naming the line of a label past its end,
    ///   without words or whose prefix `position` contradicts, or a voice error.
    public func importRecording(
        _ path: String, labels: LabelTrack, position: TakePosition? = nil, into voice: String?,
        converter: Converter = .best, keepGoing: Bool = false, parallelism: Int = ProcessorCount.online,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws(AuthoringError) -> ImportReport {
        let recording: Recording
        do throws(AudioIOError) { recording = try Recording(path: path) } catch { throw .audio(error) }
        let takes = try labels.takes(of: recording.source, at: path, position: position)
        let name = Self.fileName(path)
        let recordingID = Int64(Self.contentHash(recording.original.bytes))
        return try store(
            takes.map { "\(name) (\(labels.path) line \($0.lineNumber))" }, into: voice, keepGoing: keepGoing,
            parallelism: parallelism, progress: progress
        ) { index, conditioning in
            Result { () throws(AuthoringError) in
                let take = takes[index]
                let clip: PreparedClip
                do throws(AudioIOError) {
                    clip = try PreparedClip(cutting: take.frames, from: recording, converter: converter)
                } catch {
                    throw .audio(error)
                }
                let request = ImportRequest(path: path, phrase: take.phrase, sourceName: name, position: take.position)
                let cut = RecordingCut(
                    recording: recordingID, startFrame: take.frames.lowerBound, endFrame: take.frames.upperBound)
                return try Self.prepare(clip, as: request, cut: cut, conditioning)
            }
        }
    }

    /// What a voice does to every clip it imports: its trimming, and whether true peak is measured (only under a
    /// loudness target, as it is most of the meter's cost).
    struct Conditioning: Sendable {
        var trimming: Trimming?
        var measuringTruePeak: Bool
    }

    /// Stores clips that `prepare` makes on `parallelism` threads, in order, as one transaction; `names` names them
    /// in the report and the progress.
    private func store(
        _ names: [String], into voice: String?, keepGoing: Bool, parallelism: Int, choosesFallbackVoice: Bool = true,
        progress: (ImportProgress) -> Void,
        prepare: @escaping @Sendable (Int, Conditioning) -> Result<Prepared, AuthoringError>
    ) throws(AuthoringError) -> ImportReport {
        try database.transaction { () throws(AuthoringError) in
            let target: Voice
            let voiceID: Int
            let insert: Statement
            let sameContent: Statement
            do throws(VoicebankError) {
                target = try resolveVoice(voice)
                guard let id = try voiceRowID(target.identifier) else {
                    throw .unknownVoice(identifier: target.identifier, available: [], path: path)
                }
                voiceID = id
                let measured = Self.measuredColumns.joined(separator: ", ")
                let measuredValues = Self.measuredColumns.map { _ in "?" }.joined(separator: ", ")
                insert = try database.prepare(
                    """
                    INSERT INTO clip (voice_id, phrase, phrase_key, token_count, is_fallback, source_name,
                        source_container, source_sample_format, source_sample_rate, source_channel_count,
                        source_frame_count, original_encoding, original_pcm, content_hash, converter, trim_start,
                        frame_count, pcm, loudness_lufs, true_peak_dbtp, is_loudness_measured, f0_hz, is_f0_measured,
                        position, recording, cut_start, cut_end, \(measured), is_features_measured)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?,
                        \(measuredValues), 1)
                    """)
                sameContent = try database.prepare(
                    """
                    SELECT id FROM clip WHERE voice_id = ?1 AND content_hash = ?2 AND phrase_key = ?3
                        AND is_fallback = ?4 AND original_pcm = ?5 ORDER BY id LIMIT 1
                    """)
            } catch {
                throw .store(error)
            }
            var report = ImportReport(voice: target)
            let conditioning = Conditioning(trimming: target.trimming, measuringTruePeak: target.loudness != nil)
            let pipeline = PreparationPipeline(count: names.count, workerCount: parallelism) { index in
                prepare(index, conditioning)
            }
            defer { pipeline.finish() }
            for (index, name) in names.enumerated() {
                defer { progress(ImportProgress(completed: index + 1, total: names.count, path: name)) }
                let prepared: Prepared
                switch pipeline.next() {
                case .success(let value): prepared = value
                case .failure(let error):
                    // Only a file's own problem is kept going past; a database failure always ends the run.
                    guard keepGoing else { throw error }
                    report.failed.append(.init(path: name, error: error))
                    continue
                }
                let (request, clip, played, loudness, hash) = (
                    prepared.request, prepared.clip, prepared.played, prepared.loudness, prepared.contentHash
                )
                let key = Tokenizer.phraseKey(prepared.tokens)
                do throws(VoicebankError) {
                    try sameContent.bind(
                        .integer(voiceID), .integer(hash), .text(key), .integer(request.isFallback ? 1 : 0),
                        .blob(clip.original.bytes))
                    if try sameContent.step() {
                        report.skipped.append(.init(path: name, existing: try self.clip(id: sameContent.int(0))))
                        continue
                    }
                    let values: [SQLValue?] = [
                        .integer(voiceID), .text(request.phrase ?? ImportRequest.phrase(forFileAt: request.path)),
                        .text(key), .integer(prepared.tokens.count), .integer(request.isFallback ? 1 : 0),
                        .text(request.sourceName ?? Self.fileName(request.path)), .text(clip.source.container),
                        .text(clip.source.sampleFormat), .integer(clip.source.sampleRate),
                        .integer(clip.source.channelCount), .integer(clip.source.frameCount),
                        .text(clip.original.encoding.rawValue), .blob(clip.original.bytes), .integer(hash),
                        .text(clip.converter.rawValue), .integer(played.lowerBound), .integer(played.count),
                        .floats(clip.renderReady), loudness.clipLUFS.map { .real($0) }, loudness.storedTruePeak,
                        // The median F0 is a phrase clip's, for the fallback voice to match: a fallback clip has none.
                        request.isFallback ? nil : prepared.measurement.medianF0Hz.map { .real($0) },
                        .integer(request.isFallback ? 0 : 1), request.position.map { .text($0.rawValue) },
                        prepared.cut.map { .integer(Int($0.recording)) }, prepared.cut.map { .integer($0.startFrame) },
                        prepared.cut.map { .integer($0.endFrame) },
                    ]
                    try insert.bind(values + Self.measuredValues(prepared.measurement)).run()
                    try storePitchMarks(prepared.pitchMarks, clipID: database.lastInsertedRowID)
                    report.imported.append(try self.clip(id: database.lastInsertedRowID))
                } catch {
                    throw .store(error)
                }
            }
            if !report.imported.isEmpty {
                do throws(VoicebankError) {
                    try updateMeasurements(voice: target.identifier, isChoosingFallbackVoice: choosesFallbackVoice)
                } catch {
                    throw .store(error)
                }
            }
            return report
        }
    }

    /// A file read, converted, conditioned and measured, ready to store.
    struct Prepared: Sendable {
        /// What to store it as: its phrase, position, whether it is a fallback clip, its source name.
        var request: ImportRequest
        /// Where it was cut from a longer recording; `nil` for a file of its own.
        var cut: RecordingCut?
        var clip: PreparedClip
        var tokens: [Token]
        /// The frames that play, after trimming.
        var played: Range<Int>
        /// The loudness of what plays.
        var loudness: Loudness
        /// The take features and median F0 of what plays.
        var measurement: TakeMeasurement
        /// The pitch marks of the whole conversion.
        var pitchMarks: [Int]
        var contentHash: Int
    }

    /// Conditions and measures one clip read and converted: the part of an import that runs on every core.
    static func prepare(
        _ read: PreparedClip, as request: ImportRequest, cut: RecordingCut?, _ conditioning: Conditioning
    ) throws(AuthoringError) -> Prepared {
        let phrase = request.phrase ?? ImportRequest.phrase(forFileAt: request.path)
        let tokens = Tokenizer.tokens(in: phrase)
        guard !tokens.isEmpty || request.isFallback else {
            throw .emptyPhrase(file: request.path, phrase: phrase)
        }
        var clip = read
        ClipConditioning.removeDC(&clip.renderReady)
        let played = ClipConditioning.playedRange(clip.renderReady, trimming: conditioning.trimming)
        let samples = Array(clip.renderReady[played])
        let loudness: Loudness
        do throws(AudioIOError) {
            loudness = try Loudness(samples, measuringTruePeak: conditioning.measuringTruePeak)
        } catch {
            throw .audio(error)
        }
        let measurement: TakeMeasurement
        let pitchMarks: [Int]
        do throws(VoicebankError) {
            measurement = try measureTake(samples)
            pitchMarks = try measurePitchMarks(clip.renderReady)
        } catch {
            throw .store(error)
        }
        return Prepared(
            request: request, cut: cut, clip: clip, tokens: tokens, played: played, loudness: loudness,
            measurement: measurement, pitchMarks: pitchMarks, contentHash: contentHash(clip.original.bytes))
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
