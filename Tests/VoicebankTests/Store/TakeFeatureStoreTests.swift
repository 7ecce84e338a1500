// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import SpeechCore
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// Schema 8's take features in the store: the committed schema-7 pack read as it is and migrated, a migration that
/// fails part way, and stored values no import writes.
@Suite struct TakeFeatureStoreTests {
    /// Tests/Fixtures/packs/schema7.sqlite: made by `voicebank` of schema 7 (see the README beside it).
    static let schema7Pack = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/packs/schema7.sqlite").path

    let directory = TemporaryDirectory("take-features")

    /// A copy of the committed schema-7 pack, to open and change.
    func schema7Copy() throws -> String {
        let path = directory.file("seven.sqlite")
        try FileManager.default.copyItem(atPath: Self.schema7Pack, toPath: path)
        return path
    }

    func columnNames(_ path: String) throws -> [String] {
        try rows("PRAGMA table_info(clip)", on: path).compactMap { $0[1] }
    }

    @Test(
        "the committed schema-7 pack opens read-only as it is: nothing written, takes without features, audio as before"
    )
    func schema7ReadOnly() throws {
        let path = try schema7Copy()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let pack = try VoicePack(path: path, access: .readOnly)
        let index = try pack.clipIndex(voice: nil)
        let take = try #require(try index.takes(forPhraseKey: "hello").first)
        var buffer = [Float](repeating: .nan, count: take.frameCount)
        let read = try buffer.withUnsafeMutableBufferPointer { try index.readRenderReadyPCM(take, from: 0, into: $0) }

        #expect(try pack.schemaVersion == 7)
        #expect(!pack.hasTakeFeatures)
        #expect(take.frameCount == 2_205 && take.edges == nil && take.position == nil && take.cut == nil)
        #expect(try read == take.frameCount && buffer == pack.renderReadyPCM(clipID: take.clipID))
        #expect(try pack.clips().map(\.phrase) == ["hello", "good morning", "beep"])
        #expect(try pack.damage(clipID: take.clipID) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("opened for changes, the schema-7 pack is at schema 8 with every clip's features measured")
    func schema7Migrated() throws {
        let path = try schema7Copy()
        let pcmBefore = try VoicePack(path: path, access: .readOnly).renderReadyPCM(clipID: 1)

        let pack = try VoicePack.openForChanges(path: path)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        #expect(try rows("SELECT count(*) FROM clip WHERE is_features_measured = 0", on: path) == [["0"]])
        let index = try pack.clipIndex(voice: nil)
        // hello.wav is 100 ms of a 220 Hz sine at 8 kHz.
        let hello = try #require(try index.takes(forPhraseKey: "hello").first)
        let edges = try #require(hello.edges)
        #expect(abs(try #require(edges.firstF0Hz) - 220) / 220 < 0.01)
        #expect(abs(try #require(edges.lastF0Hz) - 220) / 220 < 0.01)
        #expect(edges.firstCepstrum.count == TakeEdges.cepstrumCount)
        #expect(index.fallbackTakes.allSatisfy { $0.edges != nil })
        #expect(try pack.renderReadyPCM(clipID: 1) == pcmBefore)
        #expect(try pack.integrityCheck() == ["ok"])
    }

    @Test("a migration that fails after measuring leaves the pack at schema 7, whole, and readable as before")
    func failedMigration() throws {
        let path = try schema7Copy()

        #expect(throws: VoicebankError.measurement("injected")) {
            try VoicePack(path: path, access: .readWrite) { pack, from throws(VoicebankError) in
                #expect(from == 7)
                #expect(try pack.measureTakeFeatures(voice: nil) == 3)
                throw .measurement("injected")
            }
        }

        #expect(try rows("PRAGMA user_version", on: path) == [["7"]])
        #expect(try !columnNames(path).contains("is_features_measured"))
        #expect(try rows("PRAGMA integrity_check", on: path) == [["ok"]])
        let reopened = try VoicePack(path: path, access: .readOnly)
        #expect(try reopened.clipIndex(voice: nil).takes(forPhraseKey: "good morning").count == 1)
    }

