// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import Foundation
import SpeechCore
import TestSupport
import Testing

@testable import Voicebank
@testable import VoicebankAuthoring

/// End-to-end tests of the pack builder's tools: import --transcript, export, info, remove, verify, coverage.
@Suite struct PackToolsCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("voicebank-tools")
    var bank: String { directory.file("pack.sqlite") }

    func create(_ identifier: String = "com.example.ann", language: String = "en-US") throws {
        let result = try voicebank.run([
            "create", "--bank", bank, "--voice", identifier, "--name", "Ann", "--language", language,
        ])
        try #require(result.status == 0, "\(result.standardError)")
    }

    /// A folder `clips/` with three clips, one in a subfolder, and a stray file no transcript names.
    func clipsFolder() throws -> String {
        try FileManager.default.createDirectory(atPath: directory.file("clips/more"), withIntermediateDirectories: true)
        try Fixture.seedClip(at: directory.file("clips/001.aiff"), frequency: 300)
        try Fixture.seedClip(at: directory.file("clips/more/002.aiff"), frequency: 400)
        try Fixture.seedClip(at: directory.file("clips/beep.aiff"), frequency: 880)
        try Fixture.seedClip(at: directory.file("clips/stray.aiff"), frequency: 500)
        try
            "file\ttext\trole\n001.aiff\tGood morning\t\nmore/002\tDouble tap to open\t\nbeep\t\tfallback\nlost.aiff\tNever recorded\t\n"
            .write(toFile: directory.file("clips/transcript.tsv"), atomically: true, encoding: .utf8)
        return directory.file("clips")
    }

    // MARK: import --transcript

    @Test("import --transcript takes each file's phrase from its line, walks folders, and warns about the rest")
    func importTranscript() throws {
        try create()
        let clips = try clipsFolder()

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", clips + "/transcript.tsv", clips])

        #expect(result.status == 0)
        #expect(result.standardOutput.contains("3 imported"))
        #expect(
            result.standardError == """
                warning: \(clips)/transcript.tsv has no line for \(clips)/stray.aiff; not imported
                warning: \(clips)/transcript.tsv line 5 names lost.aiff, which is not among the files given

                """)
        let stored = try VoicePack(path: bank, access: .readOnly).clips()
        #expect(stored.map(\.phrase) == ["Good morning", "Double tap to open", "beep"])
        #expect(stored.map(\.isFallback) == [false, false, true])
    }

    @Test(
        "--transcript alone imports its own folder; --strict-transcript makes loose ends an error that stores nothing")
    func strictTranscript() throws {
        try create()
        let clips = try clipsFolder()

        let strict = try voicebank.run([
            "import", "--bank", bank, "--strict-transcript", "--transcript", clips + "/transcript.tsv",
        ])

        #expect(strict.status == 1)
        #expect(strict.standardError.split(separator: "\n").count == 1)
        #expect(strict.standardError.contains("no line for \(clips)/stray.aiff and no file for line 5 (lost.aiff)"))
        #expect(try VoicePack(path: bank, access: .readOnly).clips().isEmpty)

        let loose = try voicebank.run(["import", "--bank", bank, "--transcript", clips + "/transcript.tsv"])
        #expect(loose.status == 0)
        #expect(try VoicePack(path: bank, access: .readOnly).clips().count == 3)
    }

    @Test("a transcript in no known format is a one-line error naming it and the formats accepted")
    func badTranscript() throws {
        try create()
        let clips = try clipsFolder()
        try "just words\n".write(toFile: directory.file("t.txt"), atomically: true, encoding: .utf8)

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", directory.file("t.txt"), clips])

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: transcript \(directory.file("t.txt")): cannot tell its format from the first line \"just words\"; \(Transcript.expectedFormats)\n"
        )
    }

    @Test(
        "import's argument shapes are usage errors",
        arguments: [
            ["import", "--transcript", "t.tsv", "--text", "Hi", "a.wav"], ["import", "--strict-transcript", "a.wav"],
            ["import"],
        ])
    func importUsage(arguments: [String]) throws {
        #expect(try voicebank.run(arguments + ["--bank", bank]).status == 64)
    }
}

// MARK: export

