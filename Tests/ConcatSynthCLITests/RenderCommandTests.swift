// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import Foundation
import TestSupport
import Testing
import Tokens
import Voicebank

/// The requests VoiceOver sent in the seed articles: Tests/Fixtures/voiceover, a copy of shared/fixtures/voiceover.
enum VoiceOverFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/voiceover").path

    static let all: [(name: String, ssml: String)] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".ssml") }.sorted().map { name in
            (String(name.dropLast(".ssml".count)), try! String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8))
        }
    }()
}

@Suite struct RenderCommandTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("concat-synth-cli")
    let defaultPack = ScreenReaderPack.path

    @Test("the VoiceOver fixtures are all there")
    func fixtureFiles() {
        #expect(
            VoiceOverFixture.all.map(\.name) == [
                "basic", "inline-break", "say-as-characters", "split-1", "split-2", "split-3", "wwdc-hello",
            ])
    }

    @Test(
        "every VoiceOver fixture renders with the default pack, as long as its planned clips and breaks",
        arguments: VoiceOverFixture.all.map(\.name))
    func fixtures(name: String) throws {
        let ssml = try #require(VoiceOverFixture.all.first { $0.name == name }?.ssml)
        let voice = name == "wwdc-hello" ? "org.concatsynth.en" : "org.concatsynth.ja"
        let plan = try Synthesizer(pack: VoicePack(path: defaultPack, access: .readOnly), voice: voice).renderPlan(ssml)
        let output = directory.file("\(name).wav")

        let result = try concatSynth.run(["render", "--voice", voice, "-o", output, "-"], input: Data(ssml.utf8))

        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "", "the default pack covers every fixture without a fallback")
        let rendered = try PreparedClip(path: output)
        #expect(rendered.source.sampleRate == 22_050)
        #expect(rendered.source.channelCount == 1)
        #expect(rendered.source.sampleFormat == "32 bit float")
        #expect(rendered.source.frameCount == plan.frameCount)
        #expect(plan.frameCount == plan.segments.reduce(0) { $0 + $1.frameCount })
        #expect(plan.fallbacks.isEmpty)
    }

    @Test("plain text from arguments renders clip by clip, and the samples are the clips'")
    func text() throws {
        let output = directory.file("hello.wav")
        let result = try concatSynth.run(["render", "-o", output, "Hello, nice to meet you!"])
        #expect(result.status == 0)

        let pack = try VoicePack(path: defaultPack, access: .readOnly)
        let clips = try pack.clips(voice: "org.concatsynth.en")
        let hello = try #require(clips.first { $0.phraseKey == "hello" })
        let nice = try #require(clips.first { $0.phraseKey == "nice to meet you" })
        let rendered = try PreparedClip(path: output).renderReady
        #expect(rendered.count == hello.frameCount + nice.frameCount)
        // Between the edge fades, the output is the clip's samples exactly.
        let helloSamples = try pack.renderReadyPCM(clipID: hello.id)
        #expect(Array(rendered[44..<(hello.frameCount - 44)]) == Array(helloSamples[44..<(hello.frameCount - 44)]))
        let niceSamples = try pack.renderReadyPCM(clipID: nice.id)
        #expect(Array(rendered[(hello.frameCount + 44)..<(hello.frameCount + 100)]) == Array(niceSamples[44..<100]))
    }

    @Test("-o - writes raw Float32 little-endian, the same samples as the WAV file")
    func rawStandardOutput() throws {
        let wav = directory.file("out.wav")
        #expect(try concatSynth.run(["render", "-o", wav, "good morning"]).status == 0)
        let rawData = try concatSynth.runData(["render", "-o", "-", "good morning"])

        let samples = try PreparedClip(path: wav).renderReady
        #expect(rawData.count == samples.count * 4)
        let decoded = rawData.withUnsafeBytes { raw in
            (0..<samples.count).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
        #expect(decoded == samples)
    }

    @Test(
        "the extension picks the container; every one reads back as 22050 Hz mono",
        arguments: ["aiff", "caf", "flac", "wav"])
    func containers(extension: String) throws {
        let output = directory.file("out.\(`extension`)")
        #expect(try concatSynth.run(["render", "-o", output, "settings"]).status == 0)
        let rendered = try PreparedClip(path: output)
        #expect(rendered.source.sampleRate == 22_050)
        #expect(rendered.source.channelCount == 1)
        #expect(rendered.source.sampleFormat == (`extension` == "flac" ? "Signed 24 bit PCM" : "32 bit float"))
    }

    @Test("the same request renders the same bytes")
    func deterministic() throws {
        let request = #"<speak>Hello <break time="250ms"/> Bob, <prosody volume="-6dB">good morning</prosody></speak>"#
        let first = try concatSynth.runData(["render", "-o", "-", request])
        let second = try concatSynth.runData(["render", "-o", "-", request])
        #expect(first == second)
        #expect(!first.isEmpty)
    }

    @Test("fallbacks are reported with their words; --strict makes them an error and writes nothing")
    func strict() throws {
        let output = directory.file("strict.wav")
        let relaxed = try concatSynth.run(["render", "-o", output, "Hello Bob and Alice, good morning"])
        #expect(relaxed.status == 0)
        #expect(relaxed.standardError == "fallback: no clip for \"bob and alice\" in voice org.concatsynth.en\n")
        try FileManager.default.removeItem(atPath: output)

        let strict = try concatSynth.run(["render", "--strict", "-o", output, "Hello Bob"])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("Error: voice org.concatsynth.en has no clip for \"bob\""))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("malformed SSML fails with line and column and writes nothing; --lenient speaks its text")
    func malformed() throws {
        let output = directory.file("bad.wav")
        let request = "<speak>\n  hello <break time=\"1s\">\n</speak>"
        let strict = try concatSynth.run(["render", "-o", output, request])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("line 3"))
        #expect(strict.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: output))

        let lenient = try concatSynth.run(["render", "--lenient", "-o", output, request])
        #expect(lenient.status == 0)
        #expect(lenient.standardError.hasPrefix("warning: "))
        #expect(try PreparedClip(path: output).source.frameCount > 0)
    }

    @Test(
        "a refused DOCTYPE and a bad attribute value are errors",
        arguments: [
            #"<!DOCTYPE speak [<!ENTITY x "hello">]><speak>&x;</speak>"#,
            #"<speak><break time="fast"/></speak>"#,
            #"<speak><break time="601s"/></speak>"#,
        ])
    func refused(request: String) throws {
        let output = directory.file("refused.wav")
        let result = try concatSynth.run(["render", "-o", output, request])
        #expect(result.status == 1)
        #expect(result.standardError.contains("line 1"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("--file and standard input carry the request")
    func inputs() throws {
        let request = directory.file("request.ssml")
        try #"<speak>good <break time="10ms"/> morning</speak>"#.write(
            toFile: request, atomically: true, encoding: .utf8)
        let fromFile = try concatSynth.runData(["render", "-o", "-", "--file", request])
        let fromInput = try concatSynth.runData(
            ["render", "-o", "-"], input: Data(contentsOf: URL(fileURLWithPath: request)))
        #expect(fromFile == fromInput)
        #expect(!fromFile.isEmpty)
        let missing = try concatSynth.run(["render", "-o", "-", "--file", directory.file("none.ssml")])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("none.ssml"))
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["render", "-o", "out.mp4", "hello"], ["render", "--file", "a.ssml", "-o", "-", "hello"], ["speak"],
        ])
    func usage(arguments: [String]) throws {
        #expect(try concatSynth.run(arguments).status == 64)
    }

    @Test("an unknown voice is an error that lists the pack's voices")
    func unknownVoice() throws {
        let result = try concatSynth.run(["render", "--voice", "com.example.nobody", "-o", "-", "hello"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("org.concatsynth.en, org.concatsynth.ja"))
    }

    @Test("voices --json lists the pack's voices with their languages")
    func voices() throws {
        let result = try concatSynth.run(["voices", "--json"])
        #expect(result.status == 0)
        let voices = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(voices.map { $0["identifier"] as? String } == ["org.concatsynth.en", "org.concatsynth.ja"])
        #expect(voices.map { $0["primaryLanguages"] as? [String] } == [["en-US"], ["ja-JP"]])
        #expect(voices.allSatisfy { $0["name"] is String && $0["supportedLanguages"] is [String] })
    }

    @Test("--markers writes JSON lines whose frames are where each clip's samples start in the output")
    func markers() throws {
        let request = #"<speak><s>Hello 😀, good morning</s><s xml:lang="ja-JP">設定<mark name="here"/>ボタン</s></speak>"#
        let output = directory.file("marked.wav")
        let markersFile = directory.file("marked.jsonl")
        let result = try concatSynth.run(["render", "-o", output, "--markers", markersFile, request])
        #expect(result.status == 0, "\(result.standardError)")

        let lines = try String(contentsOfFile: markersFile, encoding: .utf8).split(separator: "\n")
        let markers = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            markers.map { $0["kind"] as? String } == [
                "sentence", "phrase", "phrase", "sentence", "phrase", "mark", "phrase",
            ])
        let utf16 = Array(request.utf16)
        let texts = markers.map { marker -> String in
            let range = marker["textRange"] as! [Int]
            return String(decoding: utf16[range[0]..<(range[0] + range[1])], as: UTF16.self)
        }
        #expect(texts[1] == "Hello" && texts[2] == "good morning" && texts[4] == "設定" && texts[6] == "ボタン")

        let rendered = try PreparedClip(path: output).renderReady
        let pack = try VoicePack(path: defaultPack, access: .readOnly)
        let clips = try pack.clips()
        for marker in markers where marker["kind"] as? String == "phrase" {
            let frame = marker["frame"] as! Int
            let frames = marker["frames"] as! Int
            #expect(marker["byteOffset"] as? Int == frame * 4)
            let phraseKey = (marker["text"] as! String)
            let clip = try #require(
                clips.first {
                    Tokenizer.displayText(Tokenizer.tokens(in: $0.phraseKey)[...]) == phraseKey && !$0.isFallback
                }
            )
            #expect(clip.frameCount == frames)
            let samples = try pack.renderReadyPCM(clipID: clip.id)
            #expect(
                Array(rendered[(frame + 44)..<(frame + frames - 44)]) == Array(samples[44..<(frames - 44)]),
                "\(phraseKey)")
        }
        let last = try #require(markers.last)
        #expect((last["frame"] as! Int) + (last["frames"] as! Int) == rendered.count)
    }

    @Test("--allow-audio lets <audio> play a file; without it the fallback content is spoken, with a warning")
    func audio() throws {
        let sounds = directory.file("sounds")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        try Fixture.seedClip(at: "\(sounds)/chime.aiff", seconds: 0.2)
        let request = #"<speak><audio src="chime.aiff">hello</audio></speak>"#

        let allowed = try concatSynth.run(["render", "--allow-audio", sounds, "-o", directory.file("a.wav"), request])
        let refused = try concatSynth.run(["render", "-o", directory.file("b.wav"), request])
        let badDirectory = try concatSynth.run(["render", "--allow-audio", directory.file("none"), "-o", "-", request])

        #expect(allowed.status == 0 && allowed.standardError.isEmpty)
        #expect(try PreparedClip(path: directory.file("a.wav")).source.frameCount == 4_410)
        #expect(refused.status == 0)
        #expect(refused.standardError.contains("no audio directory is allowed"))
        let hello = try VoicePack(path: defaultPack, access: .readOnly).clips(voice: "org.concatsynth.en").first {
            $0.phraseKey == "hello"
        }
        #expect(try PreparedClip(path: directory.file("b.wav")).source.frameCount == hello?.frameCount)
        #expect(badDirectory.status == 1)
        #expect(badDirectory.standardError.contains("none"))
    }
}

