// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import AudioIO

/// Asterisk's wideband prompts: raw G.722 at 64 kbit/s in `.g722` files, decoded with spandsp.
@Suite struct G722Tests {
    @Test("reads a .g722 file as 16 kHz 16-bit mono, two samples a byte, the tone kept through 22050 Hz")
    func decodesATone() throws {
        let directory = TemporaryDirectory()
        let tone = Signal.sine(frequency: 440, sampleRate: 16_000, frameCount: 8_000).map { Int16($0 * 32_767) }
        let bytes = try G722.encode(tone)
        #expect(bytes.count == 4_000)
        let path = directory.file("hello.g722")
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let clip = try PreparedClip(path: path)

        #expect(clip.source.sampleRate == 16_000)
        #expect(clip.source.channelCount == 1)
        #expect(clip.source.frameCount == 8_000)
        #expect(clip.source.container == "G.722 (raw, 64 kbit/s)")
        #expect(clip.original.encoding == .int16)
        #expect(clip.original.frameCount == 8_000)
        #expect(clip.renderReady.count == SampleRateConversion.convertedFrameCount(8_000, from: 16_000, to: 22_050))
        #expect(try PreparedClip.renderReadyFrameCount(path: path) == clip.renderReady.count)
        let margin = 1_000
        #expect(abs(Signal.frequency(clip.renderReady, sampleRate: 22_050, margin: margin) - 440) < 2)
        #expect(abs(Signal.decibels(Signal.rms(clip.renderReady, margin: margin) / (0.5 / 2.0.squareRoot()))) < 1)
    }

    @Test("a file of an odd number of bytes is whole: each byte is one codeword, two samples")
    func oddLength() throws {
        let directory = TemporaryDirectory()
        let tone = Signal.sine(frequency: 440, sampleRate: 16_000, frameCount: 1_602).map { Int16($0 * 32_767) }
        let bytes = try G722.encode(tone)
        #expect(bytes.count == 801)
        let path = directory.file("odd.G722")
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let clip = try PreparedClip(path: path)

        #expect(clip.source.frameCount == 1_602)
        #expect(clip.original.frameCount == 1_602)
    }

    @Test("an empty .g722 file is one error naming it")
    func empty() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("silence.g722")
        FileManager.default.createFile(atPath: path, contents: Data())

        #expect(throws: AudioIOError.empty(path: path)) { try PreparedClip(path: path) }
        #expect(
            AudioIOError.empty(path: path).description
                == "audio file \(path) has no audio frames; expected a recording at least one frame long")
    }

    @Test("a missing .g722 file is one error naming it, with the system's reason")
    func missing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("gone.g722")

        #expect(throws: AudioIOError.unreadable(path: path, reason: "No such file or directory")) {
            try PreparedClip(path: path)
        }
    }

    @Test("a folder import takes .g722 files")
    func folderExtension() {
        #expect(PreparedClip.fileExtensions.contains("g722"))
        #expect(G722File.isG722("prompts/digits/1.g722"))
        #expect(G722File.isG722("HELLO.G722"))
        #expect(!G722File.isG722("g722/hello.wav"))
        #expect(!G722File.isG722("hello.g722.wav"))
    }
}
