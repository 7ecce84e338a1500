// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing

/// `render --sample-rate`, `--encoding` and the containers, read back by libsndfile and sox.
@Suite struct OutputFormatTests {
    let concatSynth = Binary("concat-synth")
    var sox: Binary { get throws { try requireTool("sox", package: "sox") } }
    let directory = TemporaryDirectory("concat-synth-output")
    let request = "Hello, nice to meet you. Good morning"

    /// Little-endian Float32 samples.
    func floats(_ bytes: some Collection<UInt8>) -> [Float] {
        let bytes = Array(bytes)
        return bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 4).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
    }

    /// Little-endian 16-bit samples.
    func shorts(_ bytes: some Collection<UInt8>) -> [Int16] {
        let bytes = Array(bytes)
        return bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// The request rendered at 22050 Hz Float32.
    func rendered() throws -> [Float] { floats(try concatSynth.runData(["render", "-o", "-", request])) }

    func outputLength(_ frames: Int, at rate: Int) -> Int { (frames * rate + 11_025) / 22_050 }

    @Test("--sample-rate is soxr's conversion of the 22050 Hz render, bit for bit", arguments: [8_000, 24_000, 48_000])
    func sampleRate(rate: Int) throws {
        let original = try rendered()
        let converted = floats(
            try concatSynth.runData(["render", "--sample-rate", "\(rate)", "-o", "-", request]))
        let resampler = try StreamingResampler(from: 22_050, to: rate, soxr: .high)
        var whole: [Float] = []
        try original.withUnsafeBufferPointer { try resampler.convert($0) { whole += $0 } }
        try resampler.finish { whole += $0 }
        #expect(converted.count == outputLength(original.count, at: rate))
        #expect(converted.map(\.bitPattern) == whole.map(\.bitPattern))
        #expect(Signal.rms(converted) > 0.01)
    }

    @Test("the same request at 8 kHz µ-law gives the same bytes every time")
    func deterministic() throws {
        let arguments = ["render", "--sample-rate", "8000", "--encoding", "ulaw", "-o", "-", request]
        let first = try concatSynth.runData(arguments)
        #expect(try concatSynth.runData(arguments) == first)
        #expect(first.count == outputLength(try rendered().count, at: 8_000))
    }

    @Test(
        "every container reads back through libsndfile at its rate, as long as the render ±1 frame",
        arguments: [
            ("wav", 22_050, "32 bit float"), ("aiff", 22_050, "32 bit float"), ("caf", 22_050, "32 bit float"),
            ("au", 22_050, "32 bit float"), ("flac", 22_050, "Signed 24 bit PCM"), ("ogg", 22_050, "Vorbis"),
            ("opus", 48_000, "Opus"), ("mp3", 22_050, "MPEG Layer III"),
        ])
    func containers(extension: String, rate: Int, sampleFormat: String) throws {
        let frames = try rendered().count
        let output = directory.file("out.\(`extension`)")
        let result = try concatSynth.run(["render", "-o", output, request])
        #expect(result.status == 0, "\(result.standardError)")
        let file = try PreparedClip(path: output).source
        #expect(file.sampleRate == rate)
        #expect(file.channelCount == 1)
        #expect(file.sampleFormat.contains(sampleFormat), "\(file.sampleFormat)")
        #expect(abs(file.frameCount - outputLength(frames, at: rate)) <= 1)
    }

    @Test(
        "--encoding and --sample-rate reach the file",
        arguments: [("s16", "16 bit"), ("s24", "24 bit"), ("ulaw", "U-Law"), ("alaw", "A-Law")])
    func encodings(encoding: String, sampleFormat: String) throws {
        let frames = try rendered().count
        let output = directory.file("\(encoding).wav")
        let result = try concatSynth.run([
            "render", "--sample-rate", "16000", "--encoding", encoding, "-o", output, request,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let file = try PreparedClip(path: output).source
        #expect(file.sampleRate == 16_000)
        #expect(file.sampleFormat.contains(sampleFormat), "\(file.sampleFormat)")
        #expect(file.frameCount == outputLength(frames, at: 16_000))
    }

    @Test(".ulaw is 8 kHz µ-law: sox reads it, and its bytes are libsndfile's own encoding of the 8 kHz render")
    func ulaw() throws {
        let output = directory.file("welcome.ulaw")
        #expect(try concatSynth.run(["render", "-o", output, request]).status == 0)
        let floatWAV = directory.file("welcome8k.wav")
        #expect(try concatSynth.run(["render", "--sample-rate", "8000", "-o", floatWAV, request]).status == 0)
        let samples = try PreparedClip(path: floatWAV).original.bytes
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.count * 4 == samples.count)

        let converted = directory.file("libsndfile.raw")
        let convert = try requireTool("sndfile-convert", package: "sndfile-programs").run([
            "-ulaw", floatWAV, converted,
        ])
        #expect(convert.status == 0, "\(convert.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: converted)) == bytes)

        let decoded = floats(try sox.runData(["-t", "ul", "-r", "8000", "-c", "1", output, "-t", "f32", "-"]))
        let reference = floats(samples)
        #expect(decoded.count == reference.count)
        // µ-law keeps about 2 % of a sample's size (its 8 bits are a sign, a 3-bit exponent and 4 bits of mantissa).
        #expect(zip(decoded, reference).allSatisfy { abs($0 - $1) <= 0.04 * abs($1) + 0.001 })
    }

    @Test(
        ".sln is raw 16-bit 8 kHz, the samples sox's own conversion of the render gives, within resampler differences")
    func signedLinear() throws {
        let original = try rendered()
        let output = directory.file("welcome.sln")
        #expect(try concatSynth.run(["render", "-o", output, request]).status == 0)
        let samples = shorts(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(samples.count == outputLength(original.count, at: 8_000))

        let raw = directory.file("render.f32")
        try Data(try concatSynth.runData(["render", "-o", "-", request])).write(to: URL(fileURLWithPath: raw))
        let reference = shorts(
            try sox.runData(["-t", "f32", "-r", "22050", "-c", "1", raw, "-t", "s16", "-r", "8000", "-D", "-"]))
        #expect(abs(reference.count - samples.count) <= 1)
        let difference = zip(samples, reference).map { Double($0) - Double($1) }
        let errorRMS = (difference.reduce(0) { $0 + $1 * $1 } / Double(difference.count)).squareRoot()
        let signalRMS = (reference.reduce(0) { $0 + Double($1) * Double($1) } / Double(reference.count)).squareRoot()
        #expect(signalRMS > 300)
        #expect(errorRMS < signalRMS * 0.02, "error \(errorRMS), signal \(signalRMS)")
    }

    @Test("markers at 8 kHz tile the output and count bytes of its encoding")
    func markers() throws {
        let output = directory.file("marked.sln")
        let markersFile = directory.file("marked.jsonl")
        let result = try concatSynth.run(["render", "-o", output, "--markers", markersFile, "Hello, nice to meet you"])
        #expect(result.status == 0, "\(result.standardError)")
        let frames = try Data(contentsOf: URL(fileURLWithPath: output)).count / 2
        let markers = try String(contentsOfFile: markersFile, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let phrases = markers.filter { $0["kind"] as? String == "phrase" }
        #expect(phrases.map { $0["text"] as? String } == ["hello", "nice to meet you"])
        var next = 0
        for phrase in phrases {
            let frame = try #require(phrase["frame"] as? Int)
            #expect(frame == next)
            #expect(phrase["byteOffset"] as? Int == frame * 2)
            next = frame + (try #require(phrase["frames"] as? Int))
        }
        #expect(next == frames)
        let fullRate = directory.file("full.jsonl")
        #expect(
            try concatSynth.run(["render", "-o", "-", "--markers", fullRate, "Hello, nice to meet you"]).status == 0)
        let second = try #require(try String(contentsOfFile: fullRate, encoding: .utf8).split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(second.utf8)) as? [String: Any])
        #expect(phrases[1]["frame"] as? Int == outputLength(try #require(object["frame"] as? Int), at: 8_000))
    }

    @Test(
        "a format the options contradict is a one-line usage error naming both",
        arguments: [
            (["-o", "x.flac", "--encoding", "ulaw"], "cannot write x.flac as ulaw: expected --encoding s16, s24"),
            (
                ["-o", "x.sln", "--sample-rate", "16000"],
                "--sample-rate 16000 conflicts with -o x.sln: .sln is 8000 Hz"
            ),
            (["-o", "x.alaw", "--encoding", "s16"], "--encoding s16 conflicts with -o x.alaw: .alaw is alaw"),
            (["-o", "x.ogg", "--encoding", "s16"], "cannot write x.ogg as s16: the format has its own codec"),
            (["-o", "x.m4a"], "cannot tell the output format of x.m4a; expected a name ending in .wav"),
            (["-o", "-", "--sample-rate", "100"], "invalid --sample-rate 100: expected 4000 to 768000 Hz"),
        ])
    func refused(arguments: [String], message: String) throws {
        let result = try concatSynth.run(["render"] + arguments + ["hello"], directory: directory.path)
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("Error: \(message)"), "\(result.standardError)")
        #expect(result.standardOutputBytes.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
