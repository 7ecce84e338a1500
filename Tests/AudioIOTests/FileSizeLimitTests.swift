// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import AudioIO

/// WAV and AIFF keep their sizes in 32 bits. The writer's limit is given small here, so that reaching it takes
/// kilobytes; one test writes past the real 4 GB.
@Suite struct FileSizeLimitTests {
    let directory = TemporaryDirectory("size-limit")
    /// An odd number of frames, in blocks that do not divide it.
    let samples = Signal.sine(frequency: 440, amplitude: 0.7, sampleRate: 22_050, frameCount: 3_001)

    /// Writes `samples` in blocks of 500 frames to `folder` (the test's directory by default) and returns the
    /// file's bytes.
    func write(_ name: String, _ format: AudioFileFormat, byteLimit: Int?, in folder: String? = nil) throws -> [UInt8] {
        let path = "\(folder ?? directory.path)/\(name)"
        let writer = try AudioFileWriter(
            path: path, format: format, sampleRate: 22_050, channelCount: 1, byteLimit: byteLimit)
        for start in stride(from: 0, to: samples.count, by: 500) {
            try writer.write(Array(samples[start..<min(start + 500, samples.count)]))
        }
        try writer.commit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The samples of a RIFF or RF64 file: the bytes after its `data` chunk's header, as many as its size says
    /// (RF64 gives 0xFFFFFFFF there and the real size in its `ds64` chunk, 16 bytes into that chunk's body).
    func dataChunk(_ file: [UInt8]) throws -> ArraySlice<UInt8> {
        func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reversed().reduce(0) { $0 << 8 | Int($1) } }
        let marker = Array("data".utf8)
        let start = try #require((12..<file.count - 8).first { Array(file[$0..<$0 + 4]) == marker })
        var size = littleEndian(file[(start + 4)..<(start + 8)])
        if size == 0xFFFF_FFFF { size = littleEndian(file[28..<36]) }
        return file[(start + 8)..<(start + 8 + size)]
    }

    @Test(
        "a WAV that would pass its limit becomes RF64 holding the same sample bytes",
        arguments: [AudioFileFormat.Encoding.float32, .pcm24, .pcm16, .ulaw])
    func wavBecomesRF64(encoding: AudioFileFormat.Encoding) throws {
        let plain = try write("plain.wav", .init(.wav, encoding), byteLimit: nil)
        let limit = plain.count / 2

        let grown = try write("grown.wav", .init(.wav, encoding), byteLimit: limit)

        #expect(Array(grown.prefix(4)) == Array("RF64".utf8))
        #expect(Array(grown[12..<16]) == Array("ds64".utf8))
        #expect(try dataChunk(grown) == dataChunk(plain))
        let read = try PreparedClip(path: directory.file("grown.wav"))
        #expect(read.source.container.contains("RF64"), "\(read.source)")
        #expect(read.source.frameCount == samples.count)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["grown.wav", "plain.wav"])
    }

    @Test("a WAV becomes RF64 the same way where the file system refuses unnamed files (FUSE), leaving no hidden file")
    func wavBecomesRF64UnderHiddenName() throws {
        let source = directory.file("source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        guard let fuse = ScratchMount.fuseView(of: source, in: directory) else { return }
        defer { fuse.unmount() }
        do {
            let probe = try AudioFileWriter(
                path: "\(fuse.path)/probe.wav", format: .init(.wav, .pcm16), sampleRate: 22_050)
            try #require(probe.hasHiddenName)
        }
        let plain = try write("plain.wav", .init(.wav, .pcm16), byteLimit: nil)

        let grown = try write("grown.wav", .init(.wav, .pcm16), byteLimit: plain.count / 2, in: fuse.path)

        #expect(Array(grown.prefix(4)) == Array("RF64".utf8))
        #expect(try dataChunk(grown) == dataChunk(plain))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fuse.path) == ["grown.wav"])
    }

    @Test("a WAV that reaches its limit exactly stays the plain WAV, byte for byte")
    func wavAtItsLimit() throws {
        let plain = try write("plain.wav", .init(.wav, .float32), byteLimit: nil)
        #expect(Array(plain.prefix(4)) == Array("RIFF".utf8))
        #expect(try write("at.wav", .init(.wav, .float32), byteLimit: plain.count) == plain)
        #expect(
            Array(try write("past.wav", .init(.wav, .float32), byteLimit: plain.count - 1).prefix(4))
                == Array("RF64".utf8))
    }

    @Test("an AIFF that would pass its limit stops with one line naming it, the limit and what to use, leaving nothing")
    func aiffPastItsLimit() throws {
        let path = directory.file("long.aiff")
        #expect(
            throws: AudioIOError.tooLargeForContainer(path: path, container: "AIFF", byteLimit: 4_000)
        ) { try write("long.aiff", .init(.aiff, .float32), byteLimit: 4_000) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
        #expect(
            AudioIOError.tooLargeForContainer(path: path, container: "AIFF", byteLimit: 4_294_967_295).description
                == "cannot write audio file \(path): an AIFF file holds at most 4294967295 bytes (its sizes are 32-bit) and this audio is longer; expected .wav (RF64 past 4 GB), .caf or .flac, which have no such limit"
        )
    }

    @Test("the containers whose sizes are 32-bit are WAV and AIFF; AU marks a long file's size unknown")
    func limits() {
        #expect(AudioFileFormat.Container.wav.byteLimit == 4_294_967_295)
        #expect(AudioFileFormat.Container.aiff.byteLimit == 4_294_967_295)
        for container in [AudioFileFormat.Container.caf, .flac, .ogg, .au, .mpeg, .raw] {
            #expect(container.byteLimit == nil, "\(container)")
        }
    }

    /// Writes 8.6 GB (the WAV, then its copy into RF64): 22 s in C on this machine's disk, over a minute in a debug
    /// build, so it runs only when asked.
    @Test(
        "a WAV past the real 4 GB is an RF64 file that libsndfile and sox read to its last frame",
        .enabled(
            if: ProcessInfo.processInfo.environment["CONCAT_SYNTH_LARGE_FILE_TESTS"] == "1",
            "writes 8.6 GB; set CONCAT_SYNTH_LARGE_FILE_TESTS=1 to run it"))
    func realRF64() throws {
        let path = directory.file("long.wav")
        // 4,296,000,000 bytes of Float32: silence, then one block of tone to find at the end.
        let frameCount = 1_074_000_000
        let silence = [Float](repeating: 0, count: 4_000_000)
        let writer = try AudioFileWriter(path: path, format: .init(.wav, .float32), sampleRate: 22_050)
        var written = 0
        while written < frameCount - 4_000 {
            let count = min(silence.count, frameCount - 4_000 - written)
            try silence.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[..<count])) }
            written += count
        }
        try writer.write([Float](repeating: 0.5, count: 4_000))
        try writer.commit()
        defer { unlink(path) }

        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let header = try handle.read(upToCount: 16) ?? Data()
        try handle.seek(toOffset: try handle.seekToEnd() - 8)
        let last = try handle.read(upToCount: 8) ?? Data()
        try handle.close()
        #expect(header.prefix(4) == Data("RF64".utf8))
        #expect(last == Data([0, 0, 0, 0x3F, 0, 0, 0, 0x3F]))
        let info = try requireTool("sndfile-info", package: "sndfile-programs").run([path])
        #expect(info.standardOutput.contains("Frames      : \(frameCount)\n"), "\(info.standardOutput)")
        let sox = try requireTool("soxi", package: "sox").run(["-s", path])
        #expect(sox.standardOutput == "\(frameCount)\n", "\(sox.standardError)")
    }
}
