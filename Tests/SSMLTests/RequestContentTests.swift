// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Testing

@testable import SSML

/// The request contents that are not SSML: plain text taken as it is, spelling, and the last resort's text.
@Suite struct RequestContentTests {
    func collect(_ stream: SSMLEventStream) throws -> [SSMLEvent] {
        var events: [SSMLEvent] = []
        while let event = try stream.next() { events.append(event) }
        return events
    }

    @Test(
        "plain text is one run taken as it is, even when it starts with < or holds &",
        arguments: [
            "<3 you & me", "Hello, world", "&amp; stays five characters",
        ])
    func plainText(text: String) throws {
        let read = runs(try collect(SSMLReader().events(plainText: text, prosody: Prosody(rate: 2))))
        #expect(read.map(\.text) == [text])
        #expect(read.first?.sourceRange == 0..<text.utf16.count)
        #expect(read.first?.context == SpeechContext(rate: 2))
    }

    @Test("plain text of only whitespace speaks nothing, as <speak></speak> does")
    func emptyPlainText() throws {
        #expect(try collect(SSMLReader().events(plainText: " \n\t")).isEmpty)
        #expect(try collect(SSMLReader().events("<speak> </speak>")).isEmpty)
    }

    @Test("spelling gives every run say-as characters, over the markup's own say-as; marks and breaks stay")
    func spelling() throws {
        let request =
            #"<speak>Hi <mark name="m"/><say-as interpret-as="cardinal">12</say-as><break time="1s"/>there</speak>"#
        let events = try collect(SSMLReader().events(request, spelling: true))
        let spelled = runs(events)
        #expect(spelled.map(\.text) == ["Hi ", "12", "there"])
        #expect(spelled.allSatisfy { $0.context.sayAs == SayAs(interpretAs: .characters) })
        #expect(events.contains { if case .mark = $0 { true } else { false } })
        #expect(events.contains { if case .pause = $0 { true } else { false } })
        let plain = try collect(SSMLReader().events("spell me", spelling: true))
        #expect(runs(plain).first?.context.sayAs == SayAs(interpretAs: .characters))
        let unspelled = try collect(SSMLReader().events(request))
        #expect(runs(unspelled)[1].context.sayAs == SayAs(interpretAs: .cardinal))
    }

    @Test("the text of refused markup drops a DOCTYPE like a tag and keeps entity references unexpanded")
    func refusedMarkup() {
        let request = #"<!DOCTYPE speak [<!ENTITY x "boom">]><speak>Hello &x; and &amp; <b>world</b></speak>"#
        #expect(error(request, lenient: true) == .doctypeRefused(line: 1, column: 1))
        let text = SSMLReader.textOfRefusedMarkup(request)
        #expect(text.contains("Hello &x; and & world"))
        #expect(!text.contains("boom"))
        #expect(SSMLReader.textOfRefusedMarkup("<speak>&bad;</speak>") == "&bad;")
    }
}
