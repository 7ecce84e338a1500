// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing

/// `concat-synth say` through ALSA's `file` device: what it plays is captured to a file (or a pipe) as raw samples.
@Suite struct SayCommandTests {
    let concatSynth = Binary("concat-synth")
    let home = TemporaryDirectory("concat-synth-say")
    let request = "Hello, nice to meet you. Good morning"

    /// A `$HOME` whose `.asoundrc` makes the default device, and one named `capture`, write what they play to files.
    func configure(defaultFile: String, captureFile: String) throws {
        let configuration = """
            pcm.!default { type file; slave.pcm "null"; file "\(defaultFile)"; format "raw" }
            pcm.capture { type file; slave.pcm "null"; file "\(captureFile)"; format "raw" }
            """
        try configuration.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
    }

    @Test("the default device plays render's samples, Float32 at 22050 Hz, byte for byte")
    func defaultDevice() throws {
        try configure(defaultFile: home.file("default.raw"), captureFile: home.file("capture.raw"))
        let said = try concatSynth.run(["say", request], environment: ["HOME": home.path])
        #expect(said.status == 0, "\(said.standardError)")
        #expect(said.standardError.isEmpty)
        let rendered = try concatSynth.runData(["render", "-o", "-", request])
        #expect(!rendered.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.file("default.raw"))) == rendered)
        #expect(!FileManager.default.fileExists(atPath: home.file("capture.raw")))
    }

    @Test("--device picks the device and --sample-rate the rate, the same samples render converts")
    func namedDevice() throws {
        try configure(defaultFile: home.file("default.raw"), captureFile: home.file("capture.raw"))
        let arguments = ["--sample-rate", "8000", "--rate", "1.5", request]
        let said = try concatSynth.run(["say", "--device", "capture"] + arguments, environment: ["HOME": home.path])
        #expect(said.status == 0, "\(said.standardError)")
        let rendered = try concatSynth.runData(["render", "-o", "-"] + arguments)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.file("capture.raw"))) == rendered)
        #expect(!FileManager.default.fileExists(atPath: home.file("default.raw")))
    }

    @Test("a device that refuses Float32 gets 16-bit samples, render's samples converted by PCM16")
    func sixteenBitDevice() throws {
        // A `linear` plugin takes integer PCM only and hands the slave S16_LE; the `file` plugin before it records
        // what the player sends, in the format the player settled on.
        let configuration = """
            pcm.s16only {
                type file; file "\(home.file("s16.raw"))"; format "raw"
                slave.pcm { type linear; slave { pcm "null"; format S16_LE } }
            }
            """
        try configuration.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
        let said = try concatSynth.run(["say", "--device", "s16only", request], environment: ["HOME": home.path])
        #expect(said.status == 0, "\(said.standardError)")
        let floats = try concatSynth.runData(["render", "-o", "-", request]).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        var expected = Data(count: floats.count * 2)
        floats.withUnsafeBufferPointer { samples in expected.withUnsafeMutableBytes { PCM16.convert(samples, into: $0) }
        }
        // Samples whose scaled value is a tie (n.5 with n even) are where rounding half away from zero would differ.
        #expect(floats.contains { ($0 * 32_767).rounded() != Float(PCM16.sample($0)) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.file("s16.raw"))) == expected)
    }

    @Test("words no clip covers are spoken by the fallback voice: render's samples, sounding where its phrase is")
    func fallbackVoice() throws {
        try configure(defaultFile: home.file("default.raw"), captureFile: home.file("capture.raw"))
        let text = "Hello Bob, the weather today is sunny."
        let said = try concatSynth.run(["say", text], environment: ["HOME": home.path])
        #expect(said.status == 0, "\(said.standardError)")
        #expect(
            said.standardError
                == "fallback: no clip for \"bob the weather today is sunny\" in voice org.concatsynth.en\n")
        let played = try Data(contentsOf: URL(fileURLWithPath: home.file("default.raw")))
        let reference = try FallbackReference(text, directory: home)
        #expect(reference.fallbackFrames.count == 1)
        #expect(played.count == reference.bytes.count)
        #expect(played == reference.bytes)
        let peaks = reference.fallbackPeaks(played.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
        #expect(peaks.count == 1 && peaks.allSatisfy { $0 > 0.05 }, "\(peaks)")
    }

    @Test("a device that does not exist is a one-line error naming it and ALSA's reason")
    func missingDevice() throws {
        try configure(defaultFile: home.file("default.raw"), captureFile: home.file("capture.raw"))
        let said = try concatSynth.run(["say", "--device", "nowhere", "hello"], environment: ["HOME": home.path])
        #expect(said.status == 1)
        #expect(
            said.standardError
                == "Error: cannot open the sound device nowhere: Unknown PCM nowhere (No such file or directory); expected an ALSA playback device such as default (aplay -L lists them)\n"
        )
    }

    @Test("request errors come before the device: bad SSML fails with its line and column")
    func badRequest() throws {
        let said = try concatSynth.run(
            ["say", "--device", "nowhere", "<speak>hello"], environment: ["HOME": home.path])
        #expect(said.status == 1)
        #expect(said.standardError.contains("line 1"), "\(said.standardError)")
    }

    @Test("Ctrl-C stops playback part way, closes the device and exits 130")
    func interrupt() throws {
        let pipe = home.file("playing.fifo")
        #expect(mkfifo(pipe, 0o600) == 0)
        try configure(defaultFile: pipe, captureFile: home.file("capture.raw"))
        // About 30 s of speech: far more than is read before the interrupt.
        let long = Array(repeating: "Hello, nice to meet you.", count: 20).joined(separator: " ")
        let rendered = try concatSynth.runData(["render", "-o", "-", long])
        let process = try concatSynth.start(["say", long], environment: ["HOME": home.path])
        try process.run()
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: pipe))
        var played = Data()
        while played.count < 100_000 {
            let chunk = reader.readData(ofLength: 16_384)
            if chunk.isEmpty { break }
            played += chunk
        }
        kill(process.processIdentifier, SIGINT)
        played += reader.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(played.count >= 100_000)
        #expect(played.count < rendered.count / 2)
        #expect(played == rendered.prefix(played.count))
    }
}
