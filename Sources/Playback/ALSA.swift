// SPDX-License-Identifier: GPL-3.0-or-later
import CAlsa

/// alsa-lib's functions and messages, for both directions.
///
/// In one file on purpose: the shim keeps alsa-lib's last message in a `static` inside a `static inline` function, and
/// Swift emits a copy of such a function, with its own `static`, in each file that calls it. The handler that keeps
/// the messages and the reader of the last one must be called from the same file, or the reader finds nothing.
enum ALSA {
    /// alsa-lib's functions, loaded on the first call, with its messages routed to `reason` instead of standard error.
    ///
    /// - Returns: the functions, or why libasound could not be loaded.
    static func load() -> Result<UnsafePointer<concat_synth_alsa>, LoadFailure> {
        guard let alsa = concat_synth_alsa_load() else {
            return .failure(LoadFailure(reason: String(cString: concat_synth_alsa_load_error())))
        }
        concat_synth_alsa_keep_messages(alsa)
        return .success(alsa)
    }

    struct LoadFailure: Error {
        var reason: String
    }

    /// ALSA's message for `status`, after the message alsa-lib itself gave, if any ("Unknown PCM x").
    static func reason(_ status: Int32, _ alsa: UnsafePointer<concat_synth_alsa>) -> String {
        let message = String(cString: concat_synth_alsa_last_message())
        let reason = alsa.pointee.snd_strerror(status).map { String(cString: $0) } ?? "error \(status)"
        return message.isEmpty ? reason : "\(message) (\(reason))"
    }
}
