// SPDX-License-Identifier: GPL-3.0-or-later
/// English words to ARPAbet phones with stress, from espeak-ng's phonemes: the front end of English voices.
///
/// espeak-ng knows far more words than CMU's dictionary and speaks every word it is given, so no word goes without
/// phones; its phonemes are mapped to the aligner's (`mapping`, the one table of that mapping: voicebank hands the
/// aligner these phones for the words CMU's dictionary lacks). A run is phonemized whole, so that a word is pronounced in its context (`the` before a vowel);
/// where espeak-ng writes two words as one (`of the`), each word is phonemized on its own instead.
///
/// ```swift
/// let frontEnd = EnglishFrontEnd()
/// try frontEnd.phones(for: ["hello", "world"])   // [[HH, AH0, L, OW1], [W, ER1, L, D]]
/// ```
public final class EnglishFrontEnd: PhoneticFrontEnd {
    /// The BCP 47 tag espeak-ng is asked for.
    public let language: String
    private let source: any PhonemeSource

    public init(language: String = "en-US", source: any PhonemeSource = EspeakPhonemes.shared) {
        self.language = language
        self.source = source
    }

    public func phones(for words: [String]) throws(FrontEndError) -> [[Phone]] {
        guard !words.isEmpty else { return [] }
        let whole = try source.mnemonics(words.joined(separator: " "), language: language).split(separator: " ")
        if whole.count == words.count { return whole.map { Self.phones(mnemonics: $0) } }
        var phones: [[Phone]] = []
        for word in words {
            phones.append(
                Self.phones(
                    mnemonics: try source.mnemonics(word, language: language).split(separator: " ")
                        .joined(separator: ".")[...]))
        }
        return phones
    }

    /// The phones of one word's mnemonics (`h.@.l.'oU`); empty when a phoneme is not in `mapping` (nothing is
    /// guessed).
    static func phones(mnemonics: Substring) -> [Phone] {
        var phones: [Phone] = []
        for var phoneme in mnemonics.split(separator: ".") {
            var stress = 0
            while let mark = phoneme.first, mark == "'" || mark == "," || mark == "=" || mark == "%" {
                stress = mark == "'" ? 1 : mark == "," ? 2 : stress
                phoneme = phoneme.dropFirst()
            }
            if phoneme.isEmpty || skipped.contains(String(phoneme)) { continue }
            guard let symbols = mapping[String(phoneme)] else { return [] }
            for (index, symbol) in symbols.split(separator: " ").enumerated() {
                let isVowel = PhoneSet.english.vowels.contains(String(symbol))
                phones.append(Phone(String(symbol), stress: isVowel ? (index == 0 ? stress : 0) : nil))
            }
        }
        return phones
    }

    /// espeak-ng's marks that are no phone: pauses, a linking mark, a syllable's end.
    static let skipped: Set<String> = [";", "_", "_:", "_!", "_;", "_|", "|", "||", "-", "?"]

    /// espeak-ng's English phoneme mnemonics and the ARPAbet phones they stand for: those espeak-ng 1.51's en-US
    /// writes for the words the aligner's dictionary lacks (such as Allison's prompts' `digium`, `pbx`, `1234`), and for
    /// the words of the project's texts and docs (`O2`, `@-`, `t2`, `o`).
    public static let mapping: [String: String] = [
        "aI@": "AY ER", "aI3": "AY ER", "aU@": "AW ER", "i@3": "IY ER", "A@": "AA R", "A:": "AA", "aa": "AE",
        "a#": "AH", "aI": "AY", "aU": "AW", "a": "AE", "0": "AA", "3:": "ER", "3": "ER", "@L": "AH L", "@2": "AH",
        "@5": "AH", "@": "AH", "e@": "EH R", "eI": "EY", "e": "EH", "E": "EH", "i@": "IY ER", "i:": "IY", "i": "IY",
        "I2": "IH", "I#": "IH", "I": "IH", "o@": "AO R", "O@": "AO R", "O:": "AO", "OI": "OY", "oU": "OW", "O": "AO",
        "u:": "UW", "U@": "UH R", "U": "UH", "V": "AH", "tS": "CH", "dZ": "JH", "t#": "T", "d#": "D", "n-": "N",
        "l-": "L", "N": "NG", "S": "SH", "Z": "ZH", "T": "TH", "D": "DH", "j": "Y", "r-": "R", "b": "B", "d": "D",
        "f": "F", "g": "G", "h": "HH", "k": "K", "l": "L", "m": "M", "n": "N", "p": "P", "r": "R", "s": "S", "t": "T",
        "v": "V", "w": "W", "z": "Z", "x": "K", "@-": "AH", "O2": "AO", "t2": "T", "o": "OW",
    ]
}