extension PackToolsCLITests {
    /// A pack of two voices whose clips come in many formats: 16-bit AIFF, 24-bit stereo WAV, Float32 WAV,
    /// Float64 CAF, 16-bit FLAC, Ogg Vorbis, two takes from files of the same name, a fallback clip.
    func variedPack() throws -> VoicePack {
        let pack = try VoicePack(path: bank, access: .create)
        try pack.addVoice(
            Voice(
                identifier: "com.example.ann", name: "Ann's voice", primaryLanguages: ["en-US"],
                supportedLanguages: ["en-GB"]))
        try pack.addVoice(Voice(identifier: "com.example.ja", name: "Jun", primaryLanguages: ["ja-JP"], normalRate: 4))
        try FileManager.default.createDirectory(atPath: directory.file("in/other"), withIntermediateDirectories: true)
        func tone(_ frequency: Double, _ rate: Int, seconds: Double = 0.3) -> [Float] {
            Signal.sine(frequency: frequency, amplitude: 0.4, sampleRate: rate, frameCount: Int(seconds * Double(rate)))
        }
        let hello = try Fixture.seedClip(at: directory.file("in/Hello.aiff"))
        let take = try Fixture.seedClip(at: directory.file("in/other/Hello.aiff"), frequency: 520)
        let wide = try Fixture.write(
            Signal.interleave([tone(300, 48_000), tone(450, 48_000)]), to: directory.file("in/wide.wav"),
            format: .init(.wav, .pcm24), sampleRate: 48_000, channelCount: 2)
        let float = try Fixture.write(
            tone(600, 44_100), to: directory.file("in/float.wav"), format: .init(.wav, .float32), sampleRate: 44_100)
        let double = try Fixture.write(
            tone(700, 16_000), to: directory.file("in/double.caf"), format: .init(.caf, .float64), sampleRate: 16_000)
        let flac = try Fixture.write(
            tone(800, 32_000), to: directory.file("in/morning.flac"), format: .init(.flac, .pcm16), sampleRate: 32_000)
        let ogg = try Fixture.write(
            tone(900, 22_050, seconds: 0.5), to: directory.file("in/sung.ogg"), format: .init(.ogg, .vorbis),
            sampleRate: 22_050)
        let beep = try Fixture.seedClip(at: directory.file("in/beep.aiff"), frequency: 880)
        _ = try pack.importFiles(
            [
                ImportRequest(path: hello), ImportRequest(path: wide, phrase: "Hello, world!"),
                ImportRequest(path: take),
                ImportRequest(path: float), ImportRequest(path: double, phrase: "double\ttap"),
                ImportRequest(path: ogg),
                ImportRequest(path: beep, isFallback: true),
            ], into: "com.example.ann")
        _ = try pack.importFiles(
            [ImportRequest(path: flac, phrase: "設定"), ImportRequest(path: hello, phrase: "拡張")], into: "com.example.ja")
        return pack
    }

