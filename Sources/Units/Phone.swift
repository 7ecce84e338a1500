// SPDX-License-Identifier: GPL-3.0-or-later
/// A phone in the aligner's phone set (CMU's ARPAbet, as pocketsphinx's en-US model names them: `AA`, `HH`, `NG`),
/// with its lexical stress where it is a vowel.
public struct Phone: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The phone's ARPAbet name, without stress: `AH`, `T`.
    public var symbol: String
    /// For a vowel, 0 (unstressed), 1 (primary) or 2 (secondary); `nil` for a consonant, and for a vowel where the
    /// source gives no stress (the aligner's phones).
    public var stress: Int?

    public init(_ symbol: String, stress: Int? = nil) {
        self.symbol = symbol
        self.stress = stress
    }

    /// `AH0`, `T`: ARPAbet as CMU's dictionary writes it.
    public var description: String { stress.map { "\(symbol)\($0)" } ?? symbol }

    /// Whether it is a vowel (`PhoneSet.english`).
    public var isVowel: Bool { PhoneSet.english.vowels.contains(symbol) }
}

/// The phones of a language's aligner and the classes a target cost compares neighbours by: one place per language.
public struct PhoneSet: Sendable {
    public var vowels: Set<String>
    /// Each phone's broad class (vowel, stop, fricative, affricate, nasal, liquid, glide, aspirate): a neighbour of the
    /// same class as the target's costs less than one of another.
    public var classes: [String: String]

    /// CMU's ARPAbet, the 39 phones of pocketsphinx's en-US model.
    public static let english: PhoneSet = {
        let groups: [String: [String]] = [
            "vowel": ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"],
            "stop": ["B", "D", "G", "K", "P", "T"],
            "fricative": ["DH", "F", "S", "SH", "TH", "V", "Z", "ZH"],
            "affricate": ["CH", "JH"],
            "nasal": ["M", "N", "NG"],
            "liquid": ["L", "R"],
            "glide": ["W", "Y"],
            "aspirate": ["HH"],
        ]
        var classes: [String: String] = [:]
        for (group, phones) in groups { for phone in phones { classes[phone] = group } }
        return PhoneSet(vowels: Set(groups["vowel"]!), classes: classes)
    }()

    /// The name of a phone-pair (diphone) as the unit index keys it: `HH-AH`; `#` stands for the silence at a
    /// phrase's edge.
    public static func pair(_ left: String, _ right: String) -> String { "\(left)-\(right)" }

    /// The silence before and after a phrase, in a phone-pair's name.
    public static let silence = "#"
}
