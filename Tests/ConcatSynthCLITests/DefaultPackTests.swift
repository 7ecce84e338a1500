import AudioIO
import Foundation
import Testing

@testable import Voicebank

/// The committed default pack against its committed sources (voicebank/sources/*.tsv and clips).
@Suite struct DefaultPackTests {
    static let root = URL(fileURLWithPath: VoicePackLocation.defaultPackPath).deletingLastPathComponent().path

    struct Row {
        var file: String
        var text: String
        var isFallback: Bool
    }

    static func transcript(_ name: String) throws -> [Row] {
        let text = try String(contentsOfFile: "\(root)/sources/\(name).tsv", encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: fields[0], text: fields[1], isFallback: fields.count > 3 && fields[3] == "fallback")
        }
    }

    @Test(
        "the committed pack holds exactly its sources' clips, phrases and audio",
        arguments: [
            ("org.concatsynth.en", "en"), ("org.concatsynth.ja", "ja"),
        ])
    func matchesSources(voice: String, transcript: String) throws {
        let pack = try VoicePack(path: VoicePackLocation.defaultPackPath, access: .readOnly)
        let trimming = try pack.resolveVoice(voice).trimming
        let rows = try Self.transcript(transcript)
        let clips = try pack.clips(voice: voice)

        #expect(clips.count == rows.count)
        #expect(rows.filter(\.isFallback).count == 1)
        for (row, clip) in zip(rows, clips) {
            #expect(clip.sourceName == URL(fileURLWithPath: row.file).lastPathComponent)
            #expect(clip.isFallback == row.isFallback)
            if !row.isFallback { #expect(clip.phrase == row.text) }
            let source = try PreparedClip(path: "\(Self.root)/sources/\(row.file)")
            #expect(try pack.originalPCM(clipID: clip.id) == source.original, "\(row.file)")
            var conditioned = source.renderReady
            ClipConditioning.removeDC(&conditioned)
            let played = ClipConditioning.playedRange(conditioned, trimming: trimming)
            #expect(try pack.renderReadyPCM(clipID: clip.id) == Array(conditioned[played]), "\(row.file)")
        }
    }

    @Test("the default pack's sources are in the seed's format: 24 kHz 16-bit mono AIFF")
    func sourceFormat() throws {
        for row in try Self.transcript("en") + Self.transcript("ja") {
            let source = try PreparedClip(path: "\(Self.root)/sources/\(row.file)").source
            #expect(source.sampleRate == 24_000 && source.channelCount == 1, "\(row.file)")
            #expect(source.container.hasPrefix("AIFF") && source.sampleFormat == "Signed 16 bit PCM", "\(row.file)")
        }
    }

    @Test("the committed pack is at the current schema version, so opening it never rewrites a clone's file")
    func currentSchema() throws {
        // Read the committed file from git, not the working tree, which another test may have opened already.
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", Self.root, "show", "HEAD:voicebank/default.sqlite"]
        let output = Pipe()
        git.standardOutput = output
        git.standardError = FileHandle.nullDevice
        try git.run()
        let header = output.fileHandleForReading.readDataToEndOfFile().prefix(100)
        git.waitUntilExit()
        try #require(git.terminationStatus == 0 && header.count == 100, "not a git checkout with the pack committed")
        // SQLite keeps `PRAGMA user_version` at bytes 60–63 of the header, big-endian.
        let version = header.dropFirst(60).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(
            version == Schema.currentVersion,
            "the committed default pack is schema \(version): run tools/build-default-pack")
    }
}
