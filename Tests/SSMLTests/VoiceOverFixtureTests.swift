// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

/// The requests VoiceOver sent a custom synthesizer (shared/fixtures/voiceover/), copied verbatim.
@Suite("VoiceOver requests")
struct VoiceOverFixtureTests {
    static let basic =
        "<speak><prosody rate=\"400.0%\" volume=\"-1.0dB\">カスタムのアクションを選択するには、上または下にスワイプします。"
        + "その後ダブルタップしてアクティベートします。</prosody></speak>\n"
    static let inlineBreak = """
        <speak>
          <prosody rate="400.0%" volume="-1.0dB">
            Otoya 拡張 ,<break time="178ms" /> 101 ドット 5 MB使用
          </prosody>
        </speak>

        """
    static let sayAsCharacters = """
        <speak>
          <prosody rate="400.0%" volume="-1.0dB">
            <say-as interpret-as="characters">声</say-as>
          </prosody>
        </speak>

        """
    static let split1 = "<speak><prosody rate=\"400.0%\" volume=\"-1.0dB\">設定</prosody></speak>\n"
    static let split2 = "<speak><prosody rate=\"400.0%\" volume=\"-1.0dB\"><break time=\"400ms\" /></prosody></speak>\n"
    static let split3 = "<speak><prosody rate=\"400.0%\" volume=\"-1.0dB\">開くにはダブルタップします</prosody></speak>\n"
    static let wwdcHello = """
        <speak>
            Hello
            <break time="1s"/>
            <prosody rate="200%">nice to meet you!</prosody>
        </speak>

        """

    @Test("basic.ssml: two sentences, cut at 。, at 400 % rate and -1 dB")
    func basic() throws {
        let document = try read(Self.basic)
        #expect(
            document.events
                == sentence(46..<78, text("カスタムのアクションを選択するには、上または下にスワイプします。", 46..<78, voiceOver))
                + [.pause(frames: 16538, origin: .sentence, context: voiceOver)]
                + sentence(78..<100, text("その後ダブルタップしてアクティベートします。", 78..<100, voiceOver)))
        #expect(document.warnings.isEmpty)
        #expect(Self.basic.utf16.count == 119)
    }

    @Test("inline-break.ssml: a 178 ms break is 3925 frames between two runs, in one sentence")
    func inlineBreak() throws {
        let document = try read(Self.inlineBreak)
        #expect(
            document.events
                == sentence(
                    54..<101,
                    text("Otoya 拡張 ,", 54..<64, voiceOver),
                    .pause(frames: 3925, origin: .breakElement, context: voiceOver),
                    text(" 101 ドット 5 MB使用\n  ", 86..<104, voiceOver)))
        for run in runs(document.events) { #expect(slice(Self.inlineBreak, run.sourceRange) == run.text) }
    }

    @Test("say-as-characters.ssml: the character carries say-as characters")
    func sayAsCharacters() throws {
        var context = voiceOver
        context.sayAs = SayAs(interpretAs: .characters)
        #expect(try events(Self.sayAsCharacters) == sentence(88..<89, text("声", 88..<89, context)))
    }

    @Test("split-1/2/3.ssml: a 400 ms pause arrives as a request of its own")
    func split() throws {
        #expect(try events(Self.split1) == sentence(46..<48, text("設定", 46..<48, voiceOver)))
        #expect(try events(Self.split2) == [.pause(frames: 8820, origin: .breakElement, context: voiceOver)])
        #expect(try events(Self.split3) == sentence(46..<59, text("開くにはダブルタップします", 46..<59, voiceOver)))
    }

    @Test("wwdc-hello.ssml: a 1 s break and 200 % rate")
    func wwdcHello() throws {
        #expect(
            try events(Self.wwdcHello)
                == sentence(
                    12..<83,
                    text("Hello\n    ", 12..<22),
                    .pause(frames: 22050, origin: .breakElement),
                    text("nice to meet you!", 66..<83, SpeechContext(rate: 2))))
    }

    @Test("every fixture reads the same in lenient mode, without warnings")
    func lenientSame() throws {
        for request in [
            Self.basic, Self.inlineBreak, Self.sayAsCharacters, Self.split1, Self.split2, Self.split3, Self.wwdcHello,
        ] {
            let strict = try read(request)
            let lenient = try read(request, lenient: true)
            #expect(strict == lenient)
            #expect(lenient.warnings.isEmpty)
        }
    }
}