    @Test(
        "export, then create + import --transcript (its rebuild.sh) gives the same clips: phrases, original and render-ready PCM"
    )
    func exportRoundTrip() throws {
        let pack = try variedPack()
        // Settings away from the defaults must come back too.
        try pack.setTrimming(Trimming(thresholdDecibels: -40, padFrames: 441), voice: "com.example.ann")
        try pack.setJoins(Joins(edgeFadeFrames: 110, crossfadeFrames: 220), voice: "com.example.ann")
        try pack.setLoudnessTarget(LoudnessTarget(targetLUFS: -21, truePeakCeilingDBTP: -2), voice: "com.example.ann")
        let exported = directory.file("exported")

        let result = try voicebank.run(["export", "--bank", bank, exported])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("exported 7 clips of com.example.ann to \(exported)/com.example.ann"))
        #expect(
            result.standardError
                == "warning: clip #5's phrase has tabs or line breaks, written as spaces in the transcript (its phrase key is the same)\n"
        )
        let names = try FileManager.default.contentsOfDirectory(atPath: exported + "/com.example.ann").sorted()
        #expect(
            names == [
                "Hello-2.aiff", "Hello.aiff", "beep.aiff", "double.caf", "float.wav", "sung.wav", "transcript.tsv",
                "wide.wav",
            ])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                "exported", "in", "pack.sqlite",
            ] + (FileManager.default.fileExists(atPath: bank + "-wal") ? ["pack.sqlite-shm", "pack.sqlite-wal"] : []))
        let transcript = try String(contentsOfFile: exported + "/com.example.ann/transcript.tsv", encoding: .utf8)
        #expect(
            transcript.hasPrefix(
                "file\ttext\trole\tposition\nHello.aiff\tHello\t\t\nwide.wav\tHello, world!\t\t\nHello-2.aiff\tHello\t\t\n"
            ))
        #expect(transcript.hasSuffix("beep.aiff\tbeep\tfallback\t\n"))

        let copy = directory.file("copy.sqlite")
        let binaries = URL(fileURLWithPath: voicebank.path).deletingLastPathComponent().path
        let rebuild = Process()
        rebuild.executableURL = URL(fileURLWithPath: exported + "/rebuild.sh")
        rebuild.arguments = [copy]
        rebuild.environment = ["PATH": binaries + ":/usr/bin:/bin"]
        rebuild.standardOutput = FileHandle.nullDevice
        try rebuild.run()
        rebuild.waitUntilExit()
        #expect(rebuild.terminationStatus == 0)

        let rebuilt = try VoicePack(path: copy, access: .readOnly)
        #expect(try rebuilt.voices() == pack.voices())
        #expect(try rebuilt.voices()[0].trimming == Trimming(thresholdDecibels: -40, padFrames: 441))
        let before = try pack.clips()
        let after = try rebuilt.clips()
        #expect(after.map(\.phrase) == before.map { $0.phrase == "double\ttap" ? "double tap" : $0.phrase })
        #expect(after.map(\.phraseKey) == before.map(\.phraseKey))
        #expect(after.map(\.voice) == before.map(\.voice))
        #expect(after.map(\.isFallback) == before.map(\.isFallback))
        #expect(after.map(\.frameCount) == before.map(\.frameCount))
        #expect(after.map(\.source.sampleRate) == before.map(\.source.sampleRate))
        #expect(after.map(\.source.channelCount) == before.map(\.source.channelCount))
        #expect(after.map(\.originalEncoding) == before.map(\.originalEncoding))
        for (old, new) in zip(before, after) {
            #expect(try rebuilt.originalPCM(clipID: new.id) == pack.originalPCM(clipID: old.id), "clip \(old)")
            #expect(try rebuilt.renderReadyPCM(clipID: new.id) == pack.renderReadyPCM(clipID: old.id), "clip \(old)")
        }
        #expect(Set(before.map(\.originalEncoding)) == [.int16, .int32, .float32, .float64])
    }

    @Test("export --voice writes one voice; a folder that is not empty is refused and left as it was")
    func exportOneVoiceAndRefusals() throws {
        _ = try variedPack()
        let exported = directory.file("ja")

        let result = try voicebank.run(["export", "--bank", bank, "--voice", "com.example.ja", exported])

        #expect(result.status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: exported).sorted() == ["com.example.ja", "rebuild.sh"])
        let again = try voicebank.run(["export", "--bank", bank, exported])
        #expect(again.status == 1)
        #expect(
            again.standardError
                == "Error: cannot use \(exported): the folder is not empty; expected a new or empty folder to export into\n"
        )
        #expect(try voicebank.run(["export", "--bank", bank]).status == 64)
    }

    @Test("an export removes the hidden folder a killed export of the same folder left, and keeps a running one's")
    func exportRemovesAbandonedStaging() throws {
        _ = try variedPack()
        let exported = directory.file("exported")
        // A process that has ended: its PID names no process now.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = directory.file(".exported.partial-\(ended.processIdentifier)")
        let live = directory.file(".exported.partial-\(getpid())")
        for staging in [dead, live] {
            try FileManager.default.createDirectory(
                atPath: staging + "/com.example.ann", withIntermediateDirectories: true)
            try "half".write(toFile: staging + "/com.example.ann/001.aiff", atomically: false, encoding: .utf8)
        }

        let result = try voicebank.run(["export", "--bank", bank, exported])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live + "/com.example.ann/001.aiff"))
    }

    @Test("an export that fails part way leaves no folder and no partial files")
    func exportFailure() throws {
        let pack = try variedPack()
        let last = try #require(try pack.clips().last)
        try pack.database.execute("UPDATE clip SET source_sample_rate = 0 WHERE id = \(last.id)")
        let exported = directory.file("exported")

        let result = try voicebank.run(["export", "--bank", bank, exported])

        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot write audio file"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: exported))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix(".") }, "left behind: \(left)")
    }
}

