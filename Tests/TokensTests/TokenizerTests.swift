// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Tokens

@Suite struct TokenizerTests {
    @Test(
        "splits, normalises and case-folds like SPEC.md says",
        arguments: [
            ("Hello, World!", ["hello", "world"]),
            ("it's  Bob’s", ["it's", "bob's"]),
            ("'quoted' dogs'", ["quoted", "dogs"]),
            ("Ｈｅｌｌｏ　ＷＯＲＬＤ", ["hello", "world"]),
            ("101 ドット 5 MB使用", ["101", "ド", "ッ", "ト", "5", "mb", "使", "用"]),
            ("設定", ["設", "定"]),
            ("開くにはダブルタップします", ["開", "く", "に", "は", "ダ", "ブ", "ル", "タ", "ッ", "プ", "し", "ま", "す"]),
            ("ｶﾞｲﾄﾞ", ["ガ", "イ", "ド"]),
            ("Straße", ["strasse"]),
            ("café", ["café"]),
            ("cafe\u{301}", ["café"]),
            ("mp3 and 2048kB", ["mp", "3", "and", "2048", "kb"]),
            ("１２３", ["123"]),
            ("Otoya 拡張 ,", ["otoya", "拡", "張"]),
            ("スーパー・マーケット", ["ス", "ー", "パ", "ー", "マ", "ー", "ケ", "ッ", "ト"]),
            ("", []),
            ("!!! ... ---", []),
        ])
    func tokens(text: String, expected: [String]) {
        #expect(Tokenizer.tokens(in: text).map(\.text) == expected)
    }

    @Test("punctuation follows the token before it, the strongest of a run; between two digits it is none")
    func punctuationAfter() {
        let tokens = Tokenizer.tokens(in: "At 10:45, then 1,000 or 3.5; why?! ok")
        #expect(tokens.map(\.text) == ["at", "10", "45", "then", "1", "000", "or", "3", "5", "why", "ok"])
        #expect(
            tokens.map(\.punctuationAfter) == [
                nil, nil, .comma, nil, nil, nil, nil, nil, .comma, .question, nil,
            ])
        #expect(Tokenizer.leadingPunctuation(in: " ?) and") == .question)
        #expect(Tokenizer.leadingPunctuation(in: "and, so") == nil)
    }

    @Test("classes tokens as words, numbers and characters")
    func kinds() {
        let kinds = Tokenizer.tokens(in: "MB 5 使").map(\.kind)
        #expect(kinds == [.word, .number, .character])
    }

    @Test("source ranges are UTF-16 offsets into the text as given, shifted by the offset")
    func sourceRanges() {
        let text = "😀 Hi, 設定!"
        let tokens = Tokenizer.tokens(in: text, utf16Offset: 10)
        let utf16 = Array(text.utf16)
        let slices = tokens.map {
            String(decoding: utf16[($0.sourceRange.lowerBound - 10)..<($0.sourceRange.upperBound - 10)], as: UTF16.self)
        }
        #expect(slices == ["Hi", "設", "定"])
        #expect(tokens.first?.sourceRange == 13..<15)
    }

    @Test("a phrase key is the phrase's tokens joined by spaces")
    func phraseKey() {
        #expect(Tokenizer.phraseKey("Hello world") == Tokenizer.phraseKey("hello, World!"))
        #expect(Tokenizer.phraseKey("double_tap  to-open") == "double tap to open")
        #expect(Tokenizer.phraseKey("MB使用") == "mb 使 用")
    }

    @Test(
        "the key of tokens already made is the key of their text, for any part of them",
        arguments: ["", "Hello", "good morning, Ann", "Otoya 拡張, 101 ドット 5 MB使用。", "it's  Ｗｉ-Ｆｉ"])
    func phraseKeyOfTokens(text: String) {
        let tokens = Tokenizer.tokens(in: text)
        #expect(Tokenizer.phraseKey(tokens) == Tokenizer.phraseKey(text))
        #expect(Tokenizer.phraseKey(tokens) == tokens.map(\.text).joined(separator: " "))
        for start in tokens.indices {
            for end in start...tokens.count {
                let part = tokens[start..<end]
                #expect(Tokenizer.phraseKey(part) == part.map(\.text).joined(separator: " "))
            }
        }
    }

    @Test("display text keeps words apart and CJK characters together")
    func displayText() {
        #expect(Tokenizer.displayText(Tokenizer.tokens(in: "Hello, World!")[...]) == "hello world")
        #expect(Tokenizer.displayText(Tokenizer.tokens(in: "101 ドット 5 MB使用")[...]) == "101 ドット 5 mb 使用")
    }
}
