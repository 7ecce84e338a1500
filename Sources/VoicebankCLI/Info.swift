// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import SpeechCore
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a pack's voices, clip counts, durations, loudness spread, schema version and size.",
            discussion: """
                Loudness is EBU R128 integrated loudness (LUFS, libebur128) of each phrase clip's render-ready \
                audio, as minimum, median and maximum per voice. R128 has no integrated loudness for a clip shorter \
                than 400 ms (one gating block): such a clip is measured repeated end to end, and counted as short. \
                Silent clips are not measured.
                """)

        @OptionGroup var bank: BankOptions

        @Flag(help: "Print a JSON object instead of text.")
        var json = false

        func run() throws {
            let pack = try bank.open(.readOnly)
            let summary = try pack.summary()
            let manifest = try pack.manifest()
            if json {
                try printJSON(InfoJSON(summary, manifest: manifest))
                return
            }
            print(
                "\(summary.path): schema version \(summary.schemaVersion), \(summary.fileByteCount) bytes, "
                    + "\(summary.voices.count) voice\(summary.voices.count == 1 ? "" : "s")")
            if manifest.values.isEmpty {
                print("manifest: none (voicebank manifest --set KEY=VALUE sets one before the pack is shared)")
            } else {
                print("manifest:")
                printManifest(manifest, indent: "  ")
            }
            for voice in summary.voices {
                print("\(voice.voice.identifier) \"\(voice.voice.name)\"")
                print(
                    "  languages: \(voice.voice.supportedLanguages.joined(separator: ", ")) (primary: \(voice.voice.primaryLanguages.joined(separator: ", ")))"
                )
                print("  normal rate: \(decimal(voice.voice.normalRate * 100, places: 0))%")
                print("  trimming: \(voice.voice.trimming.map { "\($0)" } ?? "off, clips play whole")")
                print("  joins: \(voice.voice.joins)")
                print(
                    "  loudness target: "
                        + (voice.voice.loudness.map { "\($0)" } ?? "none, clips play at their recorded level"))
                print(
                    "  clips: \(voice.phraseClipCount) phrase\(voice.phraseClipCount == 1 ? "" : "s"), "
                        + "\(voice.fallbackClipCount) fallback\(voice.fallbackClipCount == 0 ? " (none: words no clip covers cannot be spoken)" : ""), "
                        + "\(decimal(voice.durationSeconds, places: 2)) s of audio")
                print("  fallback: \(fallbackLine(voice.voice))")
                if let loudness = voice.loudness {
                    print(
                        "  loudness: min \(decimal(loudness.minimumLUFS, places: 1)), "
                            + "median \(decimal(loudness.medianLUFS, places: 1)), max \(decimal(loudness.maximumLUFS, places: 1)) "
                            + "LUFS over \(loudness.measuredClipCount) clips"
                            + (loudness.shortClipCount > 0
                                ? ", \(loudness.shortClipCount) of them under 400 ms and measured ungated" : "")
                            + (loudness.unmeasuredClipCount > 0
                                ? "; \(loudness.unmeasuredClipCount) silent, not measured" : ""))
                } else {
                    print("  loudness: not measured (no phrase clip that is not silent)")
                }
                print("  positions: \(positionLine(voice))")
                print("  take selection: \(voice.voice.selection)")
                print("  units' weights: \(voice.voice.units)")
                if voice.unmeasuredClipCount > 0 {
                    print(
                        "  take features: not measured for \(voice.unmeasuredClipCount) clip"
                            + "\(voice.unmeasuredClipCount == 1 ? "" : "s") (voicebank migrate measures them)")
                }
            }
        }
    }
}

/// The `fallback:` line of `voicebank info`: the mode, and for `voice` espeak-ng's settings and what they match.
func fallbackLine(_ voice: Voice) -> String {
    switch voice.fallbackMode {
    case .clip: return "clip (the fallback clip speaks the words no clip covers)"
    case .spell: return "spell (letter clips spell the words no clip covers)"
    case .voice, .units:
        let spoken = voice.fallbackVoice.spokenLoudnessLUFS.map {
            "; it speaks at \(decimal($0, places: 1)) LUFS, so runs play as they are spoken"
        }
        let units = voice.fallbackMode == .units ? "units cut from the aligned takes, then " : ""
        return "\(voice.fallbackMode) (\(units)espeak-ng \(voice.fallbackVoice)\(matching(voice))"
            + "\(spoken ?? "; how loud it speaks is not measured (voicebank migrate), so runs are made whole first"))"
    }
}

/// The `positions:` line of `voicebank info`: the takes of each position, and the untagged ones.
func positionLine(_ voice: PackSummary.VoiceSummary) -> String {
    let tagged = TakePosition.allCases.compactMap { position in
        voice.takesByPosition[position].map { "\($0) \(position)" }
    }
    return (tagged + ["\(voice.untaggedTakeCount) untagged"]).joined(separator: ", ")
}

/// Rounded to two decimals, for JSON.
func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }

