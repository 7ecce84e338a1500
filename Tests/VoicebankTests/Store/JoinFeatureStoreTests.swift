// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechCore
import TestSupport
import Testing
import Units
import VoicebankAuthoring

@testable import Voicebank

/// Schema 12's join features in the store: a schema-11 pack with an aligned take read as it is and upgraded with its
/// features measured, an upgrade that fails part way, stored features no alignment writes, and a removed take.
@Suite struct JoinFeatureStoreTests {
    let directory = TemporaryDirectory("join-features")

    /// Three phones of a take aligned at schema 11, in frames of its whole conversion.
    static let phones = [
        AlignedTake.Segment(label: "HH", frames: 2_205..<3_300, word: 0),
        AlignedTake.Segment(label: "AY", frames: 3_300..<6_000, word: 0),
        AlignedTake.Segment(label: "S", frames: 6_000..<8_000, word: 1),
    ]

    /// A schema-11 pack with two clips: #1 says "hi so" (a 150 Hz voice, then noise for the S), aligned; #2 failed to
    /// align. Returns the pack and clip #1's whole conversion.
    func schema11Pack() throws -> (path: String, samples: [Float]) {
        let path = directory.file("eleven.sqlite")
        try makePack(version: 11, at: path)
        var samples = [Float](repeating: 0, count: 10_205)
        var seed: UInt64 = 7
        for frame in 2_205..<6_000 { samples[frame] = Float(0.2 * sin(2 * Double.pi * 150 * Double(frame) / 22_050)) }
        for frame in 6_000..<8_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1
            samples[frame] = Float(Int64(bitPattern: seed) >> 40) / Float(1 << 24) * 0.1
        }
        let database = try Database(path: path, mode: .readWrite)
        for (id, phrase) in [(1, "hi so"), (2, "no")] {
            try database.prepare(
                """
                INSERT INTO clip (id, voice_id, phrase, phrase_key, token_count, source_name, source_container,
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count,
                    original_encoding, original_pcm, content_hash, converter, frame_count, pcm)
                    VALUES (?1, 1, ?2, ?2, 2, 'hi.wav', 'WAV', 'Signed 16 bit PCM', 22050, 1, 1, 's16le', x'0100', ?1,
                    'best', ?3, ?4)
                """
            ).bind(.integer(id), .text(phrase), .integer(samples.count), .floats(samples)).run()
        }
        let phones = Self.phones.enumerated().map { index, phone in
            "(1, \(index), \(phone.word), '\(phone.label)', \(phone.frames.lowerBound), \(phone.frames.upperBound))"
        }
        try database.execute(
            """
            INSERT INTO alignment VALUES (1, 'test', -10, NULL), (2, 'test', NULL, 'it does not say its words');
            INSERT INTO aligned_word VALUES (1, 0, 'hi', 2205, 6000), (1, 1, 'so', 6000, 8000);
            INSERT INTO aligned_phone VALUES \(phones.joined(separator: ", "));
            INSERT INTO pitch_marks VALUES (1, x''), (2, x'');
            """)
        return (path, samples)
    }

    @Test("a schema-11 pack is read as it is, and upgraded with each aligned take's join features measured")
    func upgrade() throws {
        let (path, samples) = try schema11Pack()

        let read = try VoicePack(path: path, access: .readOnly)
        #expect(try read.schemaVersion == 11)
        #expect(try read.joinFeatures(clipID: 1) == nil)
        #expect(try read.clipIndex(voice: nil).alignedTakes().map(\.joinFeatures) == [nil])

        let pack = try VoicePack.openForChanges(path: path)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        let measured = JoinFeatures.measure(samples: samples, phones: Self.phones)
        #expect(measured.phoneCount == 3)
        #expect(try pack.joinFeatures(clipID: 1) == measured)
        #expect(try pack.joinFeatures(clipID: 2) == nil)
        let takes = try pack.clipIndex(voice: nil).alignedTakes()
        #expect(takes.map(\.joinFeatures) == [measured])
        #expect(takes.map(\.levelDecibels) == [0])
        // Voiced in the middle of AY, not in the middle of S.
        #expect(abs(measured.values[JoinFeatures.valuesPerPhone + JoinFeatures.f0Offset] - 150) < 5)
        #expect(measured.values[2 * JoinFeatures.valuesPerPhone + JoinFeatures.f0Offset] == 0)
        #expect(try pack.integrityCheck() == ["ok"])
    }

    @Test("an upgrade that fails after measuring the join features leaves the pack at schema 11, whole")
    func failedUpgrade() throws {
        let (path, _) = try schema11Pack()

        #expect(throws: VoicebankError.measurement("injected")) {
            try VoicePack(path: path, access: .readWrite) { pack, from throws(VoicebankError) in
                #expect(from == 11)
                #expect(try pack.measureJoinFeatures(voice: nil) == 1)
                throw .measurement("injected")
            }
        }

        #expect(try rows("PRAGMA user_version", on: path) == [["11"]])
        #expect(try rows("SELECT count(*) FROM sqlite_schema WHERE name = 'join_features'", on: path) == [["0"]])
        #expect(try rows("PRAGMA integrity_check", on: path) == [["ok"]])
        #expect(try VoicePack(path: path, access: .readOnly).clips().map(\.phrase) == ["hi so", "no"])
    }

    @Test(
        "stored features no alignment writes are refused with the clip named",
        arguments: [
            "x'00000000'",  // one value, not three phones' worth
            // Three phones' worth, the first phone's F0 -1 Hz (a little-endian Float32 after its 12 coefficients).
            "x'\(String(repeating: "00", count: 48))000080bf\(String(repeating: "00", count: 116))'",
            "x'\(String(repeating: "00", count: 48))0000c07f\(String(repeating: "00", count: 116))'",  // NaN
        ])
    func damagedFeatures(features: String) throws {
        let (path, _) = try schema11Pack()
        _ = try VoicePack.openForChanges(path: path)
        try execute("UPDATE join_features SET features = \(features) WHERE clip_id = 1", on: path)

        let pack = try VoicePack(path: path, access: .readOnly)

        #expect {
            _ = try pack.clipIndex(voice: nil).alignedTakes()
        } throws: { error in
            "\(error)".contains("join features of clip #1")
        }
    }

    @Test("a removed take takes its join features with it")
    func removal() throws {
        let (path, _) = try schema11Pack()
        let pack = try VoicePack.openForChanges(path: path)

        _ = try pack.removeClips(ids: [1])

        #expect(try rows("SELECT count(*) FROM join_features", on: path) == [["0"]])
    }
}
