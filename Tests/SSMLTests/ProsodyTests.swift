// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Testing

@Suite("<prosody> and <emphasis>")
struct ProsodyTests {
    /// The context of the only run of `<speak>` + `markup` wrapped around "x".
    private func context(_ open: String, _ close: String, lenient: Bool = false) throws -> SpeechContext? {
        let document = try read("<speak>\(open)x\(close)</speak>", lenient: lenient)
        return runs(document.events).first?.context
    }

    private func volume(_ value: String) throws -> Double? {
        try context("<prosody volume=\"\(value)\">", "</prosody>")?.volumeDecibels
    }

    @Test(
        "volume: dB, labels, and SSML 1.0 levels and relative changes",
        arguments: [
            ("-1.0dB", -1.0), ("+6dB", 6), ("6dB", 6), ("-6.5db", -6.5), ("0dB", 0), ("x-soft", -12), ("soft", -6),
            ("medium", 0), ("loud", 6), ("x-loud", 12), ("default", 0), ("100", 0), ("50", -6.020_599_913_279_624),
            ("10", -20), ("+10", 0.827_853_703_164_502_8), ("-10", -0.915_149_811_213_503_5),
            ("+20%", 1.583_624_920_952_497_9), ("-20%", -1.938_200_260_161_128_6), ("50%", -6.020_599_913_279_624),
            ("100%", 0), (" loud ", 6),
        ])
    func volumeValues(value: String, decibels: Double) throws {
        let actual = try #require(try volume(value))
        #expect(abs(actual - decibels) < 1e-9, "\(value) gave \(actual) dB")
    }

    @Test("volume: silent, 0 and -100% are -infinity")
    func silence() throws {
        for value in ["silent", "0", "0.0", "-100%", "-100", "0%"] {
            #expect(try volume(value) == -.infinity, "\(value)")
        }
    }

    @Test(
        "volume: anything else is an error naming the value",
        arguments: ["-5.5.5dB", "loudest", "101", "dB", "-150%", "6 dB", "+-6dB", "", "1e3dB", "-101", "6dBs"])
    func invalidVolume(value: String) throws {
        let request = "<speak><prosody volume=\"\(value)\">x</prosody></speak>"
        let caught = try #require(error(request))
        guard case .invalidValue("prosody", "volume", value, _, 1, 8) = caught else {
            Issue.record("unexpected \(caught)")
            return
        }
        #expect(caught.description.hasPrefix("invalid <prosody volume=\"\(value)\"> at line 1, column 8: expected "))
        // Lenient: ignored with a warning.
        let document = try read(request, lenient: true)
        #expect(runs(document.events).map(\.context) == [SpeechContext()])
        #expect(document.warnings.count == 1)
    }

