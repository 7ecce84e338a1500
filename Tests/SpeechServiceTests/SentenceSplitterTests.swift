// SPDX-License-Identifier: GPL-3.0-or-later
import NetworkServer
import SSML
import Testing
import WyomingService

@Suite struct SentenceSplitterTests {
    @Test("a sentence is complete once the next word starts; the rest waits for more text")
    func latin() {
        var splitter = SentenceSplitter()
        #expect(splitter.add("The door is open. The wash") == ["The door is open."])
        #expect(splitter.add("ing is done.") == [])
        #expect(splitter.add(" Is it? \"Yes!\" Pi is 3.14 or so") == ["The washing is done.", "Is it?", "\"Yes!\""])
        #expect(splitter.finish() == "Pi is 3.14 or so")
        #expect(splitter.finish() == nil)
        // Whether "Mr." ends a sentence, or "done." with the next word in lowercase, waits for that word.
        #expect(splitter.add("Mr. ") == [])
        #expect(splitter.add("Smith is done. ") == [])
        #expect(splitter.add("and then") == [])
        #expect(splitter.add(" gone. So") == ["Mr. Smith is done. and then gone."])
        #expect(splitter.finish() == "So")
    }

    /// Texts the Wyoming server and SSML's inferred sentences must cut alike: abbreviations, numbers, initials,
    /// ellipses, closers, Japanese, white space around and between.
    static let texts = [
        "Good morning. Double tap to open.",
        "Mr. Smith met Dr. Brown at St. Mary's. They talked, e.g. About the U.S. economy. Fine.",
        "J. R. R. Tolkien. So do I. No. 5 is open. No. Thanks.",
        "Pi is 3.14, version 1.2.3. Meet at 3:30. Open readme.txt or example.com. Now.",
        "Wait… what? No! Really?! Well... Let's go. Hmm... maybe.",
        "\"Stop!\" she said. \"Go.\" (Then he left.) He said “yes.” Bye",
        "  Hello.\n\n  World.  ",
        "We need pens, paper, etc.",
        "設定を開きます。ダブルタップします。「開く」。次へ！本当？ OK。Next.",
        "!!! Hello. ... Bye. It costs 5. 3 people came.",
        "no punctuation at all",
    ]

    /// The sentences SSML reads in `text`: the source ranges of its sentence ends, sliced out of it.
    func inferredSentences(_ text: String) throws -> [String] {
        let utf16 = Array(text.utf16)
        return try SSMLReader().read(text).events.compactMap { event in
            guard case .structureEnd(.sentence, let range) = event else { return nil }
            return String(decoding: utf16[range], as: UTF16.self)
        }
    }

    /// The sentences the splitter hands over for `text` sent in chunks of `chunkLength` characters.
    func splitSentences(_ text: String, chunkLength: Int) -> [String] {
        var splitter = SentenceSplitter()
        var sentences: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            sentences += splitter.add(String(rest.prefix(chunkLength)))
            rest = rest.dropFirst(chunkLength)
        }
        if let last = splitter.finish() { sentences.append(last) }
        return sentences
    }

    @Test("the Wyoming splitter cuts as SSML infers sentences, whole or in chunks of any size", arguments: texts)
    func agreesWithSSML(text: String) throws {
        let inferred = try inferredSentences(text)
        #expect(!inferred.isEmpty)
        for chunkLength in [1, 2, 3, 7, text.count] {
            #expect(splitSentences(text, chunkLength: chunkLength) == inferred, "chunks of \(chunkLength)")
        }
    }

    @Test("Japanese full stops end a sentence with no space after them")
    func japanese() {
        var splitter = SentenceSplitter()
        #expect(splitter.add("設定。「開く」。拡") == ["設定。", "「開く」。"])
        #expect(splitter.finish() == "拡")
    }

    @Test("SSML is spoken whole at the end of the stream")
    func ssml() {
        var splitter = SentenceSplitter()
        #expect(splitter.add("<speak>Hello. ") == [])
        #expect(splitter.add("Goodbye. </speak>") == [])
        #expect(splitter.finish() == "<speak>Hello. Goodbye. </speak>")
    }
}

@Suite struct WyomingAddressTests {
    @Test(
        "URIs as the wyoming package writes them",
        arguments: [
            ("tcp://127.0.0.1:10200", ServerAddress.tcp(host: "127.0.0.1", port: 10_200)),
            ("tcp://[::1]:0", .tcp(host: "::1", port: 0)),
            ("unix:///run/wyoming.sock", .unix(path: "/run/wyoming.sock")),
        ])
    func valid(uri: String, address: ServerAddress) throws {
        #expect(try WyomingError.address(uri) == address)
        #expect(address.description == uri)
    }

    @Test(
        "anything else is refused, naming the forms accepted",
        arguments: ["tcp://host", "http://x:1", "unix://relative", "tcp://:80", "tcp://h:70000"])
    func invalid(uri: String) {
        #expect(throws: WyomingError.invalidAddress(uri)) { try WyomingError.address(uri) }
    }
}
