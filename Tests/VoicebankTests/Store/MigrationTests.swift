import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct MigrationTests {
    @Test("a version 1 pack is upgraded on open, keeping its voices and clips")
    func fromVersion1() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try execute(
            Schema.migrations[0] + """
                INSERT INTO voice (identifier, name, primary_languages, supported_languages)
                    VALUES ('com.example.old', 'Old', 'en-US', 'en-US');
                INSERT INTO clip (voice_id, phrase, phrase_key, token_count, source_name, source_container,
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count,
                    original_encoding, original_pcm, content_hash, converter, frame_count, pcm)
                    VALUES (1, 'Hi', 'hi', 1, 'hi.wav', 'WAV', 'Signed 16 bit PCM', 22050, 1, 1, 's16le', x'0100', 0,
                    'best', 1, x'0000803f');
                PRAGMA application_id = \(Schema.applicationID);
                PRAGMA user_version = 1;
                """, on: path)

        let pack = try VoicePack(path: path, access: .readOnly)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        #expect(try pack.voices().map(\.normalRate) == [1])
        #expect(try pack.clips().map(\.phrase) == ["Hi"])
        #expect(try pack.renderReadyPCM(clipID: 1) == [1])
        // The upgrade is in the file itself: no WAL frames are left to be paired with another file later.
        let wal = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        #expect(wal == nil || wal == 0)
    }

    @Test("a voice's normal rate is stored and can be changed")
    func normalRate() throws {
        let temporary = try TemporaryPack()
        try temporary.pack.addVoice(
            Voice(identifier: "com.example.fast", name: "Fast", primaryLanguages: ["ja"], normalRate: 4))
        try temporary.pack.setNormalRate(2.5, voice: "com.example.ann")
        #expect(try temporary.pack.voices().map(\.normalRate) == [2.5, 4])
        #expect(throws: VoicebankError.invalidNormalRate(0)) {
            try temporary.pack.setNormalRate(0, voice: "com.example.ann")
        }
        #expect(throws: VoicebankError.invalidNormalRate(25)) {
            try Voice(identifier: "a.b", name: "B", primaryLanguages: ["en"], normalRate: 25)
        }
    }
}
