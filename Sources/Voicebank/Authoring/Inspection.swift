// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Tokens
import Voicebank

/// Min, median and max of the loudness of a voice's clips (integrated, or ungated over the whole clip for clips under 400 ms).
public struct LoudnessSpread: Equatable, Sendable {
    public var minimumLUFS: Double
    public var medianLUFS: Double
    public var maximumLUFS: Double
    /// Clips measured: each clip's `Loudness.clipLUFS`.
    public var measuredClipCount: Int
    /// Of those, clips shorter than 400 ms, whose loudness is measured ungated over the whole clip (see `Loudness.clipLUFS`).
    public var shortClipCount: Int
    /// Silent clips, which have no loudness.
    public var unmeasuredClipCount: Int

    /// `nil` when no clip could be measured.
    init?(_ loudness: [Loudness]) {
        let values = loudness.compactMap(\.clipLUFS)
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        minimumLUFS = sorted[0]
        maximumLUFS = sorted[sorted.count - 1]
        medianLUFS = median(sorted)
        measuredClipCount = sorted.count
        shortClipCount = loudness.filter { $0.integratedLUFS == nil && $0.clipLUFS != nil }.count
        unmeasuredClipCount = loudness.count - sorted.count
    }
}

/// The middle of sorted values; the mean of the two middle ones for an even count.
func median(_ sorted: [Double]) -> Double {
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// What `voicebank info` shows of a pack.
public struct PackSummary: Sendable {
    public struct VoiceSummary: Sendable {
        public var voice: Voice
        /// Clips that speak a phrase (not fallback clips).
        public var phraseClipCount: Int
        public var fallbackClipCount: Int
        /// Render-ready length of all its clips.
        public var durationSeconds: Double
        /// Over the phrase clips; `nil` when none could be measured.
        public var loudness: LoudnessSpread?
        /// How many phrase clips (takes) are tagged with each position, and how many are untagged.
        public var takesByPosition: [TakePosition: Int]
        public var untaggedTakeCount: Int
        /// Clips whose take features are not measured yet (all of them in a pack of schema 7, read as it is).
        public var unmeasuredClipCount: Int
    }

    public var path: String
    public var schemaVersion: Int
    /// Size of the pack file (without a `-wal` file beside it).
    public var fileByteCount: Int
    public var voices: [VoiceSummary]
}

/// A clip and its loudness, measured now on the samples it plays.
public struct MeasuredClip: Sendable {
    public var clip: Clip
    public var loudness: Loudness
}

extension VoicePack {
    /// Voices, clip counts, durations, loudness spreads and takes by position: what a pack builder checks first.
    ///
    /// - Throws: `VoicebankError.sqlite`, `.measurement` when the loudness meter fails.
    public func summary() throws(VoicebankError) -> PackSummary {
        var voices: [PackSummary.VoiceSummary] = []
        for voice in try self.voices() {
            let measured = try measuredLoudness(voice: voice.identifier)
            let phrases = measured.filter { !$0.clip.isFallback }
            var takesByPosition: [TakePosition: Int] = [:]
            for case let position? in phrases.map(\.clip.position) { takesByPosition[position, default: 0] += 1 }
            let unmeasured =
                hasTakeFeatures
                ? try database.prepare(
                    """
                    SELECT count(*) FROM clip WHERE is_features_measured = 0
                        AND voice_id = (SELECT id FROM voice WHERE identifier = ?)
                    """
                ).bind(.text(voice.identifier)).firstInt() ?? 0 : measured.count
            voices.append(
                .init(
                    voice: voice, phraseClipCount: phrases.count, fallbackClipCount: measured.count - phrases.count,
                    durationSeconds: measured.reduce(0) { $0 + $1.clip.durationSeconds },
                    loudness: LoudnessSpread(phrases.map(\.loudness)), takesByPosition: takesByPosition,
                    untaggedTakeCount: phrases.count - takesByPosition.values.reduce(0, +),
                    unmeasuredClipCount: unmeasured))
        }
        return PackSummary(
            path: path, schemaVersion: try schemaVersion, fileByteCount: fileSize(path) ?? 0, voices: voices)
    }

    /// The loudness of every clip of a voice (or of all voices), in import order.
    public func measuredLoudness(voice identifier: String? = nil) throws(VoicebankError) -> [MeasuredClip] {
        var measured: [MeasuredClip] = []
        for clip in try clips(voice: identifier) {
            let samples = try renderReadyPCM(clipID: clip.id)
            do throws(AudioIOError) {
                measured.append(MeasuredClip(clip: clip, loudness: try Loudness(samples)))
            } catch {
                throw .measurement(error.description)
            }
        }
        return measured
    }
}

// MARK: Verify

/// One thing wrong with a pack, found by `VoicePack.verify()`.
public struct PackProblem: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// SQLite's `PRAGMA integrity_check` found damage.
        case integrity
        /// A voice has no fallback clip, so words no clip covers cannot be spoken.
        case noFallback = "no-fallback"
        /// Two takes of a voice with the same phrase key and the same original audio.
        case duplicateTake = "duplicate-take"
        /// Render-ready peak below `VerifyLimits.silentPeakDBFS`.
        case silent
        /// Runs of samples at full scale in the original.
        case clipped
        /// Loudness (`Loudness.clipLUFS`) further than `VerifyLimits.loudnessToleranceLU` from the voice's median.
        case loudness
        /// A phrase clip whose phrase key is empty, or is not what its phrase normalises to now.
        case phraseKey = "phrase-key"
        /// Render-ready or original audio whose length breaks the documented rule.
        case length
        /// A clip rendering refuses (`ClipDamage`): its row and audio disagree, or it plays a NaN or infinity.
        case damaged
        /// A take whose words, as the recogniser hears them, are not its phrase (`checkWords`).
        case words
        /// A take the aligner could not align to its phrase (`alignTakes`): it gives no units.
        case alignment
    }

    public var kind: Kind
    public var voice: String?
    public var clipID: Int?
    /// One sentence: what is wrong and what would fix it.
    public var message: String

    public var description: String {
        "\(kind.rawValue): " + (clipID.map { "clip #\($0)" } ?? voice.map { "voice \($0)" } ?? "pack") + ": \(message)"
    }
}

