// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// Schema 11's pitch marks in the store: a schema-10 pack read as it is and upgraded, an upgrade that fails part way,
/// and stored marks no import writes.
@Suite struct PitchMarkStoreTests {
    let directory = TemporaryDirectory("pitch-marks")

    /// A schema-10 pack with one clip whose whole conversion is 0.1 s of silence, then half a second of a voice with a
    /// period of 150 frames (147 Hz) peaking at the first frame of each period, then silence.
    func schema10Pack() throws -> (path: String, voiced: Range<Int>) {
        let path = directory.file("ten.sqlite")
        try makePack(version: 10, at: path)
        let lead = 2_205
        var samples = [Float](repeating: 0, count: lead)
        for frame in 0..<11_025 {
            let phase = 2 * Double.pi * Double(frame) / 150
            samples.append(Float(0.15 * (1...10).reduce(0.0) { $0 + cos(Double($1) * phase) / Double($1) }))
        }
        samples += [Float](repeating: 0, count: lead)
        let database = try Database(path: path, mode: .readWrite)
        try database.prepare(
            """
            INSERT INTO clip (voice_id, phrase, phrase_key, token_count, source_name, source_container,
                source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
                original_pcm, content_hash, converter, frame_count, pcm)
                VALUES (1, 'Hi', 'hi', 1, 'hi.wav', 'WAV', 'Signed 16 bit PCM', 22050, 1, 1, 's16le', x'0100', 0,
                'best', ?1, ?2)
            """
        ).bind(.integer(samples.count), .floats(samples)).run()
        return (path, lead..<(lead + 11_025))
    }

    @Test("a schema-10 pack is read as it is, and upgraded with each take's pitch marks measured from its audio")
    func upgrade() throws {
        let (path, voiced) = try schema10Pack()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let read = try VoicePack(path: path, access: .readOnly)
        #expect(try read.schemaVersion == 10)
        #expect(try read.pitchMarks(clipID: 1) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let pack = try VoicePack.openForChanges(path: path)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        let marks = try #require(try pack.pitchMarks(clipID: 1))
        #expect(marks.count >= 65 && marks.count <= 74, "\(marks.count) marks")
        #expect(marks.allSatisfy { voiced.contains($0) && ($0 - voiced.lowerBound) % 150 == 0 })
        #expect(try pack.measureMissingPitchMarks(voice: nil) == 0)
        #expect(try pack.integrityCheck() == ["ok"])
    }

    @Test("an upgrade that fails after measuring the pitch marks leaves the pack at schema 10, whole")
    func failedUpgrade() throws {
        let (path, _) = try schema10Pack()

        #expect(throws: VoicebankError.measurement("injected")) {
            try VoicePack(path: path, access: .readWrite) { pack, from throws(VoicebankError) in
                #expect(from == 10)
                #expect(try pack.measurePitchMarks(voice: nil) == 1)
                throw .measurement("injected")
            }
        }

        #expect(try rows("PRAGMA user_version", on: path) == [["10"]])
        #expect(try rows("SELECT count(*) FROM sqlite_schema WHERE name = 'pitch_marks'", on: path) == [["0"]])
        #expect(try rows("PRAGMA integrity_check", on: path) == [["ok"]])
        #expect(try VoicePack(path: path, access: .readOnly).clips().map(\.phrase) == ["Hi"])
    }

    @Test(
        "stored marks no import writes are refused with the clip named",
        arguments: [
            "x'0100000001000000'",  // 1 twice: not increasing
            "x'0000010000'",  // not whole Int32s
            "x'ffffffff'",  // -1
            "x'00000100'",  // 65536, past the clip's end
        ])
    func damagedMarks(marks: String) throws {
        let (path, _) = try schema10Pack()
        _ = try VoicePack.openForChanges(path: path)
        try execute("UPDATE pitch_marks SET marks = \(marks) WHERE clip_id = 1", on: path)

        let pack = try VoicePack(path: path, access: .readOnly)

        #expect {
            _ = try pack.pitchMarks(clipID: 1)
        } throws: { error in
            "\(error)".contains("pitch marks of clip #1")
        }
    }

    @Test("a removed clip takes its pitch marks with it")
    func removal() throws {
        let (path, _) = try schema10Pack()
        let pack = try VoicePack.openForChanges(path: path)

        _ = try pack.removeClips(ids: [1])

        #expect(try rows("SELECT count(*) FROM pitch_marks", on: path) == [["0"]])
    }
}