    @Test("nested volume and emphasis add dB")
    func sums() throws {
        #expect(
            try context(
                "<prosody volume=\"+6dB\"><prosody volume=\"-1.0dB\"><emphasis level=\"strong\">",
                "</emphasis></prosody></prosody>")?.volumeDecibels == 11)
        #expect(try context("<emphasis>", "</emphasis>")?.volumeDecibels == 3)
        #expect(try context("<emphasis level=\"moderate\">", "</emphasis>")?.volumeDecibels == 3)
        #expect(try context("<emphasis level=\"reduced\">", "</emphasis>")?.volumeDecibels == -3)
        #expect(try context("<emphasis level=\"none\">", "</emphasis>")?.volumeDecibels == 0)
        #expect(
            try context("<prosody volume=\"soft\"><emphasis><emphasis>", "</emphasis></emphasis></prosody>")?
                .volumeDecibels == 0)
        #expect(
            try context("<prosody volume=\"silent\"><prosody volume=\"x-loud\">", "</prosody></prosody>")?
                .volumeDecibels == -.infinity)
        // Back outside, the volume is the outer one again.
        let document = try read("<speak><prosody volume=\"loud\">a<emphasis>b</emphasis>c</prosody>d</speak>")
        #expect(runs(document.events).map(\.context.volumeDecibels) == [6, 9, 6, 0])
    }

    @Test("emphasis: an unknown level is an error; lenient reads it as moderate")
    func invalidEmphasis() throws {
        let request = "<speak><emphasis level=\"cute\">x</emphasis></speak>"
        #expect(
            error(request)
                == .invalidValue(
                    element: "emphasis", attribute: "level", value: "cute",
                    expected: "one of strong, moderate, reduced, none", line: 1, column: 8))
        #expect(
            try read(request, lenient: true).events
                == sentence(30..<31, text("x", 30..<31, SpeechContext(volumeDecibels: 3))))
    }

    @Test(
        "rate: labels, percentages (SSML 1.0 signed ones relative) and multipliers",
        arguments: [
            ("x-slow", 0.5), ("slow", 0.75), ("medium", 1), ("fast", 1.5), ("x-fast", 2), ("default", 1),
            ("200%", 2), ("400.0%", 4), ("100%", 1), ("50%", 0.5), ("+10%", 1.1), ("-20%", 0.8), ("+0%", 1),
            ("1.5", 1.5), ("0.5", 0.5), ("2", 2), (".25", 0.25),
        ])
    func rateValues(value: String, rate: Double) throws {
        let actual = try #require(try context("<prosody rate=\"\(value)\">", "</prosody>")?.rate)
        #expect(abs(actual - rate) < 1e-12, "\(value) gave \(actual)")
    }

    @Test(
        "rate: zero, negative or unknown is an error",
        arguments: ["xx-large", "0%", "-100%", "-150%", "0", "+1.5", "-1", "fast!", "2x", "", "%", "1.5.5"])
    func invalidRate(value: String) throws {
        let caught = try #require(error("<speak>\n<p><prosody rate=\"\(value)\">x</prosody></p></speak>"))
        guard case .invalidValue("prosody", "rate", value, let expected, 2, 4) = caught else {
            Issue.record("unexpected \(caught)")
            return
        }
        #expect(expected.contains("200%"))
    }

    @Test("nested rates multiply")
    func nestedRate() throws {
        #expect(try context("<prosody rate=\"200%\"><prosody rate=\"400%\">", "</prosody></prosody>")?.rate == 8)
        let slower = try #require(
            try context("<prosody rate=\"400.0%\"><prosody rate=\"-20%\">", "</prosody></prosody>"))
        #expect(abs(try #require(slower.rate) - 3.2) < 1e-12)
    }

    @Test(
        "pitch: labels, semitones and signed percentages as semitones",
        arguments: [
            ("+2st", 2.0), ("-1.5st", -1.5), ("2st", 2), ("+100%", 12), ("-50%", -12), ("x-low", -4), ("low", -2),
            ("medium", 0), ("high", 2), ("x-high", 4), ("default", 0),
        ])
    func pitchValues(value: String, semitones: Double) throws {
        let shift = try #require(try context("<prosody pitch=\"\(value)\">", "</prosody>")?.pitchSemitones)
        #expect(abs(shift - semitones) < 1e-12)
    }

    @Test("pitch: Hz values are read but leave the pitch, with a warning that says why", arguments: ["+50Hz", "200Hz"])
    func hertzPitch(value: String) throws {
        let document = try read("<speak><prosody pitch=\"\(value)\">x</prosody></speak>")
        #expect(runs(document.events).map(\.context.pitchSemitones) == [0])
        #expect(document.warnings.count == 1)
        #expect(document.warnings.first?.message.contains("no base frequency") == true)
    }

    @Test("pitch: other values are errors", arguments: ["10%", "-100%", "0Hz", "high!", "2", "+2 st", "loud", "-5Hzz"])
    func invalidPitch(value: String) throws {
        let caught = try #require(error("<speak><prosody pitch=\"\(value)\">x</prosody></speak>"))
        guard case .invalidValue("prosody", "pitch", value, _, 1, 8) = caught else {
            Issue.record("unexpected \(caught)")
            return
        }
    }

    @Test("nested pitches add semitones")
    func nestedPitch() throws {
        #expect(
            try context("<prosody pitch=\"+2st\"><prosody pitch=\"low\">", "</prosody></prosody>")?.pitchSemitones
                == 0)
        #expect(
            try context("<prosody pitch=\"+2st\"><prosody rate=\"fast\">", "</prosody></prosody>")?.pitchSemitones
                == 2)
    }

    @Test("a request's prosody is the context of its root, as if the request were wrapped in <prosody>")
    func requestProsody() throws {
        let prosody = Prosody(rate: 2, pitchSemitones: 1, volumeDecibels: -6)
        let document = try SSMLReader().read(
            "<speak><prosody rate=\"200%\" pitch=\"+1st\" volume=\"+6dB\">x</prosody> y</speak>", prosody: prosody)
        #expect(
            runs(document.events).map(\.context) == [
                SpeechContext(volumeDecibels: 0, rate: 4, pitchSemitones: 2), SpeechContext(prosody),
            ])
        #expect(
            try SSMLReader().read("plain", prosody: prosody).events
                == sentence(0..<5, text("plain", 0..<5, SpeechContext(prosody))))
    }

    @Test("contour, range, duration and unknown attributes are ignored without a warning")
    func ignoredAttributes() throws {
        let document = try read(
            "<speak><prosody contour=\"(0%,+20Hz)\" range=\"x-high\" duration=\"2s\" foo=\"bar\">x</prosody></speak>")
        #expect(runs(document.events).map(\.context) == [SpeechContext()])
        #expect(document.warnings.isEmpty)
    }

    @Test("lenient: one bad value in a prosody is ignored, the others apply")
    func lenientPartial() throws {
        let document = try read(
            "<speak><prosody rate=\"fast\" volume=\"-5.5.5dB\" pitch=\"+2st\">x</prosody></speak>", lenient: true)
        #expect(runs(document.events).map(\.context) == [SpeechContext(rate: 1.5, pitchSemitones: 2)])
        #expect(document.warnings.count == 1)
        #expect(document.warnings[0].message.contains("-5.5.5dB"))
        #expect(document.warnings[0].message.hasSuffix("; the attribute is ignored"))
    }
}
