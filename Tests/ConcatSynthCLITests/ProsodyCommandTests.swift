// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// `concat-synth render --rate/--pitch`, and what the render command promises at any rate.
@Suite struct ProsodyCommandTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("concat-synth-prosody")
    let text = "Hello, nice to meet you. Good morning, thank you very much."

    func rendered(_ arguments: [String]) throws -> [UInt8] {
        let result = try concatSynth.run(["render", "-o", "-"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutputBytes
    }

    @Test(
        "--rate and --pitch render exactly what wrapping the request in <prosody> does",
        arguments: [("2", "-2st", "200%"), ("150%", "+3st", "1.5"), ("-20%", "-10%", "-20%"), ("fast", "high", "fast")])
    func sameAsSSML(rate: String, pitch: String, ssmlRate: String) throws {
        let options = try rendered(["--rate", rate, "--pitch", pitch, text])
        let ssml = try rendered(["<speak><prosody rate=\"\(ssmlRate)\" pitch=\"\(pitch)\">\(text)</prosody></speak>"])
        #expect(options == ssml)
        #expect(options != (try rendered([text])))
    }

    @Test("--rate 2 halves the clips and --rate 0.5 doubles them; --rate 1 is the samples of no rate")
    func lengths() throws {
        let normal = try rendered([text]).count
        #expect(try rendered(["--rate", "1", text]) == rendered([text]))
        let fast = try rendered(["--rate", "2", text]).count
        let slow = try rendered(["--rate", "0.5", text]).count
        #expect(abs(Double(fast) / Double(normal) - 0.5) < 0.01)
        #expect(abs(Double(slow) / Double(normal) - 2) < 0.02)
    }

    @Test("an invalid --rate or --pitch is a usage error naming the value", arguments: ["--rate", "--pitch"])
    func invalid(option: String) throws {
        let result = try concatSynth.run(["render", "-o", "-", option, "cute", "hello"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("invalid \(option) \"cute\""))
        #expect(result.standardOutputBytes.isEmpty)
    }

    @Test("joins stay click-free at 0.5x, 2x and 4x on the default pack", arguments: ["0.5", "2", "4"])
    func joins(rate: String) throws {
        let result = try concatSynth.run(["render", "-o", "-", "--join-report", "--rate", rate, text])
        #expect(result.status == 0)
        let ratio = try #require(
            result.standardError.split(separator: "(ratio ").last.flatMap { Double($0.prefix { $0 != ")" }) })
        #expect(ratio <= 1, "\(result.standardError)")
    }

    @Test("a long document malformed at its very end writes nothing, to a file or to standard output")
    func malformedAtTheEnd() throws {
        let body = String(repeating: "<s>Hello, nice to meet you.</s> <break time=\"10ms\"/>\n", count: 5_000)
        let request = Data(("<speak>" + body + "</speek>").utf8)
        let output = directory.file("never.wav")

        let toFile = try concatSynth.run(["render", "-o", output, "-"], input: request)
        #expect(toFile.status == 1)
        #expect(toFile.standardError.contains("line 5001"))
        #expect(!FileManager.default.fileExists(atPath: output))

        let toStandardOutput = try concatSynth.run(["render", "-o", "-", "-"], input: request)
        #expect(toStandardOutput.status == 1)
        #expect(toStandardOutput.standardOutputBytes.isEmpty)
    }
}