/// The fields of `voicebank info --json`.
struct InfoJSON: Encodable {
    struct Loudness: Encodable {
        var minimumLUFS: Double
        var medianLUFS: Double
        var maximumLUFS: Double
        var measuredClips: Int
        var shortClips: Int
        var silentClips: Int
    }
    struct VoiceInfo: Encodable {
        var identifier: String
        var name: String
        var primaryLanguages: [String]
        var supportedLanguages: [String]
        var normalRate: Double
        /// dBFS below which clip ends are trimmed; absent when trimming is off.
        var trimThresholdDecibels: Double?
        var trimPadFrames: Int?
        var edgeFadeFrames: Int
        var crossfadeFrames: Int
        var targetLoudnessLUFS: Double?
        var truePeakCeilingDBTP: Double?
        var phraseClips: Int
        var fallbackClips: Int
        var hasFallback: Bool
        var durationSeconds: Double
        var loudness: Loudness?
        /// `clip`, `spell` or `voice`.
        var fallback: String
        /// The median F0 of the phrase clips, in Hz; absent until measured, or when none is voiced.
        var medianF0Hz: Double?
        /// The median loudness of the phrase clips as stored, what the fallback voice plays at without a target.
        var medianLoudnessLUFS: Double?
        var fallbackVoice: FallbackVoice
        /// Phrase clips (takes) by position: `initial`, `medial`, `final`, `question` and `untagged`, each present.
        var takesByPosition: [String: Int]
        /// Clips whose take features are not measured yet (`voicebank migrate` measures them).
        var unmeasuredTakeFeatures: Int
        /// How the voice's take selection weighs places and joins: `position`, `pitch`, `energy`, `spectrum`.
        var selectionWeights: SelectionWeights
        /// How the voice's units fallback weighs its choice of units: `context`, `stress`, `wordPlace`, `phrasePlace`,
        /// `duration`, `spectrum`, `pitch`, `energy`.
        var unitWeights: UnitWeights
    }
    /// espeak-ng's settings for the fallback voice.
    struct FallbackVoice: Encodable {
        var variant: String
        var pitch: Int
        var pitchRange: Int
        var wordsPerMinute: Int
        var pitchShiftSemitones: Double
        /// How loud espeak-ng speaks with these settings, limited as a run plays (LUFS); absent until measured, when
        /// each run is made whole before it plays.
        var spokenLoudnessLUFS: Double?
    }

    var path: String
    var schemaVersion: Int
    var fileBytes: Int
    /// The keys that are set, as `voicebank manifest --json` prints them.
    var manifest: ManifestJSON
    var voices: [VoiceInfo]

    init(_ summary: PackSummary, manifest: PackManifest) {
        self.manifest = ManifestJSON(manifest)
        path = summary.path
        schemaVersion = summary.schemaVersion
        fileBytes = summary.fileByteCount
        voices = summary.voices.map { voice in
            VoiceInfo(
                identifier: voice.voice.identifier, name: voice.voice.name,
                primaryLanguages: voice.voice.primaryLanguages,
                supportedLanguages: voice.voice.supportedLanguages, normalRate: voice.voice.normalRate,
                trimThresholdDecibels: voice.voice.trimming?.thresholdDecibels,
                trimPadFrames: voice.voice.trimming?.padFrames, edgeFadeFrames: voice.voice.joins.edgeFadeFrames,
                crossfadeFrames: voice.voice.joins.crossfadeFrames,
                targetLoudnessLUFS: voice.voice.loudness?.targetLUFS,
                truePeakCeilingDBTP: voice.voice.loudness?.truePeakCeilingDBTP, phraseClips: voice.phraseClipCount,
                fallbackClips: voice.fallbackClipCount,
                hasFallback: voice.fallbackClipCount > 0,
                durationSeconds: (voice.durationSeconds * 1000).rounded() / 1000,
                loudness: voice.loudness.map {
                    Loudness(
                        minimumLUFS: ($0.minimumLUFS * 100).rounded() / 100,
                        medianLUFS: ($0.medianLUFS * 100).rounded() / 100,
                        maximumLUFS: ($0.maximumLUFS * 100).rounded() / 100, measuredClips: $0.measuredClipCount,
                        shortClips: $0.shortClipCount, silentClips: $0.unmeasuredClipCount)
                },
                fallback: voice.voice.fallbackMode.rawValue, medianF0Hz: voice.voice.medianF0Hz.map(hundredths),
                medianLoudnessLUFS: voice.voice.medianLoudnessLUFS.map(hundredths),
                fallbackVoice: FallbackVoice(
                    variant: voice.voice.fallbackVoice.variant, pitch: voice.voice.fallbackVoice.pitch,
                    pitchRange: voice.voice.fallbackVoice.pitchRange,
                    wordsPerMinute: voice.voice.fallbackVoice.wordsPerMinute,
                    pitchShiftSemitones: voice.voice.fallbackVoice.pitchShiftSemitones,
                    spokenLoudnessLUFS: voice.voice.fallbackVoice.spokenLoudnessLUFS),
                takesByPosition: Dictionary(
                    uniqueKeysWithValues: TakePosition.allCases.map { ($0.rawValue, voice.takesByPosition[$0] ?? 0) }
                        + [("untagged", voice.untaggedTakeCount)]),
                unmeasuredTakeFeatures: voice.unmeasuredClipCount,
                selectionWeights: voice.voice.selection, unitWeights: voice.voice.units)
        }
    }
}
