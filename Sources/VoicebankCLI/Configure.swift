// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import SpeechCore
import Voicebank
import VoicebankAuthoring

/// A rate given as a multiple (`4`, `0.5`) or a percentage (`400%`).
struct RateArgument: ExpressibleByArgument {
    var multiple: Double

    var defaultValueDescription: String { "\(decimal(multiple * 100, places: 0))%" }

    init?(argument: String) {
        let isPercent = argument.hasSuffix("%")
        guard let number = Double(isPercent ? String(argument.dropLast()) : argument), number.isFinite else {
            return nil
        }
        multiple = isPercent ? number / 100 : number
    }
}

/// A level in decibels, at most 0: `-50dB`, `-20`, `-20LUFS`, `-1dBTP`.
struct DecibelArgument: ExpressibleByArgument {
    var decibels: Double

    init?(argument: String) {
        var number = argument.lowercased()
        for unit in ["dbtp", "lufs", "db"] where number.hasSuffix(unit) {
            number.removeLast(unit.count)
            break
        }
        guard let value = Double(number), value.isFinite, value <= 0 else { return nil }
        decibels = value
    }
}

/// A duration in whole milliseconds: `30ms`, `30`.
struct MillisecondsArgument: ExpressibleByArgument {
    var milliseconds: Int

    init?(argument: String) {
        let number = argument.lowercased().hasSuffix("ms") ? String(argument.dropLast(2)) : argument
        guard let value = Int(number), (0...1_000).contains(value) else { return nil }
        milliseconds = value
    }
}

