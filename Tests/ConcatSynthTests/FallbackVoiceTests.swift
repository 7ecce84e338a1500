// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import Foundation
import SpeechCore
import SpeechTestSupport
import TestSupport
import Testing
import Tokens
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

/// The fallback modes through the facade, with packs whose clips are tones: every word heard, the fallback voice
/// matched to the clips' pitch and loudness, spelling, determinism, prosody, cancellation.
@Suite struct FallbackVoiceTests {
    let directory = TemporaryDirectory("fallback-voice")
    static let voice = "com.example.tone"

    /// A voice whose phrase clips are 200 Hz tones at several levels and lengths (about -26 LUFS, where speech as
    /// loud has room below the -1 dBTP ceiling), letter clips `b` and `o` at 300 Hz, and a fallback beep; speaking
    /// words no clip covers in `mode`.
    func tonePack(
        _ mode: FallbackMode, language: String = "en-US", name: String = "tone", amplitudeScale: Double = 1
    ) throws -> VoicePack {
        let pack = try VoicePack(path: directory.file("\(name).sqlite"), access: .create)
        try pack.addVoice(Voice(identifier: Self.voice, name: "Tone", primaryLanguages: [language]))
        let clips: [(phrase: String, seconds: Double, amplitude: Double, frequency: Double)] = [
            ("hello", 0.5, 0.08, 200), ("good morning", 0.8, 0.06, 200), ("nice to meet you", 1.1, 0.07, 200),
            ("goodbye", 0.6, 0.1, 200), ("double tap to open", 1.2, 0.05, 200), ("b", 0.3, 0.08, 300),
            ("o", 0.3, 0.08, 300),
        ]
        var requests: [ImportRequest] = []
        for (index, clip) in clips.enumerated() {
            let path = try Fixture.write(
                Signal.sine(
                    frequency: clip.frequency, amplitude: clip.amplitude * amplitudeScale, sampleRate: 22_050,
                    frameCount: Int(clip.seconds * 22_050)),
                to: directory.file("\(name)-\(index).wav"), format: .init(.wav, .float32), sampleRate: 22_050)
            requests.append(ImportRequest(path: path, phrase: clip.phrase))
        }
        let beep = try Fixture.write(
            Signal.sine(frequency: 880, amplitude: 0.2, sampleRate: 22_050, frameCount: 4_410),
            to: directory.file("\(name)-beep.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        requests.append(ImportRequest(path: beep, isFallback: true))
        _ = try pack.importFiles(requests, into: nil)
        if mode != .clip { try pack.setFallbackMode(mode, voice: Self.voice) }
        return pack
    }

    /// A request rendered whole by pull: its samples, its markers in frame order, and what planning told.
    func render(_ request: SpeechRequest, with pack: VoicePack) throws -> (
        samples: [Float], markers: [Marker], notes: [String]
    ) {
        let synthesizer = try Synthesizer(pack: pack)
        var notes: [String] = []
        let renderer = try synthesizer.renderer(for: request) { notes.append("\($0)") }
        var samples: [Float] = []
        var markers = MarkerSequence()
        var buffer = [Float](repeating: 0, count: 1_024)
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += buffer[..<pulled.frameCount]
            for marker in renderer.reachedMarkers { markers.add(marker) }
            if pulled.isComplete { break }
        }
        return (samples, markers.takeReady(), notes)
    }

    func render(_ text: String, with pack: VoicePack) throws -> (samples: [Float], markers: [Marker], notes: [String]) {
        try render(SpeechRequest(.text(text)), with: pack)
    }

    /// The samples of the fallback voice's phrases, end to end.
    func fallbackSpeech(_ rendered: (samples: [Float], markers: [Marker], notes: [String])) -> [Float] {
        rendered.markers.filter { $0.fallback == .voice }.flatMap {
            rendered.samples[$0.frame..<($0.frame + $0.frameCount)]
        }
    }

    @Test("a sentence of covered and uncovered words has audio for every word")
    func everyWord() throws {
        let pack = try tonePack(.voice)
        let text = "Hello Bob, the weather today is sunny. Good morning, nice to meet you at 3 PM. Goodbye"
        let rendered = try render(text, with: pack)
        let phrases = rendered.markers.filter { $0.kind == .phrase }
        #expect(phrases.allSatisfy { $0.frameCount > 0 })
        #expect(
            phrases.map(\.text).joined(separator: " ")
                == "hello bob the weather today is sunny good morning nice to meet you at three pm goodbye")
        #expect(
            phrases.filter { $0.fallback == .voice }.map(\.text) == ["bob the weather today is sunny", "at three pm"])
        #expect(phrases.filter { $0.fallback == nil }.count == 4)
        // Each phrase's audio is sound, not silence.
        for phrase in phrases {
            let audio = rendered.samples[phrase.frame..<(phrase.frame + phrase.frameCount)]
            #expect(audio.contains { abs($0) > 0.05 }, "\(phrase.text)")
        }
        #expect(
            rendered.notes == [
                #"fallback: no clip for "bob the weather today is sunny" in voice com.example.tone"#,
                #"fallback: no clip for "at three pm" in voice com.example.tone"#,
            ])
    }

    @Test("a 200 Hz tone voice gets fallback speech within 2 semitones of 200 Hz and 1 LU of its clips' loudness")
    func matchedToThePack() throws {
        let pack = try tonePack(.voice)
        let voice = try #require(try pack.voices().first)
        #expect(abs(try #require(voice.medianF0Hz) - 200) < 1)
        let clipLoudness = try #require(voice.medianLoudnessLUFS)
        for text in [
            "Bob, the weather today is sunny", "swipe up or down to select a custom action", "Open the calendar",
        ] {
            let speech = fallbackSpeech(try render(text, with: pack))
            let f0 = try #require(try PitchTracker.medianFrequency(of: speech))
            let loudness = try #require(try Loudness(speech).clipLUFS)
            #expect(abs(12 * log2(f0 / 200)) < 2, "\(text): F0 \(f0) Hz")
            #expect(abs(loudness - clipLoudness) < 1, "\(text): \(loudness) LUFS against \(clipLoudness)")
        }
    }

    @Test(
        "a run that plays after a clip is measured before it plays: each such run within 0.2 LU of the clips' loudness",
        arguments: ["the weather today is sunny", "or", "swipe up or down to select a custom action", "items"])
    func heldAfterAClip(run: String) throws {
        let pack = try tonePack(.voice)
        let clipLoudness = try #require(try pack.voices().first?.medianLoudnessLUFS)
        let speech = fallbackSpeech(try render("Hello, \(run)", with: pack))
        let loudness = try #require(try Loudness(speech).clipLUFS)
        // Played at once at the gain chosen in advance, they were 0.3 to 2.9 LU off ("or").
        #expect(abs(loudness - clipLoudness) <= 0.2, "\(run): \(loudness) LUFS against \(clipLoudness)")
    }

    @Test("a run plays as espeak-ng speaks it once its loudness is measured; unmeasured, it is made whole, as loud")
    func arrivingOrWhole() throws {
        let pack = try tonePack(.voice)
        let spoken = try #require(try pack.voices().first?.fallbackVoice.spokenLoudnessLUFS)
        let clipLoudness = try #require(try pack.voices().first?.medianLoudnessLUFS)
        let text = "Bob, the weather today is sunny"
        func firstArrives() throws -> Bool {
            let stream = try Synthesizer(pack: VoicePack(path: pack.path, access: .readOnly))
                .stream(SpeechRequest(.text(text)))
            while let segment = try stream.nextSegment() {
                if segment.segment.isSounding { return segment.segment.isArriving }
            }
            return false
        }
        #expect(try firstArrives())
        let arriving = try Loudness(fallbackSpeech(try render(text, with: pack))).clipLUFS

        try execute("UPDATE voice SET fallback_spoken_loudness_lufs = NULL", on: pack.path)
        #expect(try !firstArrives())
        let whole = try Loudness(
            fallbackSpeech(try render(text, with: VoicePack(path: pack.path, access: .readOnly)))
        ).clipLUFS
        for loudness in [arriving, whole] {
            #expect(abs(try #require(loudness) - clipLoudness) < 1, "\(loudness ?? 0) LUFS against \(clipLoudness)")
        }
        // A migration measures it again, as it was.
        _ = try VoicePack.migrate(path: pack.path)
        let migrated = try VoicePack(path: pack.path, access: .readOnly).voices().first
        #expect(migrated?.fallbackVoice.spokenLoudnessLUFS == spoken)
    }

    @Test("a loud voice: fallback speech as loud as its clips, its peaks limited under the -1 dBTP ceiling")
    func loudVoice() throws {
        // About -14 LUFS, as the default English voice: espeak-ng's speech that loud would peak past -1 dBTP.
        let pack = try tonePack(.voice, name: "loud", amplitudeScale: 4)
        let clipLoudness = try #require(try pack.voices().first?.medianLoudnessLUFS)
        #expect(clipLoudness > -15, "\(clipLoudness)")
        for text in ["Bob, the weather today is sunny", "swipe up or down to select a custom action"] {
            let speech = fallbackSpeech(try render(text, with: pack))
            let loudness = try Loudness(speech)
            let measured = try #require(loudness.clipLUFS)
            #expect(abs(measured - clipLoudness) < 1, "\(text): \(measured) LUFS against \(clipLoudness)")
            #expect(try #require(loudness.truePeakDBTP) <= -1 + 0.05, "\(text): \(loudness.truePeakDBTP ?? 0) dBTP")
        }
    }

    @Test("identical output on every run, whatever other voices espeak-ng spoke for in between")
    func deterministic() throws {
        let pack = try tonePack(.voice)
        let other = try tonePack(.voice, language: "ja-JP", name: "other")
        let text = "Hello Bob, good morning Carol"
        let first = try render(text, with: pack).samples
        _ = try render("こんにちは", with: other)
        let second = try render(text, with: pack).samples
        let differing = zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(
            first.count == second.count && differing == nil,
            "\(first.count) and \(second.count) samples, first differing at \(differing ?? -1)")
        #expect(first.count > 22_050)
    }

    @Test("rate 2x halves the fallback voice's speech and +2st raises its F0 by 2 semitones")
    func prosody() throws {
        let pack = try tonePack(.voice)
        let text = "the weather today is sunny with a high of twenty four degrees"
        let normal = fallbackSpeech(try render(text, with: pack))
        let fast = fallbackSpeech(try render(SpeechRequest(.text(text), prosody: Prosody(rate: 2)), with: pack))
        let high = fallbackSpeech(
            try render(SpeechRequest(.text(text), prosody: Prosody(pitchSemitones: 2)), with: pack))
        #expect(fast.count == Int((Double(normal.count) / 2).rounded()))
        #expect(high.count == normal.count)
        let raised = try #require(try PitchTracker.medianFrequency(of: high))
        let base = try #require(try PitchTracker.medianFrequency(of: normal))
        #expect(abs(12 * log2(raised / base) - 2) < 0.5, "\(base) Hz → \(raised) Hz")
    }

    @Test("spell mode spells with the letter clips, the fallback clip for a letter with none")
    func spell() throws {
        let pack = try tonePack(.spell)
        let withLetters = try render("Hello Bob", with: pack)
        #expect(withLetters.markers.filter { $0.fallback == .spell }.map(\.text) == ["b", "o", "b"])
        #expect(withLetters.notes == [#"fallback: no clip for "bob" in voice com.example.tone"#])
        let withoutLetters = try render("box", with: pack)
        let letters = withoutLetters.markers.filter { $0.fallback == .spell }
        #expect(letters.map(\.text) == ["b", "o", "x"])
        // The x is the fallback beep: 880 Hz.
        let x = withoutLetters.samples[letters[2].frame..<(letters[2].frame + letters[2].frameCount)]
        #expect(abs(Signal.frequency(Array(x), sampleRate: 22_050, margin: 100) - 880) < 5)
    }

    @Test("a voice whose language espeak-ng lacks: configure refuses, and such a pack falls back to its clip")
    func unknownLanguage() throws {
        let pack = try tonePack(.clip, language: "tlh")
        #expect(throws: AuthoringError.fallbackLanguage(voice: Self.voice, language: "tlh")) {
            try pack.setFallbackMode(.voice, voice: Self.voice)
        }
        #expect(try pack.voices().map(\.fallbackMode) == [.clip])
        try execute("UPDATE voice SET fallback_mode = 'voice'", on: pack.path)
        let reopened = try VoicePack(path: pack.path, access: .readOnly)
        let rendered = try render("hello Bob, goodbye Carol", with: reopened)
        #expect(rendered.markers.compactMap(\.fallback) == [.clip, .clip])
        #expect(rendered.notes.filter { $0.hasPrefix("warning:") }.count == 1)
        #expect(rendered.notes.first { $0.hasPrefix("warning:") }?.contains("tlh") == true)
    }

    @Test("coverage and --strict's first pass plan the clip for a voice fallback, and list what to record")
    func coverage() throws {
        let pack = try tonePack(.voice)
        let report = try CoverageAnalyzer(pack: pack).analyze([("text", "Hello Bob, good morning Carol")])
        #expect(report.fallbackWords.map(\.text) == ["bob", "carol"])
        let synthesizer = try Synthesizer(pack: pack)
        #expect(throws: ConcatSynthError.fallbackInStrictMode(voice: Self.voice, words: ["bob", "carol"])) {
            try synthesizer.checkCovered(SpeechRequest(.text("Hello Bob, good morning Carol")))
        }
    }

    @Test("the measurements are kept current: an import moves the medians and chooses espeak-ng's settings anew")
    func keptCurrent() throws {
        let pack = try tonePack(.voice)
        let before = try #require(try pack.voices().first)
        var requests: [ImportRequest] = []
        for index in 0..<8 {
            let path = try Fixture.write(
                Signal.sine(frequency: 120, amplitude: 0.3, sampleRate: 22_050, frameCount: 11_025),
                to: directory.file("low-\(index).wav"), format: .init(.wav, .float32), sampleRate: 22_050)
            requests.append(ImportRequest(path: path, phrase: "low \(index)"))
        }
        _ = try pack.importFiles(requests, into: nil)
        let after = try #require(try pack.voices().first)
        // 8 of the 15 phrase clips are the new ones, lower and louder than every clip before them.
        #expect(abs(try #require(after.medianF0Hz) - 120) < 1)
        let loudness = try #require(after.medianLoudnessLUFS)
        #expect(loudness > (try #require(before.medianLoudnessLUFS)) + 6)
        // The settings are those configure chooses for the clips as they are now, not those of before.
        try pack.setFallbackMode(.voice, voice: Self.voice)
        let chosen = try #require(try pack.voices().first).fallbackVoice
        #expect(after.fallbackVoice == chosen)
        #expect(chosen.description != before.fallbackVoice.description, "\(chosen)")
        #expect(chosen.spokenLoudnessLUFS != before.fallbackVoice.spokenLoudnessLUFS)
        // So the fallback voice speaks near the new median F0, as loud as the clips now are.
        let speech = fallbackSpeech(try render("Bob, the weather today is sunny", with: pack))
        let f0 = try #require(try PitchTracker.medianFrequency(of: speech))
        #expect(abs(12 * log2(f0 / 120)) < 2, "F0 \(f0) Hz")
        let spoken = try #require(try Loudness(speech).clipLUFS)
        #expect(abs(spoken - loudness) < 1, "\(spoken) LUFS against \(loudness)")
    }
}