/// The thresholds `verify` applies.
public enum VerifyLimits {
    /// A clip whose render-ready peak is below this is silent.
    public static let silentPeakDBFS = -60.0
    /// This many or more consecutive full-scale samples in one channel of the original make a clip clipped.
    public static let clippedRunLength = 3
    /// A clip louder or quieter than its voice's median by more than this stands out.
    public static let loudnessToleranceLU = 6.0
}

extension VoicePack {
    /// Runs SQLite's own consistency check; `["ok"]` for a sound file.
    public func integrityCheck() throws(VoicebankError) -> [String] {
        let statement = try database.prepare("PRAGMA integrity_check")
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0)) }
        return lines
    }

    /// Checks the pack's file and its contents; an empty list means a sound pack.
    ///
    /// Finds: SQLite damage (`PRAGMA integrity_check`), voices without a fallback clip, duplicate takes (same
    /// phrase key and identical original audio), silent clips (render-ready peak below -60 dBFS), clipped
    /// clips (3 or more consecutive samples at full scale in the original: ±1.0 in float, ±32767 or -32768 in 16-bit,
    /// the 24-bit maximum in 32-bit), phrase clips louder or quieter than the voice's median loudness by more
    /// than 6 LU (`Loudness.clipLUFS`: integrated, or ungated over the whole clip for clips under 400 ms), phrase keys that are
    /// empty or not what the phrase normalises to, and render-ready lengths other than
    /// `round(source frames × 22050 ÷ source rate)`, original blobs whose size does not match their frames, and damaged
    /// clips: the `ClipDamage` check rendering makes, so a clip verify passes renders and one it reports does not; and
    /// takes whose alignment failed (`alignTakes`).
    ///
    /// - Throws: `VoicebankError.sqlite` when the pack cannot be read at all.
    public func verify() throws(VoicebankError) -> [PackProblem] {
        var problems: [PackProblem] = []
        let integrity = try integrityCheck()
        if integrity != ["ok"] {
            problems += integrity.map {
                PackProblem(
                    kind: .integrity,
                    message:
                        "SQLite reports \"\($0)\"; restore the pack from a copy or rebuild it (voicebank export, then rebuild.sh)"
                )
            }
        }
        for voice in try voices() {
            let clips = try clips(voice: voice.identifier)
            var measured: [MeasuredClip] = []
            for clip in clips {
                // The check rendering makes (`damage(clipID:)`, with one read of the samples): a damaged clip is
                // reported as such and measured no further.
                var samples: [Float] = []
                var damage = try layoutDamage(clipID: clip.id)
                if damage == nil {
                    samples = try playedSamples(clipID: clip.id)
                    damage = samples.withUnsafeBufferPointer { ClipDamage.samples($0) }
                }
                if let damage {
                    problems.append(
                        PackProblem(
                            kind: .damaged, voice: clip.voice, clipID: clip.id,
                            message:
                                "\"\(clip.phrase)\" cannot be spoken: \(damage); remove it and import it again"))
                    continue
                }
                do throws(AudioIOError) {
                    measured.append(MeasuredClip(clip: clip, loudness: try Loudness(samples)))
                } catch {
                    throw .measurement(error.description)
                }
            }
            if !clips.contains(where: \.isFallback) {
                problems.append(
                    PackProblem(
                        kind: .noFallback, voice: voice.identifier,
                        message:
                            "no fallback clip, so words no clip covers cannot be spoken; import one as the voice's fallback clip"
                    ))
            }
            problems += try duplicateTakes(voice: voice.identifier)
            problems += try failedAlignments().filter { $0.clip.voice == voice.identifier }.map {
                PackProblem(
                    kind: .alignment, voice: $0.clip.voice, clipID: $0.clip.id,
                    message:
                        "\"\($0.clip.phrase)\" could not be aligned to its audio (\($0.failure)), so it gives no units; check that the take says its phrase, remove it and import it again"
                )
            }
            let phraseLoudness = measured.filter { !$0.clip.isFallback }.compactMap(\.loudness.clipLUFS).sorted()
            let voiceMedian = phraseLoudness.isEmpty ? nil : median(phraseLoudness)
            for (clip, loudness) in measured.map({ ($0.clip, $0.loudness) }) {
                problems += try clipProblems(clip, loudness: loudness, voiceMedian: voiceMedian)
            }
        }
        return problems
    }

    private func duplicateTakes(voice identifier: String) throws(VoicebankError) -> [PackProblem] {
        let statement = try database.prepare(
            """
            SELECT later.id, earlier.id, later.phrase FROM clip AS later JOIN clip AS earlier
                ON earlier.voice_id = later.voice_id AND earlier.phrase_key = later.phrase_key
                AND earlier.is_fallback = later.is_fallback AND earlier.id < later.id
                AND earlier.content_hash = later.content_hash AND earlier.original_pcm = later.original_pcm
            JOIN voice ON voice.id = later.voice_id
            WHERE voice.identifier = ? AND NOT EXISTS (
                SELECT 1 FROM clip AS middle WHERE middle.voice_id = later.voice_id AND middle.id < later.id
                    AND middle.id > earlier.id AND middle.phrase_key = later.phrase_key
                    AND middle.is_fallback = later.is_fallback AND middle.content_hash = later.content_hash
                    AND middle.original_pcm = later.original_pcm)
            ORDER BY later.id
            """
        ).bind(.text(identifier))
        var problems: [PackProblem] = []
        while try statement.step() {
            problems.append(
                PackProblem(
                    kind: .duplicateTake, voice: identifier, clipID: statement.int(0),
                    message:
                        "\"\(statement.text(2))\" has the same phrase key and audio as clip #\(statement.int(1)); remove one of them, such as clip #\(statement.int(0))"
                ))
        }
        return problems
    }

    private func clipProblems(_ clip: Clip, loudness: Loudness, voiceMedian: Double?) throws(VoicebankError)
        -> [PackProblem]
    {
        var problems: [PackProblem] = []
        func report(_ kind: PackProblem.Kind, _ message: String) {
            problems.append(
                PackProblem(kind: kind, voice: clip.voice, clipID: clip.id, message: "\"\(clip.phrase)\" \(message)"))
        }
        if loudness.samplePeakDBFS < VerifyLimits.silentPeakDBFS {
            report(
                .silent,
                "is silent: its peak is \(Decibels.text(loudness.samplePeakDBFS)) dBFS, below \(Int(VerifyLimits.silentPeakDBFS)) dBFS; record it again"
            )
        }
        let original = try originalPCM(clipID: clip.id)
        if let run = Self.firstClippedRun(original) {
            report(
                .clipped,
                "is clipped: \(run.count) samples at full scale from frame \(run.frame) of the original; record it again more softly"
            )
        }
        if !clip.isFallback, let integrated = loudness.clipLUFS, let voiceMedian,
            abs(integrated - voiceMedian) > VerifyLimits.loudnessToleranceLU
        {
            let difference = integrated - voiceMedian
            report(
                .loudness,
                "is \(Decibels.text(abs(difference))) LU \(difference > 0 ? "louder" : "quieter") than the voice's median (\(Decibels.text(integrated)) against \(Decibels.text(voiceMedian)) LUFS); more than \(Int(VerifyLimits.loudnessToleranceLU)) LU stands out when spoken"
            )
        }
        if !clip.isFallback {
            let key = Tokenizer.phraseKey(clip.phrase)
            if clip.phraseKey.isEmpty {
                report(
                    .phraseKey,
                    "has an empty phrase key, so it can never be matched; remove it and import it with a phrase that has words"
                )
            } else if key != clip.phraseKey {
                report(
                    .phraseKey,
                    "has the phrase key \"\(clip.phraseKey)\", but the phrase normalises to \"\(key)\"; remove it and import it again"
                )
            }
        }
        // The stored conversion is whole; what plays is a trimmed stretch of it (checked by `damage(clipID:)`).
        let renderReadyCount = try blobSize("pcm", clipID: clip.id) / MemoryLayout<Float>.size
        // Source facts only a hand edit makes (no import stores more than an hour) are reported, not computed with:
        // their render-ready length or byte count would not fit in an Int.
        if clip.source.frameCount.magnitude > Self.largestCheckedFrameCount {
            report(
                .length,
                "says its source had \(clip.source.frameCount) frames, which no import stores (at most \(AudioLimits.maximumSeconds) s of audio); remove it and import it again"
            )
        } else {
            let expected = SampleRateConversion.convertedFrameCount(
                clip.source.frameCount, from: max(1, clip.source.sampleRate), to: RenderFormat.sampleRate)
            if renderReadyCount != expected {
                report(
                    .length,
                    "has \(renderReadyCount) render-ready frames, but \(clip.source.frameCount) frames at \(clip.source.sampleRate) Hz make \(expected); remove it and import it again"
                )
            }
        }
        let (samples, samplesOverflow) = clip.source.frameCount.multipliedReportingOverflow(by: original.channelCount)
        let (bytes, bytesOverflow) = samples.multipliedReportingOverflow(by: original.encoding.byteCount)
        if samplesOverflow || bytesOverflow || original.bytes.count != bytes {
            report(
                .length,
                "keeps \(original.bytes.count) bytes of original audio, not the \(clip.source.frameCount) frames × \(original.channelCount) channels × \(original.encoding.byteCount) bytes its source had; remove it and import it again"
            )
        }
        return problems
    }

    /// The most source frames (either sign) whose render-ready length `SampleRateConversion.convertedFrameCount`
    /// computes without overflow at any source rate: frames × 22050 plus half the rate stay within an Int.
    static let largestCheckedFrameCount = UInt(Int.max / 2 / RenderFormat.sampleRate)

    private func blobSize(_ column: String, clipID: Int) throws(VoicebankError) -> Int {
        try database.prepare("SELECT length(\(column)) FROM clip WHERE id = ?").bind(.integer(clipID)).firstInt() ?? 0
    }

    /// The first run of `VerifyLimits.clippedRunLength` or more full-scale samples in one channel.
    static func firstClippedRun(_ original: OriginalPCM) -> (frame: Int, count: Int)? {
        let channels = original.channelCount
        let values: [Double]
        switch original.encoding {
        case .int16:
            // Float audio converted to integers (libsndfile, sox) peaks at ±32767, not -32768.
            values = original.bytes.reinterpreted(as: Int16.self).map { $0 >= 32_767 ? 1 : $0 <= -32_767 ? -1 : 0 }
        case .int32:
            // ±0x7FFFFF00 is the 24-bit maximum, left-justified.
            values = original.bytes.reinterpreted(as: Int32.self).map {
                $0 >= 0x7FFF_FF00 ? 1 : $0 <= -0x7FFF_FF00 ? -1 : 0
            }
        case .float32:
            values = original.bytes.reinterpreted(as: Float.self).map { $0 >= 1 ? 1 : $0 <= -1 ? -1 : 0 }
        case .float64:
            values = original.bytes.reinterpreted(as: Double.self).map { $0 >= 1 ? 1 : $0 <= -1 ? -1 : 0 }
        }
        guard channels > 0 else { return nil }
        // A channel count past the samples (a hand edit) leaves channels with no sample at all.
        for channel in 0..<min(channels, values.count) {
            var start = 0
            var count = 0
            var sign = 0.0
            for (frame, index) in stride(from: channel, to: values.count, by: channels).enumerated() {
                let value = values[index]
                if value != 0 && value == sign {
                    count += 1
                } else {
                    sign = value
                    start = frame
                    count = value == 0 ? 0 : 1
                }
                if count >= VerifyLimits.clippedRunLength {
                    // Extend to the end of the run for the report.
                    var end = frame + 1
                    while end * channels + channel < values.count && values[end * channels + channel] == sign {
                        end += 1
                    }
                    return (start, end - start)
                }
            }
        }
        return nil
    }
}
