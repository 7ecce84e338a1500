import Foundation
import TestSupport
import Testing

@testable import AudioIO

@Suite struct AudioFileWriterTests {
    @Test("a committed file appears whole and reads back")
    func commit() throws {
        let directory = TemporaryDirectory()
        let samples: [Float] = [0, 0.25, -0.5, 1]
        let writer = try AudioFileWriter(
            path: directory.file("out.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        try writer.write(samples)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.wav")))
        try writer.commit()

        let clip = try PreparedClip(path: directory.file("out.wav"))
        #expect(clip.renderReady == samples)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.wav"])
    }

    @Test("a writer released without commit leaves no file and keeps the old one")
    func abandon() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("out.wav")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let writer = try AudioFileWriter(path: path, format: .init(.wav, .float32), sampleRate: 22_050)
            try writer.write([Float](repeating: 0.5, count: 100))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.wav"])
    }

    @Test(
        "the output extension picks the container",
        arguments: [
            ("a.wav", AudioFileFormat(.wav, .float32)), ("b.AIFF", AudioFileFormat(.aiff, .float32)),
            ("c.caf", AudioFileFormat(.caf, .float32)), ("dir.x/d.flac", AudioFileFormat(.flac, .pcm24)),
            ("e.raw", AudioFileFormat(.raw, .float32, endianness: .little)),
        ])
    func extensions(path: String, format: AudioFileFormat) throws {
        #expect(try AudioFileFormat.renderOutput(forPath: path) == format)
    }

    @Test(
        "an unknown extension is refused with the accepted ones", arguments: ["out.mp3", "out", ".wav", "dir.wav/out"])
    func unknownExtension(path: String) {
        #expect(throws: AudioIOError.unknownOutputExtension(path: path)) {
            try AudioFileFormat.renderOutput(forPath: path)
        }
    }
}
