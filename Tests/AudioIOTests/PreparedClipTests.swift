// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import AudioIO

@Suite struct PreparedClipTests {
    struct FormatCase: CustomTestStringConvertible, Sendable {
        var name: String
        var format: AudioFileFormat
        var sampleRate: Int
        var container: String
        var encoding: SampleEncoding
        var testDescription: String { name }
    }

    static let formats: [FormatCase] = [
        .init(name: "seed.aiff", format: .init(.aiff, .pcm16), sampleRate: 24_000, container: "AIFF", encoding: .int16),
        .init(
            name: "sowt.aifc", format: .init(.aiff, .pcm16, endianness: .little), sampleRate: 22_050, container: "AIFF",
            encoding: .int16),
        .init(
            name: "float.aifc", format: .init(.aiff, .float32), sampleRate: 48_000, container: "AIFF",
            encoding: .float32),
        .init(name: "u8.wav", format: .init(.wav, .pcmU8), sampleRate: 8_000, container: "WAV", encoding: .int16),
        .init(name: "s16.wav", format: .init(.wav, .pcm16), sampleRate: 16_000, container: "WAV", encoding: .int16),
        .init(name: "s24.wav", format: .init(.wav, .pcm24), sampleRate: 44_100, container: "WAV", encoding: .int32),
        .init(name: "s32.wav", format: .init(.wav, .pcm32), sampleRate: 96_000, container: "WAV", encoding: .int32),
        .init(
            name: "float.wav", format: .init(.wav, .float32), sampleRate: 192_000, container: "WAV", encoding: .float32),
        .init(
            name: "double.wav", format: .init(.wav, .float64), sampleRate: 32_000, container: "WAV", encoding: .float64),
        .init(name: "s16.flac", format: .init(.flac, .pcm16), sampleRate: 48_000, container: "FLAC", encoding: .int16),
        .init(name: "s24.flac", format: .init(.flac, .pcm24), sampleRate: 11_025, container: "FLAC", encoding: .int32),
        .init(
            name: "vorbis.ogg", format: .init(.ogg, .vorbis), sampleRate: 44_100, container: "OGG", encoding: .float32),
        .init(
            name: "float.caf", format: .init(.caf, .float32), sampleRate: 22_050, container: "CAF", encoding: .float32),
    ]

    @Test("reads every format, converting to 22050 Hz with the documented length and the tone kept", arguments: formats)
    func roundTrip(_ testCase: FormatCase) throws {
        let directory = TemporaryDirectory()
        let frames = testCase.sampleRate / 2 + 7
        let tone = Signal.sine(frequency: 1_000, sampleRate: testCase.sampleRate, frameCount: frames)
        let path = try Fixture.write(
            tone, to: directory.file(testCase.name), format: testCase.format, sampleRate: testCase.sampleRate)

        let clip = try PreparedClip(path: path)

        #expect(clip.source.sampleRate == testCase.sampleRate)
        #expect(clip.source.channelCount == 1)
        #expect(clip.source.container.hasPrefix(testCase.container))
        #expect(clip.original.encoding == testCase.encoding)
        #expect(clip.original.frameCount == clip.source.frameCount)
        // Vorbis may pad its last packet; every other container keeps the exact length.
        if testCase.format.encoding != .vorbis { #expect(clip.source.frameCount == frames) }
        #expect(
            clip.renderReady.count
                == SampleRateConversion.convertedFrameCount(
                    clip.source.frameCount, from: testCase.sampleRate, to: 22_050))
        let margin = 600
        #expect(abs(Signal.decibels(Signal.rms(clip.renderReady, margin: margin) / (0.5 / 2.0.squareRoot()))) < 0.5)
        #expect(abs(Signal.frequency(clip.renderReady, sampleRate: 22_050, margin: margin) - 1_000) < 2)
    }

    @Test("reads AIFF-C as macOS `say -o` writes it: 16-bit big-endian, NONE compression, an FLLR chunk")
    func sayStyleAIFC() throws {
        let directory = TemporaryDirectory()
        let samples: [Int16] = (0..<2_205).map { Int16(truncatingIfNeeded: $0 * 37 - 20_000) }
        let path = directory.file("Hello.aiff")
        try Fixture.sayStyleAIFC(samples, sampleRate: 22_050, to: path)

        let clip = try PreparedClip(path: path)

        #expect(clip.source.sampleRate == 22_050)
        #expect(clip.source.frameCount == 2_205)
        #expect(clip.original.int16Samples == samples)
        // At 22050 Hz nothing is resampled: the render-ready samples are the originals scaled to -1…1.
        #expect(clip.renderReady == samples.map(PCM16.value))
    }

