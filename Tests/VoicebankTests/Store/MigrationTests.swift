// SPDX-License-Identifier: GPL-3.0-or-later
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

    @Test("a version 6 pack is upgraded: its voices speak the fallback clip, their loudness medians worked out")
    func fromVersion6() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("six.sqlite")
        try makePack(version: 6, at: path)
        var clips: [String] = []
        // Phrase clips at -30, -20, -10 and unmeasured; a fallback clip at -5 that the median leaves out.
        for (index, (loudness, isFallback)) in [("-30.0", 0), ("-10.0", 0), ("-20.0", 0), ("NULL", 0), ("-5.0", 1)]
            .enumerated()
        {
            clips.append(
                """
                INSERT INTO clip (voice_id, phrase, phrase_key, token_count, is_fallback, source_name, source_container,
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count,
                    original_encoding, original_pcm, content_hash, converter, frame_count, pcm, loudness_lufs,
                    is_loudness_measured)
                    VALUES (1, 'p\(index)', 'p\(index)', 1, \(isFallback), 'p.wav', 'WAV', 'Signed 16 bit PCM', 22050,
                    1, 1, 's16le', x'0100', \(index), 'best', 1, x'0000803f', \(loudness), 1);
                """)
        }
        try execute(clips.joined(), on: path)

        let pack = try VoicePack(path: path, access: .readOnly)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        let voice = try #require(try pack.voices().first)
        #expect(voice.fallbackMode == .clip)
        #expect(voice.medianLoudnessLUFS == -20)
        #expect(voice.medianF0Hz == nil)
        #expect(voice.fallbackVoice == .standard)
        #expect(voice.settings.fallbackVoice.loudnessLUFS == -20)
    }

    @Test("a version 9 pack is upgraded: it gains the alignment tables, empty, and keeps its clips unaligned")
    func fromVersion9() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("nine.sqlite")
        try makePack(version: 9, at: path)
        try execute(
            """
            INSERT INTO clip (voice_id, phrase, phrase_key, token_count, source_name, source_container,
                source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
                original_pcm, content_hash, converter, frame_count, pcm)
                VALUES (1, 'Hi', 'hi', 1, 'hi.wav', 'WAV', 'Signed 16 bit PCM', 22050, 1, 1, 's16le', x'0100', 0,
                'best', 1, x'0000803f');
            """, on: path)

        // Read-only, it is read as it is: no alignments.
        let read = try VoicePack(path: path, access: .readOnly)
        #expect(try read.schemaVersion == 9)
        #expect(try read.alignment(clipID: 1) == nil)
        #expect(try read.failedAlignments().isEmpty)

        let pack = try VoicePack(path: path, access: .readWrite)

        #expect(try pack.schemaVersion == Schema.currentVersion)
        #expect(try pack.clips().map(\.phrase) == ["Hi"])
        #expect(try pack.alignment(clipID: 1) == nil)
        for table in ["alignment", "aligned_word", "aligned_phone"] {
            #expect(try rows("SELECT count(*) FROM \(table)", on: path) == [["0"]], "\(table)")
        }
    }

    @Test("a fallback mode or fallback-voice setting no voicebank writes is refused when the pack is read")
    func damagedFallback() throws {
        let temporary = try TemporaryPack()
        let path = temporary.pack.path
        for (column, value) in [
            ("fallback_mode", "'beep'"), ("fallback_variant", "'f3; rm'"), ("fallback_pitch", "101"),
            ("fallback_words_per_minute", "5000"), ("median_loudness_lufs", "40"),
            ("fallback_spoken_loudness_lufs", "40"),
        ] {
            try execute("UPDATE voice SET \(column) = \(value)", on: path)
            #expect(throws: VoicebankError.self, "\(column) = \(value)") {
                try VoicePack(path: path, access: .readOnly).voices()
            }
            try execute(
                """
                UPDATE voice SET fallback_mode = 'clip', fallback_variant = '', fallback_pitch = 50,
                    fallback_words_per_minute = 175, median_loudness_lufs = NULL, fallback_spoken_loudness_lufs = NULL
                """, on: path)
        }
        #expect(try VoicePack(path: path, access: .readOnly).voices().count == 1)
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
