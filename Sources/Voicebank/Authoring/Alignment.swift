// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Synchronization
import Tokens
import Units
import Voicebank

/// What `VoicePack.alignTakes` did.
public struct AlignmentReport: Equatable, Sendable {
    /// A take that could not be aligned at all, and why: nothing was stored for it.
    public struct Unusable: Equatable, Sendable {
        public var clip: Clip
        public var reason: String
    }

    /// The aligner's name and version; empty when there was nothing to align.
    public var aligner = ""
    /// Takes aligned and stored.
    public var aligned: [Clip] = []
    /// Takes whose audio does not match their transcript, stored as failed, with why.
    public var failed: [AlignmentReport.Unusable] = []
    /// Takes too short for their words, or with a word without phones: warned about, nothing stored.
    public var unusable: [AlignmentReport.Unusable] = []
    /// Seconds of audio aligned (of every take sent to the aligner).
    public var seconds = 0.0
}

extension VoicePack {
    /// Takes aligned before their alignments are stored in one transaction: a run stopped part way keeps every batch
    /// stored before it, and the pack is whole either way.
    static let aligningBatch = 16

    /// The mean acoustic log-probability per frame below which an aligned take is stored as failed: its audio is
    /// taken not to say its transcript (see docs/voice-packs.md, where the scores of real voices are).
    public static let alignmentScoreFloor = -45.0