    @Test(
        "a 1 kHz tone keeps its level within 0.1 dB and its frequency",
        arguments: [8_000, 24_000, 44_100, 48_000, 96_000, 192_000])
    func toneKeepsLevel(sampleRate: Int) throws {
        let directory = TemporaryDirectory()
        let tone = Signal.sine(frequency: 1_000, sampleRate: sampleRate, frameCount: sampleRate)
        let path = try Fixture.write(
            tone, to: directory.file("tone.wav"), format: .init(.wav, .float32), sampleRate: sampleRate)

        let clip = try PreparedClip(path: path)

        let margin = 2_000
        let sourceRMS = Signal.rms(tone, margin: margin * sampleRate / 22_050)
        #expect(abs(Signal.decibels(Signal.rms(clip.renderReady, margin: margin) / sourceRMS)) < 0.1)
        #expect(abs(Signal.frequency(clip.renderReady, sampleRate: 22_050, margin: margin) - 1_000) < 0.5)
    }

    @Test("averages channels to mono")
    func downmix() throws {
        let directory = TemporaryDirectory()
        let frames = 22_050
        let left = [Float](repeating: 0.5, count: frames)
        let right = [Float](repeating: 0.25, count: frames)
        let tone = Signal.sine(frequency: 440, sampleRate: 22_050, frameCount: frames)
        let stereo = try Fixture.write(
            Signal.interleave([left, right]), to: directory.file("stereo.wav"), format: .init(.wav, .float32),
            sampleRate: 22_050, channelCount: 2)
        let cancelling = try Fixture.write(
            Signal.interleave([tone, tone.map { -$0 }, tone, tone.map { -$0 }]), to: directory.file("quad.wav"),
            format: .init(.wav, .float32), sampleRate: 22_050, channelCount: 4)

        let averaged = try PreparedClip(path: stereo)
        let silent = try PreparedClip(path: cancelling)

        #expect(averaged.source.channelCount == 2)
        #expect(averaged.original.channelCount == 2)
        #expect(averaged.renderReady.allSatisfy { $0 == 0.375 })
        #expect(silent.renderReady.allSatisfy { $0 == 0 })
    }

