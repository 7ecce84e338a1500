// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct ExportTests {
    @Test("an export writes each voice's files and transcript whole, and nothing else beside the folder")
    func export() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"), seconds: 0.2)
        _ = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        let folder = temporary.directory.file("exported")

        let report = try temporary.pack.export(to: folder)

        #expect(report.voices.map(\.folder) == [folder + "/com.example.ann"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["com.example.ann", "rebuild.sh"])
        #expect(
            try String(contentsOfFile: folder + "/com.example.ann/transcript.tsv", encoding: .utf8)
                == "file\ttext\trole\tposition\nHello.aiff\tHello\t\t\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.directory.path)
        #expect(!left.contains { $0.hasPrefix(".") }, "left behind: \(left)")
    }

    @Test(
        "a source rate or channel count no file holds (a hand edit) fails the export with an error, leaving nothing",
        arguments: ["source_sample_rate = 9000000000000000000", "source_channel_count = 4000000000000000000"])
    func impossibleSource(edit: String) throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"), seconds: 0.2)
        _ = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        try temporary.pack.database.execute("UPDATE clip SET \(edit)")
        let folder = temporary.directory.file("exported")

        let error = try #require(throws: AuthoringError.self) { try temporary.pack.export(to: folder) }

        guard case .audio(.unwritable) = error else {
            Issue.record("expected an unwritable audio file, got \(error)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: folder))
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.directory.path)
        #expect(!left.contains { $0.hasPrefix(".") }, "left behind: \(left)")
    }
}
