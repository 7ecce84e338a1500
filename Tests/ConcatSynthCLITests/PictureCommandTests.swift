// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct PictureCommandTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")
    var xmllint: Binary { get throws { try requireTool("xmllint", package: "libxml2-utils") } }
    let directory = TemporaryDirectory("concat-synth-picture")
    /// A sentence with a fallback ("Bob") and a mark, spoken by the default pack.
    let request = #"<speak><s>Hello <mark name="here"/>Bob, nice to meet you.</s></speak>"#

    /// The markers file's lines as (kind, text, frame, frames).
    func markers(_ path: String) throws -> [(kind: String, text: String, frame: Int, frames: Int)] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                try #require(object["kind"] as? String), try #require(object["text"] as? String),
                try #require(object["frame"] as? Int), try #require(object["frames"] as? Int)
            )
        }
    }

    /// Files left in the test's directory, hidden partial files included.
    var leftovers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] }

    @Test(
        "--picture draws one labelled box per phrase marker where the markers put it, the fallback in warning colours")
    func boxesMatchMarkers() throws {
        let picture = directory.file("hello.svg")
        let markerFile = directory.file("hello.jsonl")
        let result = try concatSynth.run(
            ["render", "--picture", picture, "--markers", markerFile, "-o", directory.file("hello.wav"), request])
        #expect(result.status == 0, "\(result.standardError)")

        let lint = try xmllint.run(["--noout", picture])
        #expect(lint.status == 0, "\(lint.standardError)")
        let svg = try SVG(String(contentsOfFile: picture, encoding: .utf8))
        let phrases = try markers(markerFile).filter { $0.kind == "phrase" }
        #expect(phrases.map(\.text) == ["hello", "bob", "nice to meet you"])
        let boxes = svg.groups.filter { $0.classes == ["phrase"] || $0.classes == ["fallback"] }
        try #require(boxes.count == phrases.count)
        for (box, phrase) in zip(boxes, phrases) {
            #expect(box.classes == [phrase.text == "bob" ? "fallback" : "phrase"])
            #expect(box.title.contains(phrase.text))
            let rect = try #require(box.rects.first)
            #expect(abs(rect.x - (16 + Double(phrase.frame) * 150 / 22_050)) <= 0.05)
            #expect(abs(rect.width - Double(phrase.frames) * 150 / 22_050) <= 0.1)
        }
        let mark = try #require(svg.groups.first { $0.classes == ["mark"] })
        #expect(mark.title == "mark here")
        #expect(svg.groups.filter { $0.classes == ["sentence"] }.count == 1)
        #expect(svg.title.hasSuffix("3 phrases · 1 fallback · 0 rough joins"))
    }

    @Test("the picture is drawn at the render's own rate: the same with -o - at 8000 Hz, seconds labelled alike")
    func outputRate() throws {
        let atRenderRate = directory.file("a.svg")
        let atEightKilohertz = directory.file("b.svg")
        #expect(
            try concatSynth.run(["render", "--picture", atRenderRate, "-o", directory.file("a.wav"), request]).status
                == 0)
        let piped = try concatSynth.run(
            ["render", "--picture", atEightKilohertz, "--sample-rate", "8000", "-o", "-", request])
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(!piped.standardOutputBytes.isEmpty)
        #expect(
            try String(contentsOfFile: atEightKilohertz, encoding: .utf8)
                == String(contentsOfFile: atRenderRate, encoding: .utf8))
    }

    @Test("a render that fails writes no picture, and no partial file either", arguments: ["file", "pipe"])
    func nothingOnFailure(output: String) throws {
        let picture = directory.file("strict.svg")
        let target = output == "file" ? directory.file("strict.wav") : "-"
        let result = try concatSynth.run(["render", "--strict", "--picture", picture, "-o", target, "Hello Bob"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("no clip for \"bob\""))
        #expect(leftovers.isEmpty)
    }

    @Test("--picture needs a .svg name and a folder it can write in")
    func badPaths() throws {
        let png = try concatSynth.run(["render", "--picture", directory.file("x.png"), "-o", "-", "hello"])
        #expect(png.status == 64)
        #expect(png.standardError.contains("--picture \(directory.file("x.png")): expected a file name ending in .svg"))

        let missing = directory.file("no/such/folder/x.svg")
        let unwritable = try concatSynth.run(["render", "--picture", missing, "-o", directory.file("x.wav"), "hello"])
        #expect(unwritable.status == 1)
        #expect(unwritable.standardError.contains("cannot write the picture \(missing): No such file or directory"))
        #expect(leftovers.isEmpty)
    }

    @Test("a pack whose clips are cut at full scale draws its joins rough; with edge fades they are clean")
    func roughJoins() throws {
        let bank = directory.file("click.sqlite")
        // A 200 Hz cosine starts at full scale, and "down" is its negative: every join steps by nearly 2.
        let up = (0..<4_000).map { Float(0.9 * cos(2 * Double.pi * 200 * Double($0) / 22_050)) }
        try Fixture.write(up, to: directory.file("up.wav"), format: AudioFileFormat(.wav, .float32), sampleRate: 22_050)
        try Fixture.write(
            up.map { -$0 }, to: directory.file("down.wav"), format: AudioFileFormat(.wav, .float32), sampleRate: 22_050)
        for arguments in [
            ["create", "--voice", "com.example.click", "--name", "Click", "--language", "en"],
            ["configure", "--no-trim", "--edge-fade", "0ms", "--no-loudness-target"],
            ["import", directory.file("up.wav"), directory.file("down.wav")],
        ] {
            let result = try voicebank.run(arguments + ["--bank", bank])
            try #require(result.status == 0, "\(result.standardError)")
        }
        let picture = directory.file("click.svg")
        let render = ["render", "--bank", bank, "--picture", picture, "-o", directory.file("click.wav"), "up down up"]

        #expect(try concatSynth.run(render).status == 0)
        let rough = try SVG(String(contentsOfFile: picture, encoding: .utf8)).groups.filter {
            $0.classes == ["join", "rough"]
        }
        #expect(rough.map { $0.title.hasPrefix("rough join at ") } == [true, true])
        for (join, frame) in zip(rough, [4_000, 8_000]) {
            #expect(abs(try #require(join.lines.first).x - (16 + Double(frame) * 150 / 22_050)) <= 0.05)
        }

        #expect(try voicebank.run(["configure", "--bank", bank, "--edge-fade", "2ms"]).status == 0)
        #expect(try concatSynth.run(render).status == 0)
        let faded = try SVG(String(contentsOfFile: picture, encoding: .utf8))
        #expect(faded.groups.filter { $0.classes.contains("rough") }.isEmpty)
        #expect(faded.title.hasSuffix("0 rough joins"))
    }
}
