// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Testing

@testable import SSML

/// A request is checked whole, then read again as its events are pulled, holding only a sentence's worth.
@Suite struct StreamingTests {
    /// One paragraph of `count` sentences, each followed by a mark.
    func longRequest(_ count: Int, ending: String = "</p></speak>") -> String {
        "<speak><p>"
            + (0..<count).map { #"<s>good morning <emphasis>number</emphasis> \#($0)</s><mark name="m\#($0)"/>"# }
            .joined() + ending
    }

    @Test("the events of a long request come out a sentence at a time, the same as read whole")
    func boundedWindow() throws {
        let request = longRequest(3_000)
        let stream = try SSMLReader().events(request)
        var events: [SSMLEvent] = []
        var mostHeld = 0
        while let event = try stream.next() {
            events.append(event)
            mostHeld = max(mostHeld, stream.heldEventCount)
        }
        #expect(events.count > 3_000 * 7)
        #expect(mostHeld <= 8)
        #expect(events == (try SSMLReader().read(request).events))
        #expect(events.filter { if case .mark = $0 { true } else { false } }.count == 3_000)
    }

    @Test("a short request keeps the events and warnings of its first pass: the same as reading it again")
    func shortRequestReadOnce() throws {
        let request = longRequest(20, ending: #"<break time="fast"/></p></speak>"#)
        func drained(_ stream: SSMLEventStream) throws -> (events: [SSMLEvent], warnings: [String]) {
            var events: [SSMLEvent] = []
            while let event = try stream.next() { events.append(event) }
            var warnings: [String] = []
            while let warning = stream.nextWarning() {
                warnings.append("\(warning.line):\(warning.column) \(warning.message)")
            }
            return (events, warnings)
        }
        let kept = try SSMLReader().events(request, lenient: true)
        // Whitespace after the root element takes the same request past the limit, so it is read again as pulled.
        let padded = request + String(repeating: " ", count: SSMLReader.keptEventsByteLimit)
        let streamed = try SSMLReader().events(padded, lenient: true)
        #expect(kept.heldEventCount > 20 * 7)
        #expect(streamed.heldEventCount == 0)
        let keptRead = try drained(kept)
        let streamedRead = try drained(streamed)
        #expect(keptRead.events == streamedRead.events)
        #expect(keptRead.warnings == streamedRead.warnings)
        #expect(keptRead.warnings.count == 1)
    }

    @Test("a request malformed at its very end is refused before any event is read")
    func malformedAtTheEnd() {
        #expect(throws: SSMLError.self) { try SSMLReader().events(longRequest(2_000, ending: "<break time=\"1s\">")) }
    }

    @Test("an invalid value at the end of a long request is refused in strict mode, a warning in lenient mode")
    func invalidValueAtTheEnd() throws {
        let request = longRequest(2_000, ending: #"<break time="fast"/></p></speak>"#)
        #expect(throws: SSMLError.self) { try SSMLReader().events(request) }
        let stream = try SSMLReader().events(request, lenient: true)
        var pauses = 0
        while let event = try stream.next() { if case .pause = event { pauses += 1 } }
        let warning = try #require(stream.nextWarning())
        #expect(warning.message.hasPrefix(#"invalid <break time="fast">"#))
        #expect(stream.nextWarning() == nil)
        #expect(pauses == 2_000)
    }

    @Test("lenient mode speaks a malformed request's text, with one warning")
    func malformedLenient() throws {
        let stream = try SSMLReader().events("<speak>good <b>morning</speak>", lenient: true)
        #expect(try stream.next() == .structureStart(.sentence))
        let event = try #require(try stream.next())
        guard case .text(let run) = event else {
            Issue.record("expected text, got \(event)")
            return
        }
        #expect(run.text.contains("good") && run.text.contains("morning"))
        #expect(try stream.next() == .structureEnd(.sentence, sourceRange: 7..<22))
        #expect(try stream.next() == nil)
        #expect(stream.nextWarning()?.message.contains("the text is spoken with the markup dropped") == true)
    }
}
