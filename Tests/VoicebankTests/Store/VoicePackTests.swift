// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// A temporary pack with one English voice.
struct TemporaryPack {
    let directory = TemporaryDirectory("voicepack")
    let pack: VoicePack
    static let voice = try! Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])

    init() throws {
        pack = try VoicePack(path: directory.file("pack.sqlite"), access: .create)
        try pack.addVoice(Self.voice)
    }

    func clipCount() throws -> Int { try pack.clips().count }
}

@Suite struct VoicePackTests {
    @Test("a new pack carries its schema version, application id and WAL mode")
    func schema() throws {
        let temporary = try TemporaryPack()
        #expect(try temporary.pack.schemaVersion == Schema.currentVersion)
        #expect(try temporary.pack.database.integer("PRAGMA application_id") == Schema.applicationID)
        let mode = try temporary.pack.database.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.text(0) == "wal")
        #expect(try temporary.pack.integrityCheck() == ["ok"])
    }

    @Test("voices keep their identifier, name and languages, in order")
    func voices() throws {
        let temporary = try TemporaryPack()
        let japanese = try Voice(
            identifier: "com.example.otoya", name: "Otoya", primaryLanguages: ["ja-jp"],
            supportedLanguages: ["en-us", "ja-JP"])
        try temporary.pack.addVoice(japanese)

        let reopened = try VoicePack(path: temporary.pack.path, access: .readOnly)
        #expect(try reopened.voices() == [TemporaryPack.voice, japanese])
        #expect(japanese.primaryLanguages == ["ja-JP"])
        #expect(japanese.supportedLanguages == ["ja-JP", "en-US"])
    }

    @Test("a voice identifier already in the pack is refused")
    func duplicateVoice() throws {
        let temporary = try TemporaryPack()
        #expect(throws: VoicebankError.duplicateVoice(identifier: "com.example.ann", path: temporary.pack.path)) {
            try temporary.pack.addVoice(TemporaryPack.voice)
        }
    }

    @Test(
        "identifiers must be reverse-DNS",
        arguments: ["ann", "com..ann", ".com.ann", "com.ann.", "com.an n", "com.ä.x", ""])
    func badIdentifier(identifier: String) {
        #expect(throws: VoicebankError.invalidIdentifier(identifier)) {
            try Voice(identifier: identifier, name: "Ann", primaryLanguages: ["en"])
        }
    }

    @Test("language tags are checked and written in their customary case")
    func languages() throws {
        #expect(try Voice.canonicalLanguageTag("zh-hant-tw") == "zh-Hant-TW")
        #expect(try Voice.canonicalLanguageTag("EN") == "en")
        #expect(try Voice.canonicalLanguageTag("es-419") == "es-419")
        #expect(try Voice.canonicalLanguageTag("en-US-x-twang") == "en-US-x-twang")
        for bad in ["", "e", "english!", "en_US", "en--US", "123", "en-toolongsubtag"] {
            #expect(throws: VoicebankError.invalidLanguage(bad)) { try Voice.canonicalLanguageTag(bad) }
        }
    }

    @Test("a file that is not SQLite, or another application's database, is not a voice pack")
    func notAPack() throws {
        let directory = TemporaryDirectory()
        let text = directory.file("notes.sqlite")
        try Data(repeating: 0x41, count: 8_192).write(to: URL(fileURLWithPath: text))
        #expect { try VoicePack(path: text, access: .readOnly) } throws: {
            guard case .notAVoicePack(text, let reason) = $0 as? VoicebankError else { return false }
            return reason.contains("not an SQLite database")
        }

        let other = directory.file("other.sqlite")
        try execute("CREATE TABLE t (x); PRAGMA user_version = 3", on: other)
        #expect { try VoicePack(path: other, access: .readWrite) } throws: {
            guard case .notAVoicePack(other, let reason) = $0 as? VoicebankError else { return false }
            return reason.contains("another application")
        }
    }

    // Found by `tools/fuzz pack`: one byte of the header changed made user_version -436207616, and opening the pack
    // indexed the migrations with it.
    @Test("a pack whose schema version is below 0 is refused, read-only or not", arguments: [-1, -436_207_616])
    func negativeSchemaVersion(_ version: Int) throws {
        let temporary = try TemporaryPack()
        try execute("PRAGMA user_version = \(version)", on: temporary.pack.path)
        for access in [VoicePack.Access.readOnly, .readWrite] {
            #expect(
                throws: VoicebankError.notAVoicePack(
                    path: temporary.pack.path, reason: "its schema version is \(version), which no voicebank writes")
            ) { try VoicePack(path: temporary.pack.path, access: access) }
        }
    }

    @Test("a pack from a newer schema is refused, never misread")
    func newerSchema() throws {
        let temporary = try TemporaryPack()
        try execute("PRAGMA user_version = \(Schema.currentVersion + 1)", on: temporary.pack.path)
        for access in [VoicePack.Access.readOnly, .readWrite, .create] {
            #expect(
                throws: VoicebankError.newerSchema(
                    path: temporary.pack.path, version: Schema.currentVersion + 1, supported: Schema.currentVersion)
            ) { try VoicePack(path: temporary.pack.path, access: access) }
        }
        #expect(
            VoicebankError.newerSchema(path: "p.sqlite", version: 2, supported: 1).description
                == "voice pack p.sqlite has schema version 2, newer than this voicebank reads (up to 1); update concat-synth to open it"
        )
    }

    @Test("a missing pack is an error unless it is to be created")
    func missing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("none.sqlite")
        #expect(throws: VoicebankError.noPack(path: path)) { try VoicePack(path: path, access: .readOnly) }
        #expect(throws: VoicebankError.noPack(path: path)) { try VoicePack(path: path, access: .readWrite) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
