// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct VerifyTests {
    /// A pack of three even clips and a fallback clip: nothing to find.
    func soundPack() throws -> TemporaryPack {
        let temporary = try TemporaryPack()
        var requests: [ImportRequest] = []
        for (index, phrase) in ["one", "two", "three"].enumerated() {
            let path = try Fixture.write(
                Signal.sine(
                    frequency: 300 + 100 * Double(index), amplitude: 0.1, sampleRate: 24_000, frameCount: 14_400),
                to: temporary.directory.file("\(phrase).wav"), format: .init(.wav, .pcm16), sampleRate: 24_000)
            requests.append(ImportRequest(path: path))
        }
        let beep = try Fixture.seedClip(at: temporary.directory.file("beep.aiff"), frequency: 880)
        requests.append(ImportRequest(path: beep, isFallback: true))
        _ = try temporary.pack.importFiles(requests, into: nil)
        return temporary
    }

    func add(
        _ samples: [Float], _ name: String, to temporary: TemporaryPack, format: AudioFileFormat = .init(.wav, .pcm16)
    ) throws -> Clip {
        let path = try Fixture.write(samples, to: temporary.directory.file(name), format: format, sampleRate: 24_000)
        return try #require(try temporary.pack.importFiles([ImportRequest(path: path)], into: nil).imported.first)
    }

    @Test("a sound pack has no problems")
    func clean() throws {
        #expect(try soundPack().pack.verify() == [])
    }

    @Test("a voice without a fallback clip")
    func noFallback() throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute("DELETE FROM clip WHERE is_fallback = 1")
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.noFallback])
        #expect(problems.first?.description.hasPrefix("no-fallback: voice com.example.ann: no fallback clip") == true)
    }

    @Test("a duplicate take: same phrase key, identical audio")
    func duplicateTake() throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute(
            """
            INSERT INTO clip (voice_id, phrase, phrase_key, token_count, is_fallback, source_name, source_container,
                source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
                original_pcm, content_hash, converter, frame_count, pcm)
            SELECT voice_id, 'TWO!', phrase_key, token_count, is_fallback, source_name, source_container,
                source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
                original_pcm, content_hash, converter, frame_count, pcm FROM clip WHERE phrase = 'two'
            """)
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.duplicateTake])
        #expect(problems.first?.clipID == 5)
        #expect(problems.first?.message.contains("same phrase key and audio as clip #2") == true)
    }

    @Test("a silent clip: peak below -60 dBFS")
    func silent() throws {
        let temporary = try soundPack()
        let clip = try add(
            Signal.sine(frequency: 440, amplitude: 0.0005, sampleRate: 24_000, frameCount: 12_000), "hush.wav",
            to: temporary)
        let problems = try temporary.pack.verify()
        // So quiet that it is also far below the voice's median.
        #expect(problems.map(\.kind) == [.silent, .loudness])
        #expect(problems.allSatisfy { $0.clipID == clip.id })
    }

    @Test(
        "a clipped clip: runs of full-scale samples in 16-bit, 24-bit and float originals",
        arguments: [AudioFileFormat(.wav, .pcm16), AudioFileFormat(.wav, .pcm24), AudioFileFormat(.wav, .float32)])
    func clipped(format: AudioFileFormat) throws {
        let temporary = try soundPack()
        var samples = Signal.sine(frequency: 440, amplitude: 0.1, sampleRate: 24_000, frameCount: 14_400)
        for index in 1_000..<1_004 { samples[index] = -1 }
        let clip = try add(samples, "loud.wav", to: temporary, format: format)
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.clipped])
        #expect(problems.first?.clipID == clip.id)
        #expect(
            problems.first?.message
                == "\"loud\" is clipped: 4 samples at full scale from frame 1000 of the original; record it again more softly"
        )
    }

    @Test("one full-scale sample is a peak, not clipping")
    func singlePeak() throws {
        let temporary = try soundPack()
        var samples = Signal.sine(frequency: 440, amplitude: 0.1, sampleRate: 24_000, frameCount: 14_400)
        samples[500] = 1
        samples[501] = 1
        _ = try add(samples, "peak.wav", to: temporary)
        #expect(try temporary.pack.verify() == [])
    }

    @Test("clips more than 6 LU louder or quieter than the voice's median, short ones measured looped")
    func loudness() throws {
        let temporary = try soundPack()
        let loud = try add(
            Signal.sine(frequency: 440, amplitude: 0.5, sampleRate: 24_000, frameCount: 14_400), "loud.wav",
            to: temporary)
        let quietShort = try add(
            Signal.sine(frequency: 440, amplitude: 0.02, sampleRate: 24_000, frameCount: 4_800), "quiet.wav",
            to: temporary)
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.loudness, .loudness])
        #expect(problems.map(\.clipID) == [loud.id, quietShort.id])
        #expect(problems[0].message.contains("LU louder than the voice's median"))
        #expect(problems[1].message.contains("LU quieter than the voice's median"))
    }

    @Test("a phrase key that is empty, or out of date with its phrase")
    func phraseKeys() throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute("UPDATE clip SET phrase_key = '' WHERE phrase = 'one'")
        try temporary.pack.database.execute("UPDATE clip SET phrase_key = 'hullo' WHERE phrase = 'two'")
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.phraseKey, .phraseKey])
        #expect(problems[0].message.contains("empty phrase key"))
        #expect(problems[1].message.contains("the phrase key \"hullo\", but the phrase normalises to \"two\""))
    }

    @Test("render-ready length off the rule, and an original blob shorter than its frames")
    func lengths() throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute("UPDATE clip SET source_sample_rate = 48000 WHERE phrase = 'one'")
        try temporary.pack.database.execute(
            "UPDATE clip SET original_pcm = substr(original_pcm, 1, 400) WHERE phrase = 'three'")
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.length, .length])
        #expect(
            problems[0].message.contains("has 13230 render-ready frames, but 14400 frames at 48000 Hz make 6615"))
        #expect(problems[1].message.contains("keeps 400 bytes of original audio"))
    }

    @Test(
        "source facts no import writes (a hand edit) are length problems, never a crash",
        arguments: [
            "source_frame_count = 9000000000000000000", "source_frame_count = -9000000000000000000",
            "source_channel_count = 4000000000000000000", "source_sample_rate = 9000000000000000000",
            "source_sample_rate = -7",
        ])
    func impossibleSourceFacts(edit: String) throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute("UPDATE clip SET \(edit) WHERE phrase = 'one'")
        let problems = try temporary.pack.verify()
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.kind == .length && $0.message.hasPrefix("\"one\" ") }, "\(problems)")
    }

    @Test("frame counts past the blob are damage, reported as rendering refuses them, and measured no further")
    func pastTheBlob() throws {
        let temporary = try soundPack()
        try temporary.pack.database.execute("UPDATE clip SET frame_count = frame_count + 1 WHERE phrase = 'one'")
        try temporary.pack.database.execute("UPDATE clip SET pcm = substr(pcm, 1, 400) WHERE phrase = 'two'")
        let problems = try temporary.pack.verify()
        #expect(problems.map(\.kind) == [.damaged, .damaged])
        #expect(
            problems[0].message
                == "\"one\" cannot be spoken: it plays 13231 frames from frame 0, but its render-ready audio holds 13230 frames; remove it and import it again"
        )
        #expect(problems[1].message.contains("holds 100 frames"))
        let one = try #require(try temporary.pack.clips().first { $0.phrase == "one" })
        #expect(
            throws: VoicebankError.damagedClip(
                path: temporary.pack.path, clipID: one.id, phrase: "one",
                damage: .pastEnd(firstFrame: 0, frameCount: 13_231, storedFrameCount: 13_230))
        ) { try temporary.pack.renderReadyPCM(clipID: one.id) }
    }

    @Test("damage SQLite's integrity check finds: an index that disagrees with its table")
    func integrity() throws {
        let temporary = try soundPack()
        let path = temporary.pack.path
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        let sql = """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE INDEX clip_by_content ON clip(voice_id, frame_count)' WHERE name = 'clip_by_content';
            PRAGMA writable_schema = OFF;
            """
        #expect(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)

        let problems = try VoicePack(path: path, access: .readOnly).verify()

        // Reads through the damaged index may report more; the integrity line must be there.
        #expect(problems.contains { $0.kind == .integrity && $0.message.contains("clip_by_content") })
    }
}
