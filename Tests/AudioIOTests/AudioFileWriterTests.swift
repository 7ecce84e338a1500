// SPDX-License-Identifier: GPL-3.0-or-later
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

    @Test("16-bit files hold the samples as PCM16 rounds them, as the servers send them, not as libsndfile floors them")
    func sixteenBitRounding() throws {
        let directory = TemporaryDirectory()
        // libsndfile alone would write -3 and 1 for the first two (floor of x × 32768).
        let samples: [Float] = [-2.41 / 32_767, 1.6 / 32_767, 0.5, -1.2, 1, 0]
        let writer = try AudioFileWriter(
            path: directory.file("out.raw"), format: .init(.raw, .pcm16, endianness: .little), sampleRate: 22_050)
        try writer.write(samples)
        try writer.commit()

        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file("out.raw")))
        let written = stride(from: 0, to: bytes.count, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        #expect(written == [-2, 2, 16_384, -32_767, 32_767, 0])
        #expect(written == samples.map(PCM16.sample))
    }

    @Test("Ogg files (Vorbis, Opus) are the same bytes on every write, and read back", arguments: ["ogg", "opus"])
    func oggIsDeterministic(fileExtension: String) throws {
        let directory = TemporaryDirectory()
        let tone = (0..<22_050).map { Float(sin(Double($0) * 2 * .pi * 440 / 22_050) * 0.5) }
        let format = try RenderOutputFormat(path: "x.\(fileExtension)", sampleRate: nil, encoding: nil)
        var files: [Data] = []
        for name in ["a", "b"] {
            let path = directory.file("\(name).\(fileExtension)")
            let writer = try AudioFileWriter(path: path, format: format.file, sampleRate: format.sampleRate)
            try writer.write(tone)
            try writer.commit()
            files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            // libogg checks every page's checksum as libsndfile reads the file back.
            let clip = try PreparedClip(path: path)
            #expect(
                abs(clip.source.frameCount - tone.count) < 2_000, "the frames written, give or take the codec's padding"
            )
        }
        #expect(files[0] == files[1])
        #expect(files[0][14..<18].elementsEqual([0x62, 0x76, 0x73, 0x63]), "the fixed serial number, little-endian")
    }

    @Test("the Ogg page checksum is the one libogg writes, on every page of a file sndfile-convert made")
    func oggChecksum() throws {
        let directory = TemporaryDirectory()
        let wav = directory.file("tone.wav")
        let writer = try AudioFileWriter(path: wav, format: .init(.wav, .pcm16), sampleRate: 22_050)
        try writer.write((0..<22_050).map { Float(sin(Double($0) * 0.1) * 0.5) })
        try writer.commit()
        let ogg = directory.file("tone.ogg")
        let converted = try requireTool("sndfile-convert", package: "sndfile-programs").run([wav, ogg])
        try #require(converted.status == 0, "\(converted.standardError)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ogg)))
        var offset = 0
        var pages = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            let length = 27 + segments + bytes[offset + 27..<offset + 27 + segments].reduce(0) { $0 + Int($1) }
            let stored = bytes[offset + 22..<offset + 26].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            for index in offset + 22..<offset + 26 { bytes[index] = 0 }
            #expect(OggSerialNumber.checksum(Array(bytes[offset..<offset + length])) == stored, "page \(pages)")
            offset += length
            pages += 1
        }
        #expect(pages >= 2 && offset == bytes.count)
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
        "a rate or channel count no file holds (past 32 bits: a hand-edited pack's) is refused, naming the file",
        arguments: [(Int.max, 1), (22_050, Int(Int32.max) + 1), (-22_050, 1)])
    func impossibleFormat(sampleRate: Int, channelCount: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("out.wav")
        let error = try #require(throws: AudioIOError.self) {
            try AudioFileWriter(
                path: path, format: .init(.wav, .pcm16), sampleRate: sampleRate, channelCount: channelCount)
        }
        #expect(error == .unwritable(path: path, reason: "libsndfile cannot write wav/pcm16 at \(sampleRate) Hz"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(
        "the output extension picks the container, its encoding and, for Asterisk's formats, the rate",
        arguments: [
            ("a.wav", AudioFileFormat(.wav, .float32), 22_050), ("b.AIFF", AudioFileFormat(.aiff, .float32), 22_050),
            ("c.caf", AudioFileFormat(.caf, .float32), 22_050),
            ("dir.x/d.flac", AudioFileFormat(.flac, .pcm24), 22_050),
            ("e.raw", AudioFileFormat(.raw, .float32, endianness: .little), 22_050),
            ("f.au", AudioFileFormat(.au, .float32), 22_050), ("g.ogg", AudioFileFormat(.ogg, .vorbis), 22_050),
            ("h.opus", AudioFileFormat(.ogg, .opus), 48_000),
            ("i.sln", AudioFileFormat(.raw, .pcm16, endianness: .little), 8_000),
            ("j.sln16", AudioFileFormat(.raw, .pcm16, endianness: .little), 16_000),
            ("k.sln44", AudioFileFormat(.raw, .pcm16, endianness: .little), 44_100),
            ("l.ulaw", AudioFileFormat(.raw, .ulaw, endianness: .little), 8_000),
            ("m.alaw", AudioFileFormat(.raw, .alaw, endianness: .little), 8_000),
        ])
    func extensions(path: String, file: AudioFileFormat, sampleRate: Int) throws {
        let format = try RenderOutputFormat(path: path, sampleRate: nil, encoding: nil)
        #expect(format.file == file)
        #expect(format.sampleRate == sampleRate)
    }

    @Test("--sample-rate and --encoding apply where the extension leaves them open; -o - is raw little-endian")
    func options() throws {
        let wav = try RenderOutputFormat(path: "a.wav", sampleRate: 16_000, encoding: .ulaw)
        #expect(wav.file == AudioFileFormat(.wav, .ulaw))
        #expect(wav.sampleRate == 16_000)
        #expect(wav.bytesPerFrame == 1)
        let standardOutput = try RenderOutputFormat(path: "-", sampleRate: 8_000, encoding: .s24)
        #expect(standardOutput.file == AudioFileFormat(.raw, .pcm24, endianness: .little))
        #expect(standardOutput.bytesPerFrame == 3)
        #expect(try RenderOutputFormat(path: "a.sln", sampleRate: 8_000, encoding: .s16).sampleRate == 8_000)
        #expect(try RenderOutputFormat(path: "a.ogg", sampleRate: 44_100, encoding: nil).bytesPerFrame == 4)
    }

    @Test("an encoding the container cannot hold, or one its name contradicts, is refused naming both")
    func refusedOptions() {
        #expect(
            throws: AudioIOError.encodingNotInContainer(path: "a.flac", encoding: "ulaw", accepted: ["s16", "s24"])
        ) { try RenderOutputFormat(path: "a.flac", sampleRate: nil, encoding: .ulaw) }
        #expect(
            throws: AudioIOError.conflictingOutputOption(
                path: "a.sln", option: .sampleRate(16_000), picked: ".sln is 8000 Hz")
        ) { try RenderOutputFormat(path: "a.sln", sampleRate: 16_000, encoding: nil) }
        #expect(
            throws: AudioIOError.conflictingOutputOption(
                path: "a.ulaw", option: .encoding(.alaw), picked: ".ulaw is ulaw")
        ) { try RenderOutputFormat(path: "a.ulaw", sampleRate: nil, encoding: .alaw) }
        #expect(throws: AudioIOError.encodingNotInContainer(path: "a.mp3", encoding: "s16", accepted: [])) {
            try RenderOutputFormat(path: "a.mp3", sampleRate: nil, encoding: .s16)
        }
        #expect(throws: AudioIOError.unsupportedOutputRate(sampleRate: 100)) {
            try RenderOutputFormat(path: "a.wav", sampleRate: 100, encoding: nil)
        }
    }

    @Test(
        "an unknown extension is refused with the accepted ones", arguments: ["out.mp4", "out", ".wav", "dir.wav/out"])
    func unknownExtension(path: String) {
        #expect(throws: AudioIOError.unknownOutputExtension(path: path)) {
            try RenderOutputFormat(path: path, sampleRate: nil, encoding: nil)
        }
        #expect(AudioIOError.unknownOutputExtension(path: path).description.contains(".wav, .aiff"))
    }
}