    /// Aligns every take of the English voices (a primary language `en` or `en-…`), or of one voice, that has no
    /// alignment yet, storing its words and phones (`TakeAlignment`); run again, it aligns none. Fallback clips are
    /// left out. A take whose audio does not match its transcript (no alignment, or a score below
    /// `alignmentScoreFloor`) is stored as failed; one that cannot be aligned at all is reported and left without.
    ///
    /// ```swift
    /// let report = try pack.alignTakes(voice: nil)   // every English take not yet aligned
    /// ```
    /// - Parameters:
    ///   - parallelism: how many aligner processes align at once (each takes one core).
    ///   - progress: called after each take, with its number among those to align.
    /// - Throws: `.alignerUnavailable` when there are takes to align and the aligner does not start,
    ///   `.alignerFailed`, `.store`.
    public func alignTakes(
        voice identifier: String?, parallelism: Int = ProcessorCount.online,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws(AuthoringError) -> AlignmentReport {
        var report = AlignmentReport()
        var pending: [(clip: Clip, words: [String], phones: [[String]])] = []
        do throws(VoicebankError) {
            let voices = if let identifier { [try resolveVoice(identifier)] } else { try voices() }
            let aligned = try alignedClipIDs()
            for voice in voices where voice.isEnglish {
                for clip in try clips(voice: voice.identifier) where !clip.isFallback && !aligned.contains(clip.id) {
                    let words = Tokenizer.tokens(in: clip.phrase).map { $0.text.lowercased() }
                    pending.append((clip, words, Aligner.alignerPhones(words)))
                }
            }
        } catch {
            throw .store(error)
        }
        guard !pending.isEmpty else { return report }
        let pool = try AlignerPool(count: max(1, min(parallelism, pending.count)))
        report.aligner = pool.name
        for start in stride(from: 0, to: pending.count, by: Self.aligningBatch) {
            var batch: [(clip: Clip, words: [String], phones: [[String]], samples: [Float])] = []
            for take in pending[start..<min(start + Self.aligningBatch, pending.count)] {
                do throws(VoicebankError) {
                    batch.append((take.clip, take.words, take.phones, try wholeConversion(clipID: take.clip.id)))
                } catch {
                    throw .store(error)
                }
            }
            let takes = batch
            let pipeline = PreparationPipeline(count: takes.count, workerCount: pool.count) { index in
                Result { () throws(AuthoringError) in
                    let take = takes[index]
                    let outcome = try pool.align(
                        take.samples, words: take.words, phones: take.phones, clipID: take.clip.id)
                    return (outcome, Self.joinFeatures(of: outcome, samples: take.samples))
                }
            }
            defer { pipeline.finish() }
            var outcomes: [(Clip, Aligner.Outcome, JoinFeatures?)] = []
            for (offset, take) in takes.enumerated() {
                report.seconds += Double(take.samples.count) / Double(RenderFormat.sampleRate)
                let (outcome, features) = try pipeline.next().get()
                outcomes.append((take.clip, outcome, features))
                progress(
                    ImportProgress(
                        completed: start + offset + 1, total: pending.count,
                        path: "clip #\(take.clip.id) \"\(take.clip.phrase)\""))
            }
            do throws(VoicebankError) {
                try database.transaction { () throws(VoicebankError) in
                    for (clip, outcome, features) in outcomes {
                        try store(outcome, features, of: clip, by: pool.name, in: &report)
                    }
                }
            } catch {
                throw .store(error)
            }
        }
        return report
    }

    /// The join features of an aligned take, measured at its phones as they are stored; `nil` for a take that was not
    /// aligned.
    fileprivate static func joinFeatures(of outcome: Aligner.Outcome, samples: [Float]) -> JoinFeatures? {
        guard case .aligned(_, _, let phones) = outcome else { return nil }
        return JoinFeatures.measure(samples: samples, phones: phones.map(storedSegment))
    }

    /// Stores one take's outcome, with its join features when it was aligned, inside the caller's transaction, and
    /// notes it in the report.
    private func store(
        _ outcome: Aligner.Outcome, _ features: JoinFeatures?, of clip: Clip, by aligner: String,
        in report: inout AlignmentReport
    ) throws(VoicebankError) {
        let failure: String?
        switch outcome {
        case .unusable(let reason):
            report.unusable.append(.init(clip: clip, reason: reason))
            return
        case .failed(let reason): failure = reason
        case .aligned(let score, _, _) where score < Self.alignmentScoreFloor:
            failure = "its score \(score) is below \(Self.alignmentScoreFloor): the audio does not say the transcript"
        case .aligned: failure = nil
        }
        let score: Double? = if case .aligned(let score, _, _) = outcome { score } else { nil }
        try database.prepare("INSERT INTO alignment (clip_id, aligner, score, failure) VALUES (?, ?, ?, ?)")
            .bind(.integer(clip.id), .text(aligner), score.map { .real($0) }, failure.map { .text($0) }).run()
        if let failure {
            report.failed.append(.init(clip: clip, reason: failure))
            return
        }
        guard case .aligned(_, let words, let phones) = outcome else { return }
        let insertWord = try database.prepare(
            "INSERT INTO aligned_word (clip_id, word_index, label, start_frame, end_frame) VALUES (?, ?, ?, ?, ?)")
        for (index, word) in words.enumerated() {
            try insertWord.bind(
                .integer(clip.id), .integer(index), .text(word.label), .integer(Self.frame(word.frames.lowerBound)),
                .integer(Self.frame(word.frames.upperBound))
            ).run()
        }
        let insertPhone = try database.prepare(
            """
            INSERT INTO aligned_phone (clip_id, phone_index, word_index, label, start_frame, end_frame)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        for (index, phone) in phones.enumerated() {
            try insertPhone.bind(
                .integer(clip.id), .integer(index), .integer(phone.word), .text(phone.label),
                .integer(Self.frame(phone.frames.lowerBound)), .integer(Self.frame(phone.frames.upperBound))
            ).run()
        }
        if let features { try storeJoinFeatures(features, clipID: clip.id) }
        report.aligned.append(clip)
    }

    /// An aligner frame (10 ms) as a frame at 22050 Hz.
    private static func frame(_ alignerFrame: Int) -> Int {
        alignerFrame * RenderFormat.sampleRate / Aligner.frameRate
    }

    /// A segment of the aligner's with its frames at 22050 Hz, as it is stored.
    private static func storedSegment(_ segment: AlignedTake.Segment) -> AlignedTake.Segment {
        AlignedTake.Segment(
            label: segment.label, frames: frame(segment.frames.lowerBound)..<frame(segment.frames.upperBound),
            word: segment.word)
    }

    /// The clips that have an alignment row, aligned or failed.
    private func alignedClipIDs() throws(VoicebankError) -> Set<Int> {
        let statement = try database.prepare("SELECT clip_id FROM alignment")
        var ids: Set<Int> = []
        while try statement.step() { ids.insert(statement.int(0)) }
        return ids
    }

    /// A clip's whole conversion at 22050 Hz, untrimmed: what alignment frames count in.
    private func wholeConversion(clipID: Int) throws(VoicebankError) -> [Float] {
        let statement = try database.prepare("SELECT pcm FROM clip WHERE id = ?").bind(.integer(clipID))
        guard try statement.step() else { throw .unknownClip(id: clipID, path: path) }
        return statement.floats(0)
    }
}

/// A take read from its pack to be aligned away from it (`VoicePack.takeToAlign`), so that the pack is not held while
/// the aligner works: what the studio aligns behind each take it keeps.
public struct TakeToAlign: Sendable {
    public let clip: Clip
    let words: [String]
    let phones: [[String]]
    /// Its whole conversion at 22050 Hz, untrimmed: what alignment frames count in.
    let samples: [Float]
}

/// What aligning one take came to, to be stored in its pack (`VoicePack.storeAlignment`).
public struct TakeAlignmentOutcome: Sendable {
    public let clip: Clip
    let aligner: String
    let outcome: Aligner.Outcome
    /// Measured at its phones with the alignment, away from the pack as well.
    let features: JoinFeatures?
}

/// One aligner kept for takes that come one at a time, each aligned away from its pack: started by the first take
/// it is given, and ended when released. What it could not start with is the answer for every take after.
public final class TakeAligner: Sendable {
    private let pool = Mutex<Result<AlignerPool, AuthoringError>?>(nil)

    public init() {}

    /// Aligns a take read from its pack.
    ///
    /// - Throws: `.alignerUnavailable` when the aligner does not start, `.alignerFailed`.
    public func align(_ take: TakeToAlign) throws(AuthoringError) -> TakeAlignmentOutcome {
        let started = pool.withLock { started in
            if started == nil {
                do throws(AuthoringError) { started = .success(try AlignerPool(count: 1)) } catch {
                    started = .failure(error)
                }
            }
            return started!
        }
        let pool = try started.get()
        let outcome = try pool.align(take.samples, words: take.words, phones: take.phones, clipID: take.clip.id)
        return TakeAlignmentOutcome(
            clip: take.clip, aligner: pool.name, outcome: outcome,
            features: VoicePack.joinFeatures(of: outcome, samples: take.samples))
    }
}

extension VoicePack {
    /// A take to align on its own (`TakeAligner`), read from the pack; `nil` for one `alignTakes` would not align: a
    /// fallback clip, a take of a voice that is not English, a take with an alignment already.
    ///
    /// - Throws: `.unknownClip`, `.sqlite`.
    public func takeToAlign(clipID: Int) throws(VoicebankError) -> TakeToAlign? {
        let clip = try clip(id: clipID)
        guard !clip.isFallback, try resolveVoice(clip.voice, isChecked: false).isEnglish, !(try hasAlignment(clipID))
        else { return nil }
        let words = Tokenizer.tokens(in: clip.phrase).map { $0.text.lowercased() }
        return TakeToAlign(
            clip: clip, words: words, phones: Aligner.alignerPhones(words), samples: try wholeConversion(clipID: clipID)
        )
    }

    /// Stores what aligning a take came to, in one transaction, as `alignTakes` stores each of its takes; nothing
    /// when the take was removed, or aligned, meanwhile.
    ///
    /// - Returns: the take among the report's aligned, failed or unusable takes, or in none.
    /// - Throws: `.sqlite`.
    public func storeAlignment(_ aligned: TakeAlignmentOutcome) throws(VoicebankError) -> AlignmentReport {
        var report = AlignmentReport()
        report.aligner = aligned.aligner
        try database.transaction { () throws(VoicebankError) in
            let exists = try database.prepare("SELECT 1 FROM clip WHERE id = ?").bind(.integer(aligned.clip.id))
            guard try exists.step(), !(try hasAlignment(aligned.clip.id)) else { return }
            try store(aligned.outcome, aligned.features, of: aligned.clip, by: aligned.aligner, in: &report)
        }
        return report
    }

    /// Whether a clip has an alignment row, aligned or failed.
    private func hasAlignment(_ clipID: Int) throws(VoicebankError) -> Bool {
        try database.prepare("SELECT 1 FROM alignment WHERE clip_id = ?").bind(.integer(clipID)).step()
    }
}

extension Voice {
    /// Whether the voice speaks English first: a primary language `en` or `en-…`. Its takes are aligned, and the
    /// units fallback has a front end for it.
    public var isEnglish: Bool {
        primaryLanguages.contains { $0.lowercased() == "en" || $0.lowercased().hasPrefix("en-") }
    }

    /// The fallback mode a new voice starts in: `units` for an English voice, whose takes are aligned as they are
    /// imported, so that the words no clip covers are cut from its own takes as soon as it has some (and spoken by the
    /// fallback voice, espeak-ng matched to its clips, until then); `clip` for the others, whose language has no
    /// aligner.
    public var newVoiceFallbackMode: FallbackMode { isEnglish ? .units : .clip }
}
