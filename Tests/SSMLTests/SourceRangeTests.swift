// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

@Suite("Source ranges and plain text")
struct SourceRangeTests {
    @Test("runs point at UTF-16 offsets of the request as given, through Japanese and emoji")
    func japaneseAndEmoji() throws {
        let request = "<speak xml:lang=\"ja\">設定😀を<s>開く👍🏽には</s><mark name=\"😀\"/>ダブル&amp;タップ</speak>"
        let document = try read(request)
        let found = runs(document.events)
        #expect(found.map(\.text) == ["設定😀を", "開く👍🏽には", "ダブル&タップ"])
        #expect(found.map(\.sourceRange) == [21..<26, 29..<37, 58..<69])
        // Without references, the slice is the text itself.
        #expect(slice(request, found[0].sourceRange) == "設定😀を")
        #expect(slice(request, found[1].sourceRange) == "開く👍🏽には")
        #expect(slice(request, found[2].sourceRange) == "ダブル&amp;タップ")
        #expect(
            document.events.contains(.mark(name: "😀", sourceRange: 41..<58))
                && slice(request, 41..<58) == "<mark name=\"😀\"/>")
    }

    @Test("text offsets map back to the request around references, comments and CDATA")
    func sourceMap() throws {
        let request = "<speak>Q&amp;A 😀 <!-- note --> &#x1F600; <![CDATA[x<y]]> end</speak>"
        let run = try #require(runs(try events(request)).first)
        #expect(run.text == "Q&A 😀  😀 x<y end")
        #expect(run.sourceRange == 7..<(request.utf16.count - 8))
        let text = Array(run.text.utf16)
        func source(_ word: String) throws -> String {
            let units = Array(word.utf16)
            let start = try #require(
                (0...(text.count - units.count)).first { Array(text[$0..<$0 + units.count]) == units })
            return slice(request, run.sourceRange(forTextRange: start..<start + units.count))
        }
        #expect(try source("Q&A") == "Q&amp;A")
        #expect(try source("&") == "&amp;")
        #expect(try source("😀  😀") == "😀 <!-- note --> &#x1F600;")
        #expect(try source("x<y") == "x<y")
        #expect(try source("end") == "end")
        #expect(run.sourceRange(forTextRange: 0..<text.count) == run.sourceRange)
        #expect(run.sourceRange(forTextRange: 3..<3) == 14..<14)
        #expect(run.sourceRange(forTextRange: -5..<1000) == run.sourceRange)
        // A plain run maps unit for unit.
        let plain = TextRun(text: "abc", sourceRange: 10..<13)
        #expect(plain.sourceRange(forTextRange: 1..<2) == 11..<12)
    }

    @Test("a run is all character data between two tags; comments and PIs do not split it")
    func runsBetweenTags() throws {
        #expect(try events("<speak>Hel<!-- x -->lo<?pi x?>!</speak>") == sentence(7..<31, text("Hello!", 7..<31)))
        #expect(try events("<speak>a<x/>b</speak>") == sentence(7..<13, text("a", 7..<8), text("b", 12..<13)))
        #expect(try events("<speak><![CDATA[a&b]]></speak>") == sentence(16..<19, text("a&b", 16..<19)))
    }

    @Test("plain text is taken literally; a sentence starts at its first character that is not white space")
    func plainText() throws {
        #expect(try events("Hello & <world>") == sentence(0..<15, text("Hello & <world>", 0..<15)))
        #expect(try events("  設定😀\n") == sentence(2..<6, text("設定😀\n", 2..<7)))
        #expect(try events("\u{FEFF}Hello") == sentence(1..<6, text("Hello", 1..<6)))
        #expect(try events("&nbsp; is fine here") == sentence(0..<19, text("&nbsp; is fine here", 0..<19)))
        #expect(try read("Hi", lenient: true) == SSMLDocument(events: sentence(0..<2, text("Hi", 0..<2))))
    }

    @Test("the examples in the documentation hold")
    func documentationExamples() throws {
        #expect(
            try events(#"<speak>Hello <break time="1s"/> world</speak>"#)
                == sentence(
                    7..<37, text("Hello ", 7..<13), .pause(frames: 22050, origin: .breakElement),
                    text(" world", 31..<37)))
        let run = try #require(runs(try events("<speak>Q&amp;A now</speak>")).first)
        #expect(run.text == "Q&A now")
        #expect(run.sourceRange(forTextRange: 0..<3) == 7..<14)
    }

    @Test("a byte-order mark counts one UTF-16 unit before SSML too")
    func byteOrderMark() throws {
        #expect(try events("\u{FEFF}<speak>hi</speak>") == sentence(8..<10, text("hi", 8..<10)))
    }

    @Test("a 10 MB request is read in one pass")
    func tenMegabytes() throws {
        let sentence =
            "<s>Hello world &amp; friends, this is a sentence of a long book, 設定を開くにはダブルタップします😀. "
            + "<break time=\"250ms\"/>And it goes on for a while, as sentences in books do, again<!-- c --></s>\n"
        let count = 10_000_000 / sentence.utf8.count + 1
        var request = "<speak><p xml:lang=\"en\">\n"
        request.reserveCapacity(count * sentence.utf8.count + 100)
        for _ in 0..<count { request += sentence }
        request += "</p></speak>\n"
        #expect(request.utf8.count > 10_000_000)

        let document = try read(request)
        // Per sentence: start, run, break, run, end; a sentence pause between sentences; the paragraph around.
        #expect(document.events.count == count * 5 + (count - 1) + 2)
        let allRuns = runs(document.events)
        #expect(allRuns.count == count * 2)
        #expect(allRuns.last?.text.hasSuffix("again") == true)
        let last = try #require(allRuns.last)
        let end = last.text.utf16.count
        #expect(slice(request, last.sourceRange(forTextRange: end - 5..<end)) == "again")
        #expect(slice(request, allRuns[allRuns.count - 2].sourceRange).hasPrefix("Hello world &amp; friends"))

        // Plain text and the lenient reading of a malformed request of that size too. Text with no punctuation is one
        // sentence, read in runs that go on into each other.
        let plain = String(repeating: "設定😀 hello ", count: 10_000_000 / 17)
        let plainEvents = try events(plain)
        #expect(plainEvents.filter(\.isSentenceEnd).count == 1)
        let plainRuns = runs(plainEvents)
        #expect(plainRuns.map(\.text).joined() == plain)
        #expect(plainRuns.dropLast().allSatisfy(\.isContinued) && plainRuns.last?.isContinued == false)
        let brokenRequest = request.replacingLastEndTag()
        let broken = try read(brokenRequest, lenient: true)
        #expect(broken.warnings.count == 1)
        // "…😀. And it goes on…" ends a sentence in each <s>; "again Hello" does not.
        #expect(broken.events.filter(\.isSentenceEnd).count == count + 1)
    }
}

extension String {
    /// The request with its last `</speak>` made `</spea>`: malformed at the very end.
    fileprivate func replacingLastEndTag() -> String {
        var copy = self
        let range = copy.utf8.count - 9..<copy.utf8.count - 1
        let start = copy.utf8.index(copy.startIndex, offsetBy: range.lowerBound)
        let end = copy.utf8.index(copy.startIndex, offsetBy: range.upperBound)
        copy.replaceSubrange(start..<end, with: "</spea>")
        return copy
    }
}

extension SSMLEvent {
    fileprivate var isSentenceEnd: Bool {
        if case .structureEnd(.sentence, _) = self { return true }
        return false
    }
}