    @Test("migrate upgrades once, then measures only what is still unmeasured")
    func migrateAgain() throws {
        let path = try schema7Copy()

        let first = try VoicePack.migrate(path: path)
        try execute("UPDATE clip SET is_features_measured = 0 WHERE id = 2", on: path)
        let second = try VoicePack.migrate(path: path)
        let third = try VoicePack.migrate(path: path)

        let current = Schema.currentVersion
        #expect(first == MigrationReport(path: path, fromVersion: 7, toVersion: current, measuredClipCount: 3))
        #expect(second == MigrationReport(path: path, fromVersion: current, toVersion: current, measuredClipCount: 1))
        #expect(third.measuredClipCount == 0)
    }

    /// Stored values no import writes, each set by SQL (CHECK constraints off, as another program's table may have
    /// none), with the column the store names.
    static let damagedValues: [(sql: String, column: String)] = [
        ("position = 'sideways'", "position"),
        ("contour = 'upward'", "contour"),
        ("position = 3", "position"),
        ("first_f0_hz = -5", "first_f0_hz"),
        ("last_f0_hz = 0", "last_f0_hz"),
        ("first_energy_db = 1e999", "first_energy_db"),
        ("last_energy_db = NULL", "last_energy_db"),
        ("first_mfcc = x'00'", "first_mfcc"),
        ("last_mfcc = NULL", "last_mfcc"),
        // A NaN as the third coefficient: Float32 0x7FC00000, little-endian.
        (
            "first_mfcc = x'\(String(repeating: "00", count: 8))0000c07f\(String(repeating: "00", count: 40))'",
            "first_mfcc"
        ),
        ("recording = 7, cut_start = 10", "cut_end"),
        ("recording = 7, cut_start = -1, cut_end = 10", "cut_start"),
        ("recording = 7, cut_start = 10, cut_end = 10", "cut_end"),
        ("recording = NULL, cut_start = 0, cut_end = 10", "recording"),
    ]

    @Test(
        "a take feature no import writes is refused by rendering and by the check verify shares, naming its column",
        arguments: damagedValues.indices)
    func damagedValue(case index: Int) throws {
        let (sql, column) = Self.damagedValues[index]
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("hello.aiff"))
        let clip = try #require(try temporary.pack.importFiles([ImportRequest(path: path)], into: nil).imported.first)
        try execute("PRAGMA ignore_check_constraints = ON; UPDATE clip SET \(sql)", on: temporary.pack.path)

        let pack = try VoicePack(path: temporary.pack.path, access: .readOnly)
        let damage = try #require(try pack.damage(clipID: clip.id), "\(sql)")
        guard case .feature(let named, _, _) = damage else {
            Issue.record("\(sql): \(damage)")
            return
        }
        #expect(named == column, "\(sql): \(damage)")
        #expect(throws: VoicebankError.damagedClip(path: pack.path, clipID: clip.id, phrase: "hello", damage: damage)) {
            try pack.clipIndex(voice: nil).takes(forPhraseKey: "hello")
        }
        #expect(try pack.verify().contains { $0.kind == .damaged && $0.clipID == clip.id }, "\(sql)")
    }

    @Test("an unmeasured take is read without edges, its position and cut all the same")
    func unmeasuredTake() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("hello.aiff"))
        _ = try temporary.pack.importFiles([ImportRequest(path: path, position: .final)], into: nil)
        try execute(
            """
            UPDATE clip SET is_features_measured = 0, first_mfcc = x'00', recording = -3, cut_start = 100,
                cut_end = 5000
            """, on: temporary.pack.path)

        let take = try #require(try temporary.pack.clipIndex(voice: nil).takes(forPhraseKey: "hello").first)

        #expect(take.edges == nil && take.contour == nil)
        #expect(take.position == .final)
        #expect(take.cut == RecordingCut(recording: -3, startFrame: 100, endFrame: 5_000))
    }
}
