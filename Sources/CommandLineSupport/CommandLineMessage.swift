// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth

/// An error as the commands show it: the library's message with its remedy worded as the commands' options
/// (`--bank`, `--strict`, `--lenient`, …), which the library does not name.
public struct CommandLineMessage: Error, CustomStringConvertible {
    public let description: String

    /// `error`'s message, with the remedy in the commands' words where the library words it in its own.
    public init(_ error: any Error) {
        description = Self.worded(error) ?? String(describing: error)
    }

    public init(description: String) { self.description = description }

    /// What a command's `main` reports for `error`: its message in the commands' words where it has one, else the
    /// error itself (so that ArgumentParser's own errors keep their exit codes).
    public static func shown(_ error: any Error) -> any Error {
        worded(error).map(CommandLineMessage.init(description:)) ?? error
    }

    private static func worded(_ error: any Error) -> String? {
        switch error {
        case let error as ConcatSynthError: return worded(error)
        case let error as AudioIOError: return worded(error)
        default: return nil
        }
    }

    private static func worded(_ error: ConcatSynthError) -> String? {
        switch error {
        case .noPack(let path): return noPack(path: path)
        case .noVoice(let path): return noVoice(path: path)
        case .damagedClip(let path, let clipID, let phrase, let damage):
            return damagedClip(path: path, clipID: clipID, phrase: phrase, damage: damage)
        case .damagedVoice(let path, let voice, let setting, let value, let expected):
            return damagedVoice(path: path, voice: voice, setting: setting, value: value, expected: expected)
        case .voiceInSeveralPacks(let identifier, let packPaths):
            return
                "voice \(identifier) is in more than one pack (\(packPaths.joined(separator: ", "))); pass --bank with the one to speak with"
        case .fallbackInStrictMode(let voice, let words):
            return
                "voice \(voice) has no clip for \(words.map { "\"\($0)\"" }.joined(separator: ", ")); --strict accepts only requests the voice's clips cover"
        case .noFallbackClip(let voice, let words):
            return
                "voice \(voice) has no clip for \"\(words)\" and no fallback clip; expected a pack whose voice has one (voicebank import --fallback FILE)"
        case .audioDirectory(let path):
            return
                "cannot allow audio from \(path): it is not an existing directory; expected --allow-audio DIR naming a folder of audio files"
        case .request(.undecodable(let source, let decoding)):
            guard case .invalidBytes = decoding else { return nil }
            return
                "the request in \(source) \(decoding.problem), or --lenient to speak each invalid sequence as U+FFFD"
        default: return nil
        }
    }

    private static func worded(_ error: AudioIOError) -> String? {
        switch error {
        case .conflictingOutputOption(let path, let option, let picked):
            let flag = Self.flag(option)
            return "\(flag) conflicts with -o \(path): \(picked); leave out \(flag) or pick another extension"
        case .encodingNotInContainer(let path, let encoding, let accepted):
            guard !accepted.isEmpty else {
                return "cannot write \(path) as \(encoding): the format has its own codec; leave out --encoding"
            }
            return
                "cannot write \(path) as \(encoding): expected --encoding \(accepted.joined(separator: ", ")) for this format"
        case .unsupportedOutputRate(let sampleRate):
            return
                "invalid --sample-rate \(sampleRate): expected \(AudioLimits.sampleRates.lowerBound) to \(AudioLimits.sampleRates.upperBound) Hz"
        default: return nil
        }
    }

    private static func flag(_ option: OutputOption) -> String {
        switch option {
        case .sampleRate(let rate): return "--sample-rate \(rate)"
        case .encoding(let encoding): return "--encoding \(encoding.rawValue)"
        }
    }

    // The store's messages both commands show, with the commands that repair the pack.

    public static func noPack(path: String) -> String {
        "no voice pack at \(path); create one with `voicebank create --bank \(path) --voice ID --name NAME --language TAG`"
    }

    public static func noVoice(path: String) -> String {
        "voice pack \(path) has no voice yet; add one with `voicebank create --bank \(path) --voice ID --name NAME --language TAG`"
    }

    public static func damagedClip(path: String, clipID: Int, phrase: String, damage: String) -> String {
        "voice pack \(path) has a damaged clip #\(clipID) \"\(phrase)\": \(damage); remove it (`voicebank remove --bank \(path) --clip \(clipID)`) and import it again, or restore the pack from a copy"
    }

    public static func damagedVoice(path: String, voice: String, setting: String, value: String, expected: String)
        -> String
    {
        "voice pack \(path) has a damaged voice \(voice): its \(setting) is \(value), expected \(expected); set it with `voicebank configure --bank \(path) --voice \(voice) \(configureOption(setting))`"
    }

    /// The `voicebank configure` option that sets a voice's column.
    static func configureOption(_ column: String) -> String {
        switch column {
        case "normal_rate": return "--normal-rate RATE"
        case "edge_fade_frames": return "--edge-fade MS"
        case "crossfade_frames": return "--crossfade MS"
        case "trim_threshold_db": return "--trim-threshold DB"
        case "trim_pad_frames": return "--trim-pad MS"
        case "selection_position_weight": return "--position-weight W"
        case "selection_pitch_weight": return "--pitch-weight W"
        case "selection_energy_weight": return "--energy-weight W"
        case "selection_spectrum_weight": return "--spectrum-weight W"
        case let units where units.hasPrefix("unit_") && units.hasSuffix("_weight"):
            return "--" + String(units.map { $0 == "_" ? "-" : $0 }) + " W"
        case "target_loudness_lufs": return "--target-loudness LUFS"
        case "true_peak_ceiling_dbtp": return "--true-peak-ceiling DBTP"
        // The fallback mode and the fallback voice's settings, which `--fallback` chooses again.
        default: return "--fallback MODE"
        }
    }
}