// MARK: info and verify

extension PackToolsCLITests {
    /// Two voices: Ann with three -23 LUFS clips of 0.6 s, one short clip and a fallback; Ben with one clip, no fallback.
    func infoPack() throws -> VoicePack {
        try create()
        try create("com.example.ben", language: "en-GB")
        let pack = try VoicePack(path: bank, access: .readWrite)
        var requests: [ImportRequest] = []
        for (index, phrase) in ["one", "two", "three", "a"].enumerated() {
            let frames = phrase == "a" ? 4_800 : 14_400
            let path = try Fixture.write(
                Signal.sine(
                    frequency: 997, amplitude: 0.1, sampleRate: 24_000, frameCount: frames, phase: Double(index)),
                to: directory.file("\(phrase).wav"), format: .init(.wav, .pcm16), sampleRate: 24_000)
            requests.append(ImportRequest(path: path))
        }
        _ = try pack.importFiles(requests, into: "com.example.ann")
        _ = try pack.importFiles(
            [
                ImportRequest(
                    path: try Fixture.seedClip(at: directory.file("beep.aiff"), frequency: 880), isFallback: true)
            ], into: "com.example.ann")
        _ = try pack.importFiles(
            [ImportRequest(path: try Fixture.seedClip(at: directory.file("hi.aiff")))], into: "com.example.ben")
        return pack
    }

    @Test("info shows voices, clip counts, fallback, duration, loudness spread, schema version and size; --json too")
    func info() throws {
        _ = try infoPack()

        let text = try voicebank.run(["info", "--bank", bank])
        let json = try voicebank.run(["info", "--bank", bank, "--json"])

        #expect(text.status == 0)
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("\(bank): schema version \(Schema.currentVersion), ") == true)
        #expect(lines.first?.hasSuffix(" bytes, 2 voices") == true)
        #expect(lines.contains("  clips: 4 phrases, 1 fallback, 2.50 s of audio"))
        #expect(
            lines.contains(
                "  loudness: min -23.0, median -23.0, max -23.0 LUFS over 4 clips, 1 of them under 400 ms and measured ungated"
            ))
        #expect(lines.contains("  trimming: below -50.0 dBFS, keeping 30 ms (661 frames)"))
        #expect(lines.contains("  joins: edge fades of 2 ms (44 frames), no crossfade"))
        #expect(lines.contains("  loudness target: none, clips play at their recorded level"))
        #expect(
            lines.contains(
                "  clips: 1 phrase, 0 fallback (none: words no clip covers cannot be spoken), 0.50 s of audio"))
        #expect(json.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == Schema.currentVersion)
        #expect((object["fileBytes"] as? Int ?? 0) > 0)
        let voices = try #require(object["voices"] as? [[String: Any]])
        #expect(voices.map { $0["identifier"] as? String } == ["com.example.ann", "com.example.ben"])
        #expect(voices.map { $0["hasFallback"] as? Bool } == [true, false])
        #expect(voices.map { $0["phraseClips"] as? Int } == [4, 1])
        #expect(voices.map { $0["normalRate"] as? Double } == [1, 1])
        let loudness = try #require(voices[0]["loudness"] as? [String: Any])
        #expect(abs((loudness["medianLUFS"] as? Double ?? 0) - -23) < 0.05)
        #expect(loudness["shortClips"] as? Int == 1)
    }

    @Test("verify prints one line per problem and exits 1; a sound pack exits 0; --json gives the same problems")
    func verify() throws {
        let pack = try infoPack()

        let bad = try voicebank.run(["verify", "--bank", bank])
        let json = try voicebank.run(["verify", "--bank", bank, "--json"])

        #expect(bad.status == 1)
        #expect(
            bad.standardOutput
                == "no-fallback: voice com.example.ben: no fallback clip, so words no clip covers cannot be spoken; import one as the voice's fallback clip\n"
        )
        #expect(bad.standardError == "\(bank): 1 problem found\n")
        #expect(json.status == 1)
        let problems = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(problems.map { $0["kind"] as? String } == ["no-fallback"])
        #expect(problems.map { $0["voice"] as? String } == ["com.example.ben"])

        _ = try pack.importFiles(
            [ImportRequest(path: directory.file("beep.aiff"), isFallback: true)], into: "com.example.ben")
        let good = try voicebank.run(["verify", "--bank", bank])
        #expect(good.status == 0)
        #expect(good.standardOutput == "")
        #expect(good.standardError == "\(bank): no problems found\n")
    }

    @Test("the default pack verifies clean")
    func defaultPack() throws {
        let result = try voicebank.run(["verify", "--bank", ScreenReaderPack.path])
        #expect(result.status == 0, "\(result.standardOutput)")
    }
}

