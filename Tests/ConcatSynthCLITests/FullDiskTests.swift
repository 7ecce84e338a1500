// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

/// Writes that run out of space, on a small tmpfs each test mounts (and skips, with a notice, where it cannot).
@Suite struct FullDiskTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    @Test("an import into a pack whose file system fills up: one line, exit 1, and the pack as it was")
    func importFillsTheDisk() throws {
        let directory = TemporaryDirectory("full-disk")
        guard let disk = ScratchMount.tmpfs(byteCount: 600 * 1_024, in: directory) else { return }
        defer { disk.unmount() }
        let small = try SmallPack()
        let pack = disk.path + "/pack.sqlite"
        try FileManager.default.copyItem(atPath: small.path, toPath: pack)
        let before = try concatSynth.run(["render", "--bank", pack, "-o", "-", "hello world"])
        try #require(before.status == 0)
        // About 1.6 MB of clips (originals and render-ready audio) for a file system with some 400 KB left.
        let files = try (0..<6).map { index in
            let tone = Signal.sine(frequency: 300 + 50 * Double(index), sampleRate: 48_000, frameCount: 48_000)
            return try Fixture.write(
                Signal.interleave([tone, tone]), to: directory.file("big\(index).wav"), format: .init(.wav, .pcm16),
                sampleRate: 48_000, channelCount: 2)
        }

        let result = try voicebank.run(["import", "--bank", pack] + files)

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: cannot write voice pack \(pack): its file system is full, and nothing was stored; free some space and try again\n"
        )
        let opened = try VoicePack(path: pack, access: .readOnly)
        #expect(try opened.integrityCheck() == ["ok"])
        #expect(try opened.clips().map(\.phrase) == ["hello", "world", "beep"])
        #expect(
            try concatSynth.run(["render", "--bank", pack, "-o", "-", "hello world"]).standardOutputBytes
                == before.standardOutputBytes)
    }

    @Test("a render whose output file system fills up: one line naming the file, exit 1, and no file left")
    func renderFillsTheDisk() throws {
        let directory = TemporaryDirectory("full-disk")
        guard let disk = ScratchMount.tmpfs(byteCount: 64 * 1_024, in: directory) else { return }
        defer { disk.unmount() }
        let pack = try SmallPack()
        let text = Array(repeating: "hello world", count: 20).joined(separator: " ")  // about 1 MB of Float32
        for name in ["out.wav", "out.flac", "out.raw"] {
            let output = disk.path + "/" + name

            let result = try concatSynth.run(["render", "--bank", pack.path, "-o", output, text])

            #expect(result.status == 1, "\(name)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(name): \(result.standardError)")
            #expect(
                result.standardError.hasPrefix("Error: cannot write audio file \(output): "), "\(result.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [], "\(name)")
        }
    }
}