extension VoicebankCommand {
    struct Configure: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a voice's settings.",
            discussion: """
                --normal-rate is the SSML rate at which the voice's clips play as recorded. VoiceOver in Japanese \
                sends rate="400.0%" at its normal speed: a voice for it has a normal rate of 400% (or 4), so that \
                rate means "as recorded". Example: voicebank configure --voice com.example.otoya --normal-rate 400%. \
                --fallback voice has espeak-ng speak the words no clip covers, with the pitch, rate and loudness of \
                the voice's clips: configure measures the clips' F0 and listens to espeak-ng speak the voice's own \
                phrases to choose espeak-ng's settings, which takes a few seconds. A voice whose language espeak-ng \
                does not have is refused. --fallback units cuts those words from the voice's own takes by their \
                alignment (voicebank align): a word a take says whole plays from it, any other is built from \
                phone-pair units, and a word with a phone-pair no take has goes to the fallback voice, chosen as for \
                --fallback voice. The selection weights say how the takes of a sentence are chosen: a take \
                recorded for another place costs --position-weight (times how far its place is, up to 1), and each \
                join costs --pitch-weight a semitone of F0 jump, --energy-weight a dB of level jump and \
                --spectrum-weight a unit of cepstral distance (see docs/speaking.md).
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The voice to change; needed when the pack has several.", valueName: "id"))
        var voice: String?

        @Option(
            help: ArgumentHelp(
                "The SSML rate the clips play at as recorded: a multiple or a percentage.", valueName: "rate"))
        var normalRate: RateArgument?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Trim each clip's ends below this level (dBFS, e.g. -50dB), re-applied to every clip of the voice.",
                valueName: "dB"))
        var trimThreshold: DecibelArgument?

        @Option(help: ArgumentHelp("Silence to keep at each trimmed end (e.g. 30ms).", valueName: "ms"))
        var trimPad: MillisecondsArgument?

        @Flag(help: "Play every clip of the voice whole, untrimmed.")
        var noTrim = false

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Play every clip at this loudness (LUFS, e.g. -20), under the true-peak ceiling.", valueName: "LUFS"))
        var targetLoudness: DecibelArgument?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "The highest true peak loudness normalisation may raise a clip to (dBTP; -1 by default).",
                valueName: "dBTP"))
        var truePeakCeiling: DecibelArgument?

        @Flag(help: "Play clips at their recorded level.")
        var noLoudnessTarget = false

        @Option(help: ArgumentHelp("Fade each clip in and out over this long (e.g. 2ms; 0 for none).", valueName: "ms"))
        var edgeFade: MillisecondsArgument?

        @Option(
            help: ArgumentHelp(
                "Overlap adjacent clips by this long, one fading into the next (e.g. 10ms; 0 for none).",
                valueName: "ms"))
        var crossfade: MillisecondsArgument?

        @Option(
            help: ArgumentHelp(
                "How words no clip covers are spoken: clip (the fallback clip), spell (letter clips), voice (espeak-ng, matched to the clips' pitch, rate and loudness) or units (cut from the voice's aligned takes, espeak-ng for a word they cannot build).",
                valueName: "mode"))
        var fallback: FallbackMode?

        @Option(
            help: ArgumentHelp(
                "How much a take recorded for another place in the sentence costs (1 by default; 0 ignores places).",
                valueName: "w"))
        var positionWeight: Double?

        @Option(help: ArgumentHelp("What a semitone of F0 jump at a join costs (0.1 by default).", valueName: "w"))
        var pitchWeight: Double?

        @Option(help: ArgumentHelp("What a dB of level jump at a join costs (0.05 by default).", valueName: "w"))
        var energyWeight: Double?

        @Option(
            help: ArgumentHelp(
                "What a unit of cepstral distance between the frames at a join costs (0.05 by default).",
                valueName: "w"))
        var spectrumWeight: Double?

        @Option(
            help: ArgumentHelp("Units: what a neighbour phone unlike the word's costs (1 by default).", valueName: "w"))
        var unitContextWeight: Double?

        @Option(help: ArgumentHelp("Units: what a vowel of other stress costs (1 by default).", valueName: "w"))
        var unitStressWeight: Double?

        @Option(
            help: ArgumentHelp(
                "Units: what a unit from another place in its word costs (0.5 by default).", valueName: "w"))
        var unitWordPlaceWeight: Double?

        @Option(
            help: ArgumentHelp(
                "Units: what a unit from beside a pause where the word has none, or the reverse, costs (0.5 by default).",
                valueName: "w"))
        var unitPhrasePlaceWeight: Double?

        @Option(
            help: ArgumentHelp(
                "Units: what a unit of another length than its phones' mean costs, per unit of |ln ratio| (1 by default).",
                valueName: "w"))
        var unitDurationWeight: Double?

        @Option(
            help: ArgumentHelp(
                "Units: what a unit of cepstral distance at a join costs (0.5 by default).", valueName: "w"))
        var unitSpectrumWeight: Double?

        @Option(
            help: ArgumentHelp("Units: what a semitone of F0 jump at a join costs (0.25 by default).", valueName: "w"))
        var unitPitchWeight: Double?

        @Option(help: ArgumentHelp("Units: what a dB of level jump at a join costs (0.05 by default).", valueName: "w"))
        var unitEnergyWeight: Double?

        private var weights: [Double?] { [positionWeight, pitchWeight, energyWeight, spectrumWeight] }

        /// In the order of `UnitWeights.names`.
        private var unitWeights: [Double?] {
            [
                unitContextWeight, unitStressWeight, unitWordPlaceWeight, unitPhrasePlaceWeight, unitDurationWeight,
                unitSpectrumWeight, unitPitchWeight, unitEnergyWeight,
            ]
        }

        func validate() throws {
            if normalRate == nil && trimThreshold == nil && trimPad == nil && !noTrim && edgeFade == nil
                && crossfade == nil
                && targetLoudness == nil && truePeakCeiling == nil && !noLoudnessTarget && fallback == nil
                && weights.allSatisfy({ $0 == nil }) && unitWeights.allSatisfy({ $0 == nil })
            {
                throw ValidationError(
                    "Nothing to change: give --normal-rate, --trim-threshold, --trim-pad, --no-trim, --edge-fade, --crossfade, --target-loudness, --true-peak-ceiling, --no-loudness-target, --fallback, a selection weight (--position-weight, --pitch-weight, --energy-weight, --spectrum-weight) or a units weight (--unit-context-weight, …)."
                )
            }
            if noLoudnessTarget && (targetLoudness != nil || truePeakCeiling != nil) {
                throw ValidationError(
                    "--no-loudness-target goes with neither --target-loudness nor --true-peak-ceiling.")
            }
            if noTrim && (trimThreshold != nil || trimPad != nil) {
                throw ValidationError("--no-trim goes with neither --trim-threshold nor --trim-pad.")
            }
        }

        func run() throws {
            let pack = try bank.open(.readWrite)
            // Unchecked: configure is how a voice with a damaged setting is repaired.
            let target = try pack.resolveVoice(voice, isChecked: false)
            // First, as it is the one setting refused for what the voice is (a language espeak-ng lacks).
            if let fallback { try pack.setFallbackMode(fallback, voice: target.identifier) }
            if let normalRate { try pack.setNormalRate(normalRate.multiple, voice: target.identifier) }
            if noTrim {
                try pack.setTrimming(nil, voice: target.identifier)
            } else if trimThreshold != nil || trimPad != nil {
                let current = target.trimming ?? .standard
                let trimming = Trimming(
                    thresholdDecibels: trimThreshold?.decibels ?? current.thresholdDecibels,
                    padFrames: trimPad.map { $0.milliseconds * RenderFormat.sampleRate / 1000 } ?? current.padFrames)
                try pack.setTrimming(trimming, voice: target.identifier)
            }
            if noLoudnessTarget || targetLoudness != nil || truePeakCeiling != nil {
                let before = try pack.clipLoudness(voice: target.identifier)
                var loudness: LoudnessTarget?
                if !noLoudnessTarget {
                    let current = target.loudness
                    guard let lufs = targetLoudness?.decibels ?? current?.targetLUFS else {
                        throw ValidationError(
                            "--true-peak-ceiling needs a target: give --target-loudness LUFS as well.")
                    }
                    loudness = LoudnessTarget(
                        targetLUFS: lufs,
                        truePeakCeilingDBTP: truePeakCeiling?.decibels ?? current?.truePeakCeilingDBTP ?? -1)
                }
                let after = try pack.setLoudnessTarget(loudness, voice: target.identifier)
                print(
                    "loudness of \(after.count) clips: before \(spread(before.isEmpty ? after : before, played: !before.isEmpty)), after \(spread(after, played: true))"
                )
            }
            if edgeFade != nil || crossfade != nil {
                let frames = { (duration: MillisecondsArgument) in
                    duration.milliseconds * RenderFormat.sampleRate / 1000
                }
                try pack.setJoins(
                    Joins(
                        edgeFadeFrames: edgeFade.map(frames) ?? target.joins.edgeFadeFrames,
                        crossfadeFrames: crossfade.map(frames) ?? target.joins.crossfadeFrames),
                    voice: target.identifier)
            }
            if weights.contains(where: { $0 != nil }) {
                let current = target.selection
                try pack.setSelectionWeights(
                    SelectionWeights(
                        position: positionWeight ?? current.position, pitch: pitchWeight ?? current.pitch,
                        energy: energyWeight ?? current.energy, spectrum: spectrumWeight ?? current.spectrum),
                    voice: target.identifier)
            }
            if unitWeights.contains(where: { $0 != nil }) {
                try pack.setUnitWeights(
                    UnitWeights(values: zip(unitWeights, target.units.values).map { $0 ?? $1 }),
                    voice: target.identifier)
            }
            let configured = try pack.resolveVoice(target.identifier)
            if fallback?.usesFallbackVoice == true {
                print("fallback voice: espeak-ng \(configured.fallbackVoice)\(matching(configured))")
            }
            print("voice \(configured) of \(pack.path)")
        }
    }
}

/// What the fallback voice was matched to: `, matching a median F0 of 201.3 Hz and -20.1 LUFS`.
func matching(_ voice: Voice) -> String {
    let parts = [
        voice.medianF0Hz.map { "a median F0 of \(decimal($0, places: 1)) Hz" },
        (voice.loudness?.targetLUFS ?? voice.medianLoudnessLUFS).map { "\(decimal($0, places: 1)) LUFS" },
    ].compactMap { $0 }
    return parts.isEmpty ? "" : ", matching " + parts.joined(separator: " and ")
}

extension FallbackMode: ExpressibleByArgument {}

/// `min … median … max LUFS` of the clips' loudness as played (or as measured), skipping silent ones.
func spread(_ clips: [ClipLoudness], played: Bool) -> String {
    let values = clips.compactMap { played ? $0.playedLUFS : $0.loudnessLUFS }.sorted()
    guard let low = values.first, let high = values.last else { return "none measured" }
    return
        "\(decimal(low, places: 1)) … \(decimal(values[values.count / 2], places: 1)) … \(decimal(high, places: 1)) LUFS"
}
