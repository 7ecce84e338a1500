// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Testing

@testable import Planning

@Suite struct EventReadingTests {
    let voices = [
        VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"]),
        VoiceSettings(identifier: "com.example.otoya", primaryLanguages: ["ja-JP"], normalRate: 2),
    ]

    func reading(
        _ events: [SSMLEvent] = [], eventWarnings: [String] = [], sandbox: AudioSandbox = .closed
    ) -> (EventReading, PlanWarnings) {
        let warnings = PlanWarnings()
        var remaining = events.makeIterator()
        var remainingWarnings = eventWarnings.makeIterator()
        let reading = EventReading(
            events: { remaining.next() }, eventWarnings: { remainingWarnings.next() }, warnings: warnings,
            voices: VoiceSwitching(voices: voices, startingVoice: 0, warnings: warnings), audioSandbox: sandbox)
        return (reading, warnings)
    }

    @Test("pulls the events in order and says the reader's warnings as it pulls them")
    func events() throws {
        let (reading, warnings) = reading([.mark(name: "a", sourceRange: 0..<1)], eventWarnings: ["odd", "odd"])
        #expect(try reading.next() == .mark(name: "a", sourceRange: 0..<1))
        #expect(warnings.next() == "odd")
        #expect(warnings.next() == nil)
        #expect(try reading.next() == nil)
    }

    @Test("a pause that follows the rate is a silence at its voice's speed; a break is not")
    func pauses() {
        let (reading, _) = reading()
        var context = SpeechContext()
        context.voiceName = "com.example.otoya"
        context.rate = 4
        guard
            case .segment(let silence, let endsSentence) = reading.read(
                .pause(frames: 100, origin: .sentence, context: context))
        else { Issue.record("a pause places a silence"); return }
        #expect(silence.kind == .silence && silence.frameCount == 100 && silence.speed == 2 && !endsSentence)
        guard case .segment(let fixed, _) = reading.read(.pause(frames: 100, origin: .breakElement, context: context))
        else { Issue.record("a break places a silence"); return }
        #expect(fixed.speed == 1)
    }

    @Test("a sentence's start and end end the sentence before they are placed; text goes on to the text windows")
    func structures() {
        let (reading, _) = reading()
        guard case .segment(let start, true) = reading.read(.structureStart(.sentence)) else {
            Issue.record("a sentence's start ends the one before")
            return
        }
        #expect(start.kind == .structureStart(.sentence))
        let run = TextRun(text: "hello", sourceRange: 0..<5)
        guard case .text(let read) = reading.read(.text(run)) else {
            Issue.record("text goes on as text")
            return
        }
        #expect(read == run)
    }

    @Test("an <audio> file the sandbox refuses is a warning, and its content is planned instead")
    func refusedAudio() {
        let (reading, warnings) = reading()
        let content: [SSMLEvent] = [.text(TextRun(text: "a bell", sourceRange: 20..<26))]
        guard
            case .refusedAudio(let fallback) = reading.read(
                .audio(source: "bell.wav", fallback: content, sourceRange: 0..<30, context: SpeechContext()))
        else {
            Issue.record("a closed sandbox refuses every file")
            return
        }
        #expect(fallback == content)
        #expect(warnings.next()?.contains("bell.wav") == true)
    }
}