    @Test("keeps the original samples bit for bit")
    func originalIsExact() throws {
        let directory = TemporaryDirectory()
        let samples: [Int16] = (0..<24_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let stereo = Signal.interleave([samples, samples.reversed()])
        let path = try Fixture.write(
            stereo, to: directory.file("takes.aiff"), format: .init(.aiff, .pcm16), sampleRate: 24_000, channelCount: 2)

        let clip = try PreparedClip(path: path)

        #expect(clip.original.encoding == .int16)
        #expect(clip.original.int16Samples == stereo)
    }

    @Test("24-bit samples are kept left-justified in 32 bits")
    func original24Bit() throws {
        let directory = TemporaryDirectory()
        let samples: [Int32] = [0, 1 << 8, -(1 << 8), 0x7FFF_FF00, Int32(bitPattern: 0x8000_0000), 0x1234_5600]
        let writer = try AudioFileWriter(
            path: directory.file("s24.wav"), format: .init(.wav, .pcm24), sampleRate: 48_000)
        try writer.write(samples)
        try writer.commit()

        let clip = try PreparedClip(path: directory.file("s24.wav"))

        let stored = clip.original.bytes.withUnsafeBytes { raw in
            (0..<samples.count).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) }
        }
        #expect(stored == samples)
    }

    @Test("an AIFF or WAV left unfinalized (sizes 0 or 0xFFFFFFFF, a recorder killed mid-write) reads all its frames")
    func unfinalized() throws {
        let directory = TemporaryDirectory()
        let tone = Signal.sine(frequency: 1_000, sampleRate: 24_000, frameCount: 12_000)
        let aiff = try Fixture.write(
            tone, to: directory.file("take.aiff"), format: .init(.aiff, .pcm16), sampleRate: 24_000)
        let wav = try Fixture.write(
            tone, to: directory.file("take.wav"), format: .init(.wav, .pcm16), sampleRate: 24_000)
        let expected = try PreparedClip(path: aiff).renderReady

        // AIFF: the FORM size, COMM's frame count and the SSND size, all big-endian.
        for size in [UInt32(0), .max] {
            let path = directory.file("unfinalized-\(size).aiff")
            try patch(aiff, to: path, size: size, bigEndian: true) { bytes in
                [4, try #require(offset(of: "COMM", in: bytes)) + 10, try #require(offset(of: "SSND", in: bytes)) + 4]
            }
            let clip = try PreparedClip(path: path)
            #expect(clip.source.frameCount == 12_000, "\(size)")
            #expect(clip.renderReady == expected, "\(size)")
        }
        // WAV: the RIFF and data sizes, little-endian.
        let path = directory.file("unfinalized.wav")
        try patch(wav, to: path, size: .max, bigEndian: false) { bytes in
            [4, try #require(offset(of: "data", in: bytes)) + 4]
        }
        #expect(try PreparedClip(path: path).renderReady == expected)
    }

    @Test("a header claiming 65535 or 0 channels is refused naming the file")
    func absurdChannelCounts() throws {
        let directory = TemporaryDirectory()
        let wav = try Fixture.write(
            [Float](repeating: 0.25, count: 100), to: directory.file("take.wav"), format: .init(.wav, .pcm16),
            sampleRate: 24_000)
        for channels in [UInt16.max, 0] {
            let path = directory.file("\(channels)-channels.wav")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: wav)))
            let format = try #require(offset(of: "fmt ", in: bytes))
            var patched = bytes
            patched.replaceSubrange(
                format + 10..<format + 12, with: withUnsafeBytes(of: channels.littleEndian, Array.init))
            try Data(patched).write(to: URL(fileURLWithPath: path))
            #expect { try PreparedClip(path: path) } throws: {
                guard case .unreadable(path, _) = $0 as? AudioIOError else { return false }
                return !"\($0)".contains("\n")
            }
        }
    }

    /// Copies `source` to `path` with `size` written over the 32-bit fields at the offsets `offsets` finds.
    private func patch(
        _ source: String, to path: String, size: UInt32, bigEndian: Bool, offsets: ([UInt8]) throws -> [Int]
    ) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let field = withUnsafeBytes(of: bigEndian ? size.bigEndian : size.littleEndian, Array.init)
        for offset in try offsets(bytes) { bytes.replaceSubrange(offset..<offset + 4, with: field) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private func offset(of chunk: String, in bytes: [UInt8]) -> Int? {
        let id = Array(chunk.utf8)
        return (0...(bytes.count - id.count)).first { bytes[$0..<$0 + id.count].elementsEqual(id) }
    }

    @Test("names the file and the reason when it cannot be read")
    func errors() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("missing.aiff")
        #expect(throws: AudioIOError.self) { try PreparedClip(path: missing) }
        do {
            _ = try PreparedClip(path: missing)
        } catch {
            #expect(error.description.contains(missing))
        }

        let text = directory.file("notes.wav")
        try "not audio".write(toFile: text, atomically: true, encoding: .utf8)
        #expect { try PreparedClip(path: text) } throws: {
            ($0 as? AudioIOError).map { "\($0)" }?.contains("notes.wav") == true
        }

        for container in [AudioFileFormat.Container.wav, .aiff] {
            let empty = try Fixture.write(
                [Float](), to: directory.file("empty.\(container)"), format: .init(container, .pcm16),
                sampleRate: 24_000)
            #expect(throws: AudioIOError.empty(path: empty)) { try PreparedClip(path: empty) }
        }

        let wide = try Fixture.write(
            [Float](repeating: 0, count: 65 * 10), to: directory.file("wide.wav"), format: .init(.wav, .pcm16),
            sampleRate: 24_000, channelCount: 65)
        #expect(throws: AudioIOError.unsupportedChannelCount(path: wide, channelCount: 65)) {
            try PreparedClip(path: wide)
        }

        let slow = try Fixture.write(
            [Float](repeating: 0, count: 100), to: directory.file("slow.wav"), format: .init(.wav, .pcm16),
            sampleRate: 1_000)
        #expect(throws: AudioIOError.unsupportedSampleRate(path: slow, sampleRate: 1_000)) {
            try PreparedClip(path: slow)
        }
    }

    @Test("reads a file's bytes from memory exactly as it reads the file", arguments: formats)
    func fromMemory(_ testCase: FormatCase) throws {
        let directory = TemporaryDirectory()
        let tone = Signal.sine(frequency: 440, sampleRate: testCase.sampleRate, frameCount: testCase.sampleRate / 10)
        let path = try Fixture.write(
            tone, to: directory.file(testCase.name), format: testCase.format, sampleRate: testCase.sampleRate)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))

        let fromFile = try PreparedClip(path: path)
        let fromMemory = try PreparedClip(bytes: bytes, name: "memory")

        #expect(fromMemory.source == fromFile.source)
        #expect(fromMemory.original == fromFile.original)
        #expect(fromMemory.renderReady == fromFile.renderReady)
    }

    @Test("bytes that are no audio file are refused naming the input")
    func fromMemoryRefused() throws {
        let notAudio = Array("hello, not a sound".utf8)
        #expect {
            try PreparedClip(bytes: notAudio, name: "request body")
        } throws: { error in
            guard case .unreadable(let path, _) = error as? AudioIOError else { return false }
            return path == "request body"
        }
    }
}
