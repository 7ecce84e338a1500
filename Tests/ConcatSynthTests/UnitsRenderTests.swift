// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

/// The units fallback through the facade, with a pack whose take's alignment the test writes into the store: words
/// cut from the take, what the units cannot build spoken by espeak-ng, markers and the plan dump naming `units`.
@Suite struct UnitsRenderTests {
    let directory = TemporaryDirectory("units-render")
    static let voice = "com.example.units"

    /// A voice with one take, "well good evening" (a 200 Hz tone), aligned word by word and phone by phone, in
    /// fallback mode `units`, with a fallback beep.
    func pack(_ name: String = "units") throws -> VoicePack {
        let path = directory.file("\(name).sqlite")
        let pack = try VoicePack(path: path, access: .create)
        try pack.addVoice(Voice(identifier: Self.voice, name: "Units", primaryLanguages: ["en-US"]))
        let file = try Fixture.write(
            Signal.sine(frequency: 200, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050),
            to: directory.file("take.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        let beep = try Fixture.write(
            Signal.sine(frequency: 880, amplitude: 0.2, sampleRate: 22_050, frameCount: 4_410),
            to: directory.file("beep.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        _ = try pack.importFiles(
            [ImportRequest(path: file, phrase: "well good evening"), ImportRequest(path: beep, isFallback: true)],
            into: nil)
        try pack.setFallbackMode(.units, voice: Self.voice)
        var phones: [String] = []
        var frame = 2_205
        for (word, symbols) in [
            ("well", ["W", "EH", "L"]), ("good", ["G", "UH", "D"]), ("evening", ["IY", "V", "N", "IH", "NG"]),
        ].enumerated() {
            for symbol in symbols.1 {
                phones.append("(1, \(phones.count), \(word), '\(symbol)', \(frame), \(frame + 1_100))")
                frame += 1_100
            }
        }
        try execute(
            """
            INSERT INTO alignment VALUES (1, 'test', -10, NULL);
            INSERT INTO aligned_word VALUES (1, 0, 'well', 2205, 5505), (1, 1, 'good', 5505, 8805),
                (1, 2, 'evening', 8805, 14305);
            INSERT INTO aligned_phone VALUES \(phones.joined(separator: ", "));
            """, on: path)
        return pack
    }

    func render(_ text: String, _ synthesizer: Synthesizer) throws -> (samples: [Float], markers: [Marker]) {
        let renderer = try synthesizer.renderer(for: SpeechRequest(.text(text))) { _ in }
        var samples: [Float] = []
        var markers = MarkerSequence()
        var buffer = [Float](repeating: 0, count: 1_024)
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += buffer[..<pulled.frameCount]
            for marker in renderer.reachedMarkers { markers.add(marker) }
            if pulled.isComplete { break }
        }
        return (samples, markers.takeReady())
    }

    @Test("the units choose with the voice's weights, as configured")
    func weights() throws {
        let pack = try pack()
        let weights = UnitWeights(context: 2, duration: 0.5, spectrum: 1)
        try pack.setUnitWeights(weights, voice: Self.voice)

        let synthesizer = try Synthesizer(pack: pack)

        #expect(synthesizer.voice.units == weights)
        #expect(synthesizer.planner.voices.map { $0.units?.weights } == [weights])
    }

    @Test("words a take says play from it, the rest from espeak-ng; markers and the plan dump say units")
    func units() throws {
        let synthesizer = try Synthesizer(pack: pack())
        let rendered = try render("Good evening, Bob.", synthesizer)
        let phrases = rendered.markers.filter { $0.kind == .phrase }
        #expect(phrases.map(\.text) == ["good evening", "bob"])
        #expect(phrases.map(\.fallback) == [.units, .voice])
        #expect(phrases[0].frameCount == 8_800)
        #expect(phrases[0].jsonLine.hasSuffix(#","fallback":"units"}"#))
        let trace = try synthesizer.planTrace(SpeechRequest(.text("Good evening, Bob.")))
        #expect(trace.contains("\"good evening\" from take #1 5505..<14305"))
        #expect(trace.contains("units declined"))
        #expect(try render("Good evening, Bob.", Synthesizer(pack: pack("again"))).samples == rendered.samples)
    }

    @Test("--strict's check counts units as a fallback")
    func strict() throws {
        let synthesizer = try Synthesizer(pack: pack())
        #expect(throws: ConcatSynthError.fallbackInStrictMode(voice: Self.voice, words: ["evening"])) {
            try synthesizer.checkCovered(SpeechRequest(.text("evening")))
        }
    }

    @Test("the units' look-up gives the pitch marks import stored for a take, where joins are cut")
    func pitchMarks() throws {
        let pack = try pack()
        let index = try #require(pack.clipIndexes().first)
        let stored = try #require(try pack.pitchMarks(clipID: 1))
        // The take is a 200 Hz tone: a mark every 110 or 111 frames.
        #expect(stored.count > 150)
        #expect(try index.pitchMarks(clipID: 1) == stored)
    }
}
