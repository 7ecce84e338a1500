// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Synchronization

/// espeak-ng's phonemes (`EspeakNG.phonemes`), through the process's one espeak-ng and its lock, remembered by text:
/// a voice says the same words again and again, and each look-up of espeak-ng makes its next synthesis load afresh.
public final class EspeakPhonemes: PhonemeSource, Sendable {
    /// The one source: its memory is the process's.
    public static let shared = EspeakPhonemes()

    /// Texts phonemized, by language and text; bounded, as a long-lived server sees any number of words.
    private let remembered = Mutex<[String: String]>([:])
    private static let rememberedLimit = 50_000

    private init() {}

    /// - Throws: `FrontEndError` with espeak-ng's reason (the library or the language missing).
    public func mnemonics(_ text: String, language: String) throws(FrontEndError) -> String {
        let key = language + "\u{0}" + text
        if let known = remembered.withLock({ $0[key] }) { return known }
        do throws(AudioIOError) {
            let mnemonics = try EspeakNG.shared.phonemes(text, language: language, separator: ".")
            remembered.withLock {
                if $0.count >= Self.rememberedLimit { $0.removeAll(keepingCapacity: true) }
                $0[key] = mnemonics
            }
            return mnemonics
        } catch {
            throw FrontEndError(reason: error.description)
        }
    }
}
