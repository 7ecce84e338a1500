// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import Testing

@Suite("<break>")
struct BreakTests {
    /// The frames of the only event of `<speak><break …/></speak>`.
    private func breakFrames(_ attributes: String, sampleRate: Int = 22050) throws -> Int? {
        let document = try SSMLReader(sampleRate: sampleRate).read("<speak><break \(attributes)/></speak>")
        guard document.events.count == 1, case .pause(let frames, _, _) = document.events[0] else {
            return nil
        }
        return frames
    }

    @Test(
        "time is round(seconds × 22050), half away from zero, computed exactly",
        arguments: [
            ("178ms", 3925), ("1s", 22050), ("1.5s", 33075), (".5s", 11025), ("250.5ms", 5524), ("10ms", 221),
            ("30ms", 662), ("50ms", 1103), ("1ms", 22), ("0ms", 0), ("0s", 0), ("400ms", 8820), ("001.500s", 33075),
            ("0.1s", 2205), ("0.0000226757369614512472s", 1), ("0.000022675736961451247s", 0), ("0.0000226s", 0),
            ("600s", 13_230_000),
            ("600000ms", 13_230_000), ("599.99997s", 13_229_999), ("599.999999s", 13_230_000), (" 2S ", 44100),
            ("750ms", 16538),
        ])
    func time(value: String, expected: Int) throws {
        #expect(try breakFrames("time=\"\(value)\"") == expected)
    }

    @Test("time follows the sample rate")
    func otherSampleRates() throws {
        #expect(try breakFrames("time=\"178ms\"", sampleRate: 24000) == 4272)
        #expect(try breakFrames("time=\"10ms\"", sampleRate: 44100) == 441)
        #expect(try breakFrames("time=\"1ms\"", sampleRate: 22050 * 2 + 500) == 45)  // 44.6
        #expect(try breakFrames("", sampleRate: 48000) == 36000)
    }

    @Test(
        "strength: none 0, x-weak 250, weak 500, medium 750, strong 1000, x-strong 1250 ms",
        arguments: [
            ("none", 0), ("x-weak", 5513), ("weak", 11025), ("medium", 16538), ("strong", 22050),
            ("x-strong", 27563),
        ])
    func strength(value: String, expected: Int) throws {
        #expect(try breakFrames("strength=\"\(value)\"") == expected)
        #expect(
            expected
                == frames(
                    milliseconds: [
                        "none": 0, "x-weak": 250, "weak": 500, "medium": 750,
                        "strong": 1000, "x-strong": 1250,
                    ][value]!))
    }

    @Test("a bare <break/> is medium, and time wins over strength")
    func bareAndPrecedence() throws {
        #expect(try breakFrames("") == 16538)
        #expect(try breakFrames("strength=\"x-strong\" time=\"10ms\"") == 221)
        #expect(try breakFrames("time=\"10ms\" strength=\"none\"") == 221)
        #expect(try events("<speak><break></break></speak>") == [.pause(frames: 16538, origin: .breakStrength)])
    }

    @Test(
        "a time that is longer than 600 s, negative or unparseable is an error",
        arguments: [
            "fast", "-1s", "600.001s", "601s", "600001ms", "1.s", "", "1 s", "1", "1h", "+1s", "1e3ms", "NaNs",
            "1.5.5s", "s", "ms", "10000000000s", "0.0000000000000000000000001s",
        ])
    func invalidTime(value: String) throws {
        let request = "<speak>\n  <break time=\"\(value)\"/>\n</speak>"
        let expected = SSMLError.invalidValue(
            element: "break", attribute: "time", value: value,
            expected: "a duration such as \"250ms\" or \"1.5s\" (0 to 600 s)", line: 2, column: 3)
        #expect(error(request) == expected)
        #expect(
            expected.description
                == "invalid <break time=\"\(value)\"> at line 2, column 3: expected a duration such as \"250ms\" or "
                + "\"1.5s\" (0 to 600 s)")
        // Lenient: a warning, and the break falls back to medium.
        let document = try read(request, lenient: true)
        #expect(document.events == [.pause(frames: 16538, origin: .breakStrength)])
        #expect(document.warnings.count == 1)
        #expect(document.warnings.first?.line == 2)
        #expect(document.warnings.first?.column == 3)
        #expect(document.warnings.first?.message.hasPrefix(expected.description) == true)
    }

    @Test("lenient: an invalid time falls back to the strength")
    func invalidTimeFallsBackToStrength() throws {
        let document = try read("<speak><break time=\"soon\" strength=\"x-weak\"/></speak>", lenient: true)
        #expect(document.events == [.pause(frames: 5513, origin: .breakStrength)])
        #expect(document.warnings.map(\.column) == [8])
    }

    @Test("an invalid strength is an error; lenient ignores it")
    func invalidStrength() throws {
        let request = "<speak><break strength=\"huge\"/></speak>"
        #expect(
            error(request)
                == .invalidValue(
                    element: "break", attribute: "strength", value: "huge",
                    expected: "one of none, x-weak, weak, medium, strong, x-strong", line: 1, column: 8))
        #expect(try read(request, lenient: true).events == [.pause(frames: 16538, origin: .breakStrength)])
        // A valid time still wins when the strength is bad.
        #expect(
            try read("<speak><break time=\"1s\" strength=\"huge\"/></speak>", lenient: true).events == [
                .pause(frames: 22050, origin: .breakElement)
            ])
    }

    @Test("a break splits a text run")
    func splitsRuns() throws {
        #expect(
            try events("<speak>a<break/>b</speak>")
                == sentence(7..<17, text("a", 7..<8), .pause(frames: 16538, origin: .breakStrength), text("b", 16..<17))
        )
    }
}
