// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Testing

@testable import Units

/// Mnemonics from a table, and the texts asked for.
final class TablePhonemes: PhonemeSource {
    let table: [String: String]
    private(set) var asked: [String] = []

    init(_ table: [String: String]) { self.table = table }

    func mnemonics(_ text: String, language: String) throws(FrontEndError) -> String {
        asked.append(text)
        guard let mnemonics = table[text] else { throw FrontEndError(reason: "no phonemes for \"\(text)\"") }
        return mnemonics
    }
}

@Suite struct EnglishFrontEndTests {
    @Test(
        "maps espeak-ng's mnemonics to ARPAbet with stress",
        arguments: [
            ("h.@.l.'oU", "HH AH0 L OW1"),
            ("w.'3:.l.d", "W ER1 L D"),
            ("f.'aI3.r-", "F AY1 ER0 R"),
            ("s.'V.n.i", "S AH1 N IY0"),
            ("h.'aI.;", "HH AY1"),
            ("t.w.'E.n.t.i", "T W EH1 N T IY0"),
            ("p.'i:.p.@L", "P IY1 P AH0 L"),
            ("ɡ.x.'Q", ""),
        ])
    func mapping(mnemonics: String, expected: String) {
        #expect(EnglishFrontEnd.phones(mnemonics: mnemonics[...]).map(\.description).joined(separator: " ") == expected)
    }

    @Test("phonemizes a run whole, and word by word where espeak-ng joins two words")
    func joinedWords() throws {
        let source = TablePhonemes([
            "sunny day": "s.'V.n.i d.'eI", "of the sea": "V.v.D.@2 s.'i:", "of": "V.v", "the": "D.@2", "sea": "s.'i:",
        ])
        let frontEnd = EnglishFrontEnd(source: source)
        #expect(
            try frontEnd.phones(for: ["sunny", "day"]).map { $0.map(\.description) } == [
                ["S", "AH1", "N", "IY0"], ["D", "EY1"],
            ])
        #expect(source.asked == ["sunny day"])
        #expect(
            try frontEnd.phones(for: ["of", "the", "sea"]).map { $0.map(\.symbol) } == [
                ["AH", "V"], ["DH", "AH"], ["S", "IY"],
            ])
        #expect(source.asked == ["sunny day", "of the sea", "of", "the", "sea"])
    }

    @Test("espeak-ng's English gives every word of a sentence phones in the aligner's set")
    func espeak() throws {
        let words = "hello world the weather tomorrow is sunny with a high of twenty four degrees".split(separator: " ")
            .map(String.init)
        let phones = try EnglishFrontEnd().phones(for: words)
        #expect(phones.count == words.count)
        #expect(phones[0].map(\.description) == ["HH", "AH0", "L", "OW1"])
        #expect(phones[1].map(\.description) == ["W", "ER1", "L", "D"])
        for (word, wordPhones) in zip(words, phones) {
            #expect(!wordPhones.isEmpty, "\(word)")
            #expect(wordPhones.allSatisfy { PhoneSet.english.classes[$0.symbol] != nil }, "\(word)")
        }
    }
}

@Suite struct EspeakPhonemesTests {
    @Test("phonemizing between two syntheses leaves the second as the first")
    func synthesisUnchanged() throws {
        let first = try EspeakNG.shared.synthesize("sunny with a high of", language: "en-US")
        #expect(try EspeakNG.shared.phonemes("hello world", language: "en-US") == "h.@.l.'oU w.'3:.l.d")
        let second = try EspeakNG.shared.synthesize("sunny with a high of", language: "en-US")
        #expect(first == second)
    }
}