// MARK: remove

extension PackToolsCLITests {
    /// Ann: two takes of Hello, Good morning, a fallback beep (ids 1 to 4); Ben: one clip (id 5).
    func removalPack() throws -> VoicePack {
        try create()
        try create("com.example.ben", language: "en-GB")
        let pack = try VoicePack(path: bank, access: .readWrite)
        _ = try pack.importFiles(
            [
                ImportRequest(path: try Fixture.seedClip(at: directory.file("Hello.aiff"))),
                ImportRequest(
                    path: try Fixture.seedClip(at: directory.file("hello2.aiff"), frequency: 500), phrase: "hello"),
                ImportRequest(path: try Fixture.seedClip(at: directory.file("good_morning.aiff"), frequency: 600)),
                ImportRequest(
                    path: try Fixture.seedClip(at: directory.file("beep.aiff"), frequency: 880), isFallback: true),
            ], into: "com.example.ann")
        _ = try pack.importFiles([ImportRequest(path: directory.file("Hello.aiff"))], into: "com.example.ben")
        return pack
    }

    @Test("remove --phrase removes every take of the phrase in the voice and says what it removed")
    func removePhrase() throws {
        let pack = try removalPack()

        let result = try voicebank.run(["remove", "--bank", bank, "--voice", "com.example.ann", "--phrase", "HELLO!"])

        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                removed #1 com.example.ann "Hello" from Hello.aiff
                removed #2 com.example.ann "hello" from hello2.aiff
                2 clips removed from \(bank)

                """)
        #expect(try pack.clips().map(\.id) == [3, 4, 5])
    }

    @Test("remove --clip; an unknown id or phrase removes nothing")
    func removeClip() throws {
        let pack = try removalPack()

        let unknown = try voicebank.run(["remove", "--bank", bank, "--clip", "3", "--clip", "99"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError == "Error: no clip 99 in \(bank)\n")
        let phrase = try voicebank.run([
            "remove", "--bank", bank, "--voice", "com.example.ann", "--phrase", "good night",
        ])
        #expect(phrase.status == 1)
        #expect(
            phrase.standardError.hasPrefix(
                "Error: no clip with the phrase \"good night\" in voice com.example.ann of \(bank)"))
        #expect(try pack.clips().count == 5)

        let removed = try voicebank.run(["remove", "--bank", bank, "--clip", "3", "--clip", "5"])
        #expect(removed.status == 0)
        #expect(try pack.clips().map(\.id) == [1, 2, 4])
    }

    @Test("removing a voice's last fallback clip is refused unless --allow-no-fallback")
    func lastFallback() throws {
        let pack = try removalPack()

        let refused = try voicebank.run(["remove", "--bank", bank, "--clip", "4"])

        #expect(refused.status == 1)
        #expect(refused.standardError.split(separator: "\n").count == 1)
        #expect(refused.standardError.contains("the last fallback clip of voice com.example.ann"))
        #expect(try pack.clips().count == 5)
        let allowed = try voicebank.run(["remove", "--bank", bank, "--clip", "4", "--allow-no-fallback"])
        #expect(allowed.status == 0)
        #expect(allowed.standardOutput.hasPrefix("removed #4 com.example.ann \"beep\" (fallback) from beep.aiff\n"))
    }

    @Test("remove-voice removes a voice and its clips, and leaves the others")
    func removeVoice() throws {
        let pack = try removalPack()

        let result = try voicebank.run(["remove-voice", "--bank", bank, "--voice", "com.example.ann"])

        #expect(result.status == 0)
        #expect(
            result.standardOutput
                == "removed voice com.example.ann \"Ann\" en-US, fallback units and its 4 clips from \(bank)\n")
        #expect(try pack.voices().map(\.identifier) == ["com.example.ben"])
        #expect(try pack.clips().map(\.id) == [5])
        #expect(try pack.integrityCheck() == ["ok"])
        let unknown = try voicebank.run(["remove-voice", "--bank", bank, "--voice", "com.example.ann"])
        #expect(unknown.status == 1)
        #expect(
            unknown.standardError == "Error: no voice com.example.ann in \(bank); expected one of: com.example.ben\n")
    }

    @Test(
        "remove's argument shapes are usage errors",
        arguments: [
            ["remove"], ["remove", "--voice", "a.b", "--clip", "1"], ["remove-voice"], ["remove", "--clip", "x"],
        ])
    func removeUsage(arguments: [String]) throws {
        #expect(try voicebank.run(arguments + ["--bank", bank]).status == 64)
    }
}

// MARK: coverage

extension PackToolsCLITests {
    func coveragePack() throws {
        try create()
        let pack = try VoicePack(path: bank, access: .readWrite)
        var requests: [ImportRequest] = []
        for (index, phrase) in ["hello", "good morning", "settings"].enumerated() {
            requests.append(
                ImportRequest(
                    path: try Fixture.seedClip(at: directory.file("\(index).aiff"), seconds: 0.1), phrase: phrase))
        }
        requests.append(
            ImportRequest(path: try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.1), isFallback: true))
        _ = try pack.importFiles(requests, into: nil)
    }

    @Test(
        "coverage prints each input's segmentation, the fallbacks by count, the phone-pairs they need, the share covered"
    )
    func coverage() throws {
        try coveragePack()
        try "<speak>Bob <break/> good morning</speak>".write(
            toFile: directory.file("r.ssml"), atomically: true, encoding: .utf8)

        let result = try voicebank.run([
            "coverage", "--bank", bank, "Hello Bob, good morning. Settings!", "--file", directory.file("r.ssml"),
        ])

        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                text 1: hello | [bob] | good morning | settings
                \(directory.file("r.ssml")): [bob] | good morning
                fallbacks:
                  2\tbob
                words to record:
                  2\tbob
                phone-pairs to record:
                  2\tAA-B\tbob
                  2\tB-AA\tbob
                phone-pairs: 0 of 2 the fallbacks need (0.0 %)
                covered: 6 of 8 tokens (75.0 %)

                """)
    }

    @Test("coverage --json has the segmentation, pieces and counts")
    func coverageJSON() throws {
        try coveragePack()

        let result = try voicebank.run(["coverage", "--bank", bank, "--json", "hello Ann and Bob, hello Bob"])

        #expect(result.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let inputs = try #require(object["inputs"] as? [[String: Any]])
        #expect(inputs.map { $0["segmentation"] as? String } == ["hello | [ann and bob] | hello | [bob]"])
        let words = try #require(object["fallbackWords"] as? [[String: Any]])
        #expect(
            words.map { "\($0["count"] as? Int ?? 0) \($0["text"] as? String ?? "")" } == ["2 bob", "1 ann", "1 and"])
        #expect(object["tokens"] as? Int == 6)
        #expect(object["coveredTokens"] as? Int == 2)
        // "ann and bob", then "bob": AE-N, N-AE (across the words), AE-N, N-D, D-B, B-AA, AA-B, then B-AA, AA-B.
        let pairs = try #require(object["phonePairs"] as? [String: Any])
        let missing = try #require(pairs["missing"] as? [[String: Any]])
        #expect(pairs["needed"] as? Int == 6 && pairs["covered"] as? Int == 0)
        #expect(missing.first?["pair"] as? String == "AA-B" && missing.first?["count"] as? Int == 2)
        #expect(missing.contains { $0["pair"] as? String == "N-AE" && $0["words"] as? [String] == ["ann and"] })
    }

    @Test("coverage: malformed SSML names the input, line and column (exit 1); no input is a usage error (64)")
    func coverageErrors() throws {
        try coveragePack()

        let malformed = try voicebank.run(["coverage", "--bank", bank, "hello", "<speak>hello"])
        let missing = try voicebank.run(["coverage", "--bank", bank, "--file", directory.file("none.txt")])

        #expect(malformed.status == 1)
        #expect(malformed.standardError.hasPrefix("Error: text 2: malformed SSML at line 1, column"))
        #expect(malformed.standardError.split(separator: "\n").count == 1)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains(directory.file("none.txt")))
        #expect(try voicebank.run(["coverage", "--bank", bank]).status == 64)
    }
}
