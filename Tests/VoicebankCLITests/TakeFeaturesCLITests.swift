// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import SpeechCore
import TestSupport
import Testing

@testable import Voicebank

/// Takes that fit their place, as `voicebank` builds them: positions from file names, transcripts and `--position`;
/// takes cut from one recording; `voicebank migrate` of a pack from schema 7, whole or killed part way.
@Suite struct TakeFeaturesCLITests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("take-features-cli")
    var bank: String { directory.file("pack.sqlite") }

    func create() throws {
        let created = try voicebank.run(
            ["create", "--bank", bank, "--voice", "com.example.ann", "--name", "Ann", "--language", "en-US"])
        try #require(created.status == 0, "\(created.standardError)")
    }

    func clipCount() throws -> Int { try VoicePack(path: bank, access: .readOnly).clips().count }

    func listJSON() throws -> [[String: Any]] {
        let listed = try voicebank.run(["list", "--bank", bank, "--json"])
        try #require(listed.status == 0, "\(listed.standardError)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
    }

    @Test("prefixes and --position tag takes; list and info show positions and contours")
    func positions() throws {
        try create()
        let final = try Fixture.seedClip(at: directory.file("e.hello.aiff"))
        let question = try Fixture.seedClip(at: directory.file("q.hello.aiff"), frequency: 330)
        let initial = try Fixture.seedClip(at: directory.file("hello.aiff"), frequency: 550)
        let untagged = try Fixture.seedClip(at: directory.file("goodbye.aiff"), frequency: 660)

        let prefixed = try voicebank.run(["import", "--bank", bank, final, question])
        let given = try voicebank.run(["import", "--bank", bank, "--position", "initial", initial])
        let plain = try voicebank.run(["import", "--bank", bank, untagged])
        let listed = try voicebank.run(["list", "--bank", bank])
        let info = try voicebank.run(["info", "--bank", bank])
        let infoJSON = try voicebank.run(["info", "--bank", bank, "--json"])

        #expect([prefixed.status, given.status, plain.status] == [0, 0, 0])
        #expect(prefixed.standardOutput.contains("imported e.hello.aiff as #1 \"hello\" (final)"))
        let clips = try listJSON()
        #expect(clips.map { $0["phrase"] as? String } == ["hello", "hello", "hello", "goodbye"])
        #expect(clips.map { $0["position"] as? String } == ["final", "question", "initial", nil])
        #expect(clips.allSatisfy { $0.keys.contains("position") && $0.keys.contains("contour") && $0["cut"] is NSNull })
        // Steady tones: their pitch neither rises nor falls.
        #expect(clips.map { $0["contour"] as? String } == ["level", "level", "level", "level"])
        let lines = listed.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasSuffix("\te.hello.aiff\tfinal\tlevel") == true, "\(listed.standardOutput)")
        #expect(lines.last?.hasSuffix("\tgoodbye.aiff\t-\tlevel") == true, "\(listed.standardOutput)")
        #expect(info.standardOutput.contains("  positions: 1 initial, 1 final, 1 question, 1 untagged"))
        let voices = try #require(
            (try JSONSerialization.jsonObject(with: Data(infoJSON.standardOutput.utf8)) as? [String: Any])?["voices"]
                as? [[String: Any]])
        #expect(
            voices.first?["takesByPosition"] as? [String: Int]
                == ["initial": 1, "medial": 0, "final": 1, "question": 1, "untagged": 1])
        #expect(voices.first?["unmeasuredTakeFeatures"] as? Int == 0)
    }

    /// Runs `voicebank import ARGUMENTS` expecting a one-line error that contains `message`, and nothing imported.
    func refused(_ arguments: [String], _ message: String) throws {
        let result = try voicebank.run(["import", "--bank", bank] + arguments)
        #expect(result.status == 1, "\(arguments)")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(message), "\(result.standardError)")
        #expect(try clipCount() == 0)
    }

    @Test("a transcript line with an unknown position: one line naming the transcript and line; nothing imported")
    func unknownPosition() throws {
        try create()
        try FileManager.default.createDirectory(atPath: directory.file("takes"), withIntermediateDirectories: true)
        _ = try Fixture.seedClip(at: directory.file("takes/a.aiff"))
        _ = try Fixture.seedClip(at: directory.file("takes/b.aiff"), frequency: 330)
        let transcript = directory.file("takes/transcript.csv")
        try "file,text,position\na,Hello,final\nb,Hello,endish\n".write(
            toFile: transcript, atomically: true, encoding: .utf8)

        try refused(
            ["--transcript", transcript],
            "transcript \(transcript) line 3: unknown position \"endish\"; expected initial, medial, final, question or nothing"
        )
    }

    @Test(
        "a file name with a prefix in a folder imported with its transcript: one line naming the line; nothing imported"
    )
    func prefixWithTranscript() throws {
        try create()
        try FileManager.default.createDirectory(atPath: directory.file("takes"), withIntermediateDirectories: true)
        _ = try Fixture.seedClip(at: directory.file("takes/hello.aiff"))
        _ = try Fixture.seedClip(at: directory.file("takes/e.bye.aiff"), frequency: 330)
        let transcript = directory.file("takes/transcript.tsv")
        try "file\ttext\nhello\tHello\ne.bye\tBye\n".write(toFile: transcript, atomically: true, encoding: .utf8)

        try refused(
            ["--transcript", transcript, "--keep-going"],
            "transcript \(transcript) line 3: the file \(directory.file("takes/e.bye.aiff")) is tagged final by its name's prefix e."
        )
    }

    @Test("--position that a file name's prefix contradicts, or with --fallback, is refused; nothing imported")
    func positionConflicts() throws {
        try create()
        let final = try Fixture.seedClip(at: directory.file("e.hello.aiff"))
        let plain = try Fixture.seedClip(at: directory.file("hello.aiff"), frequency: 330)

        try refused(["--position", "medial", plain, final], "cannot import \(final): its name tags it final (e.)")
        let usage = try voicebank.run(["import", "--bank", bank, "--fallback", "--position", "final", plain])
        #expect(usage.status == 64)
        let unknown = try voicebank.run(["import", "--bank", bank, "--position", "last", plain])
        #expect(unknown.status == 64 && unknown.standardError.contains("last"))
        #expect(try clipCount() == 0)
    }

    @Test("--labels cuts espeak-ng's words out of one recording sox made: each a clip that knows its cut")
    func labels() throws {
        try create()
        var words: [String] = []
        for word in ["one", "two", "three"] {
            let path = directory.file("\(word).wav")
            let spoken = try requireTool("espeak-ng", package: "espeak-ng").run(["-w", path, word])
            try #require(spoken.status == 0, "\(spoken.standardError)")
            words.append(path)
        }
        let session = directory.file("session.wav")
        let joined = try requireTool("sox", package: "sox").run(words + [session])
        try #require(joined.status == 0, "\(joined.standardError)")
        var frames = [0]
        for word in words { frames.append(frames.last! + (try PreparedClip(path: word).source.frameCount)) }
        let rate = Double(try PreparedClip(path: session).source.sampleRate)
        // Audacity writes six decimals, which give back each frame at this rate.
        let labels = zip(["s.one", "two", "e.three"], zip(frames, frames.dropFirst())).map { label, cut in
            "\(String(format: "%.6f", Double(cut.0) / rate))\t\(String(format: "%.6f", Double(cut.1) / rate))\t\(label)\n"
        }
        let labelFile = directory.file("session.txt")
        try labels.joined().write(toFile: labelFile, atomically: true, encoding: .utf8)

        let imported = try voicebank.run(["import", "--bank", bank, "--labels", labelFile, session])

        #expect(imported.status == 0, "\(imported.standardError)")
        let clips = try listJSON()
        #expect(clips.map { $0["phrase"] as? String } == ["one", "two", "three"])
        #expect(clips.map { $0["position"] as? String } == ["initial", nil, "final"])
        let cuts = clips.map { $0["cut"] as? [String: Any] }
        #expect(cuts.map { $0?["startFrame"] as? Int } == frames.dropLast().map { Optional($0) })
        #expect(cuts.map { $0?["endFrame"] as? Int } == frames.dropFirst().map { Optional($0) })
        #expect(Set(cuts.compactMap { $0?["recording"] as? Int }).count == 1)
        let index = try VoicePack(path: bank, access: .readOnly).clipIndex(voice: nil)
        let one = try #require(try index.takes(forPhraseKey: "one").first?.cut)
        let two = try #require(try index.takes(forPhraseKey: "two").first?.cut)
        #expect(one.isFollowed(by: two))
        // A label track naming a time past the recording: one line naming the line, and nothing more imported.
        try "0.0\t0.5\tfour\n0.5\t99.0\tfive\n".write(toFile: labelFile, atomically: true, encoding: .utf8)
        let past = try voicebank.run(["import", "--bank", bank, "--labels", labelFile, session])
        #expect(past.status == 1 && past.standardError.contains("labels \(labelFile) line 2: the label ends at 99.0 s"))
        #expect(try clipCount() == 3)
    }

    /// Tests/Fixtures/packs/schema7.sqlite (see its README), copied to `name`.
    func schema7Copy(_ name: String) throws -> String {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/packs/schema7.sqlite").path
        let path = directory.file(name)
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return path
    }

    @Test(
        "migrate takes the committed schema-7 pack to the current schema, once; concat-synth renders it before and after"
    )
    func migrate() throws {
        let pack = try schema7Copy("seven.sqlite")
        let before = try concatSynth.run(["render", "--bank", pack, "-o", directory.file("before.wav"), "hello"])

        let first = try voicebank.run(["migrate", "--bank", pack])
        let second = try voicebank.run(["migrate", "--bank", pack])
        let after = try concatSynth.run(["render", "--bank", pack, "-o", directory.file("after.wav"), "hello"])

        #expect(before.status == 0 && after.status == 0, "\(before.standardError)\(after.standardError)")
        #expect(
            first.standardOutput
                == "\(pack): schema 7 → \(Schema.currentVersion); measured the take features of 3 clips\n")
        #expect(
            second.standardOutput
                == "\(pack): schema \(Schema.currentVersion) already; measured the take features of 0 clips\n")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: directory.file("before.wav")))
                == Data(contentsOf: URL(fileURLWithPath: directory.file("after.wav"))))
    }

    /// A schema-7 pack of the committed one's clips and `copies` more of its "hello" (SQL, as a big pack would be).
    func bigSchema7Pack(copies: Int) throws -> String {
        let path = try schema7Copy("big.sqlite")
        let columns = try rows("PRAGMA table_info(clip)", on: path).compactMap { $0[1] }.filter { $0 != "id" }
            .joined(separator: ", ")
        try execute(
            """
            WITH RECURSIVE copy(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM copy WHERE n < \(copies))
            INSERT INTO clip (\(columns)) SELECT \(columns) FROM copy, clip WHERE clip.id = 1;
            PRAGMA wal_checkpoint(TRUNCATE);
            """, on: path)
        return path
    }

    @Test("a migrate killed part way leaves the pack at schema 7, sound, and rendering as before")
    func killedMigrate() throws {
        let base = try bigSchema7Pack(copies: 1_500)
        let timed = directory.file("timed.sqlite")
        try FileManager.default.copyItem(atPath: base, toPath: timed)
        let start = Date()
        let whole = try voicebank.run(["migrate", "--bank", timed])
        let runSeconds = Date().timeIntervalSince(start)
        #expect(
            whole.standardOutput.hasSuffix(
                "schema 7 → \(Schema.currentVersion); measured the take features of 1503 clips\n"))

        var killedRunning = 0
        var leftOld = 0
        for attempt in 0..<5 {
            let pack = directory.file("killed\(attempt).sqlite")
            try FileManager.default.copyItem(atPath: base, toPath: pack)
            let process = try voicebank.start(["migrate", "--bank", pack])
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(runSeconds * (0.2 + 0.15 * Double(attempt)) * 1_000_000))
            if process.isRunning { killedRunning += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard process.terminationReason == .uncaughtSignal else { continue }

            #expect(try rows("PRAGMA integrity_check", on: pack) == [["ok"]])
            // A kill after the commit, before the process ends, finds the migration whole; any other, the old pack.
            if try rows("PRAGMA user_version", on: pack) == [["\(Schema.currentVersion)"]] {
                let unmeasured = "SELECT count(*) FROM clip WHERE is_fallback = 0 AND is_features_measured = 0"
                #expect(try rows(unmeasured, on: pack) == [["0"]], "attempt \(attempt)")
                let unmarked = "SELECT count(*) FROM clip WHERE id NOT IN (SELECT clip_id FROM pitch_marks)"
                #expect(try rows(unmarked, on: pack) == [["0"]], "attempt \(attempt)")
            } else {
                leftOld += 1
                #expect(try rows("PRAGMA user_version", on: pack) == [["7"]], "attempt \(attempt)")
                #expect(try !rows("PRAGMA table_info(clip)", on: pack).contains { $0[1] == "position" })
            }
            let rendered = try concatSynth.run([
                "render", "--bank", pack, "-o", directory.file("k\(attempt).wav"), "hello",
            ])
            #expect(rendered.status == 0, "\(rendered.standardError)")
        }
        // The kills must have landed inside runs, or the test proved little. They come at fixed fractions of the
        // timed run, so on a loaded machine, where a run takes longer, more land inside; these counts fail only if
        // the runs went several times as fast as the timed one.
        #expect(killedRunning >= 2, "a migrate took \(runSeconds) s here")
        #expect(leftOld >= 1, "a migrate took \(runSeconds) s here")
    }
}
