// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

/// Where a voice pack is found when a caller names none: the rule every tool and service shares.
public enum PackLocation {
    /// The environment variable that names the pack when no `--bank` is given: `CONCAT_SYNTH_BANK`.
    public static var environmentVariable: String { VoicePackLocation.environmentVariable }
    /// The default pack: the one installed beside the tools, else the one in the source tree.
    public static var defaultPackPath: String { VoicePackLocation.defaultPackPath }

    /// `explicit` if given, else `$CONCAT_SYNTH_BANK` if set and not empty, else the default pack.
    public static func resolve(_ explicit: String?) -> String { VoicePackLocation.resolve(explicit) }

    /// The pack `resolve(bank)` names, opened read-only: how every door of the facade opens one.
    static func openForReading(_ bank: String?) throws(ConcatSynthError) -> VoicePack {
        do throws(VoicebankError) {
            return try VoicePack(path: resolve(bank), access: .readOnly)
        } catch {
            throw ConcatSynthError(store: error)
        }
    }
}
