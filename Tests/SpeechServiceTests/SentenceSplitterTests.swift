import WyomingService
import Testing

@Suite struct SentenceSplitterTests {
    @Test("a sentence is complete once white space follows its end; the rest waits for more text")
    func latin() {
        var splitter = SentenceSplitter()
        #expect(splitter.add("The door is open. The wash") == ["The door is open."])
        #expect(splitter.add("ing is done.") == [])
        #expect(splitter.add(" Is it? \"Yes!\" Pi is 3.14 or so") == ["The washing is done.", "Is it?", "\"Yes!\""])
        #expect(splitter.finish() == "Pi is 3.14 or so")
        #expect(splitter.finish() == nil)
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
            ("tcp://127.0.0.1:10200", WyomingAddress.tcp(host: "127.0.0.1", port: 10_200)),
            ("tcp://[::1]:0", .tcp(host: "::1", port: 0)),
            ("unix:///run/wyoming.sock", .unix(path: "/run/wyoming.sock")),
        ])
    func valid(uri: String, address: WyomingAddress) throws {
        #expect(try WyomingAddress(uri) == address)
        #expect(address.description == uri)
    }

    @Test(
        "anything else is refused, naming the forms accepted",
        arguments: ["tcp://host", "http://x:1", "unix://relative", "tcp://:80", "tcp://h:70000"])
    func invalid(uri: String) {
        #expect(throws: WyomingError.invalidAddress(uri)) { try WyomingAddress(uri) }
    }
}