/// Plain text from a pipe or a file is spoken as it is read, a piece at a time.
@Suite struct StreamedTextCommandTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("concat-synth-streamed")

    /// About 75 KB of text the default pack covers: more than one read, so that the first bytes do not hold it.
    let longText = String(repeating: "Hello, nice to meet you. Good morning; thank you!\nYes, goodbye. ", count: 1_200)

    @Test("a long text on standard input gives the audio and markers of the same text read whole")
    func sameAsWhole() throws {
        let streamedMarkers = directory.file("streamed.jsonl")
        let wholeMarkers = directory.file("whole.jsonl")
        let streamed = try concatSynth.run(
            ["render", "-o", "-", "--markers", streamedMarkers, "-"], input: Data(longText.utf8))
        // --join-report plans the request a second time, so it reads the request whole first.
        let whole = try concatSynth.run(
            ["render", "-o", "-", "--markers", wholeMarkers, "--join-report", "-"], input: Data(longText.utf8))
        #expect(streamed.status == 0 && whole.status == 0)
        #expect(streamed.standardOutputBytes.count > 22_050 * 4 * 1_200)
        #expect(streamed.standardOutputBytes == whole.standardOutputBytes)
        let markers = try String(contentsOfFile: streamedMarkers, encoding: .utf8)
        // Per repetition, three sentences ("Hello, nice to meet you.", "Good morning; thank you!", "Yes, goodbye.") and
        // six phrases.
        #expect(markers.split(separator: "\n").count == 1_200 * (3 + 6))
        #expect(markers == (try String(contentsOfFile: wholeMarkers, encoding: .utf8)))
    }

    @Test("memory stays flat however long the text: 2 MB on standard input render in less than 32 MB")
    func boundedMemory() throws {
        let unit = "Good morning, double tap to open. Hello, nice to meet you! Thank you. Goodbye.\n"
        let text = directory.file("long.txt")
        try String(repeating: unit, count: 2_000_000 / unit.utf8.count).write(
            toFile: text, atomically: true, encoding: .utf8)
        // GNU time reports the peak resident memory of the command it runs (in KB).
        let command = "/usr/bin/time -f %M \(concatSynth.path) render -o - - < \(text) > /dev/null"
        let result = try Binary(path: "/bin/sh").run(["-c", command])
        #expect(result.status == 0, "\(result.standardError)")
        let kilobytes = try #require(result.standardError.split(separator: "\n").last.flatMap { Int($0) })
        #expect(kilobytes < 32 * 1_024)
    }

    @Test("--strict into a file names every word that falls back in a streamed text, and leaves no file")
    func strictIntoFile() throws {
        let output = directory.file("strict.wav")
        let text = longText + "Hello Bob.\n" + longText + "Good morning Carol.\n"
        let result = try concatSynth.run(["render", "--strict", "-o", output, "-"], input: Data(text.utf8))
        #expect(result.status == 1)
        #expect(result.standardError.contains(#"has no clip for "bob", "carol""#))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("invalid UTF-8 deep in a streamed text stops the render with the byte's offset, and leaves no file")
    func invalidUTF8() throws {
        let output = directory.file("invalid.wav")
        let bytes = Array(longText.utf8) + [0xC3, 0x28] + Array(" hello".utf8)
        let result = try concatSynth.run(["render", "-o", output, "-"], input: Data(bytes))
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix(
                "Error: the request in standard input is not valid UTF-8 at byte offset \(longText.utf8.count) (0xC3); "
            ))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
