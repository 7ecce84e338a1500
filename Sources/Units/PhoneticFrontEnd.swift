// SPDX-License-Identifier: GPL-3.0-or-later
/// Words to phones for one language: the phonetic front end the units fallback and coverage share.
///
/// The words come as the planner hands them on (numbers, dates and say-as already spoken as words, lower case).
public protocol PhoneticFrontEnd: AnyObject {
    /// Each word's phones, in order; a word the front end cannot phonemize has none.
    ///
    /// - Throws: `FrontEndError` when the front end cannot run at all.
    func phones(for words: [String]) throws(FrontEndError) -> [[Phone]]
}

/// Why a front end cannot phonemize: its engine missing, or the language.
public struct FrontEndError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Where a front end's phonemes come from: espeak-ng (`EspeakPhonemes`), or a table in tests.
public protocol PhonemeSource: AnyObject {
    /// espeak-ng's ASCII phoneme mnemonics for `text`: words apart by spaces, a word's phonemes apart by `.`, a stress
    /// mark before its vowel (`h.@.l.'oU w.'3:.l.d`).
    func mnemonics(_ text: String, language: String) throws(FrontEndError) -> String
}
