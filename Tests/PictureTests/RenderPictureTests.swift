// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Planning
import Rendering
import SSML
import SpeechCore
import SpeechTestSupport
import TestSupport
import Testing

@testable import Picture

@Suite struct RenderPictureTests {
    /// Clips that start and end at full scale: a 200 Hz cosine (1 at its first sample), and its negative.
    static let loud = (0..<1_000).map { Float(cos(2 * Double.pi * 200 * Double($0) / 22_050)) }
    /// A quiet clip long enough to cross a row of the picture.
    static let long = (0..<100_000).map { Float(0.25 * sin(2 * Double.pi * 150 * Double($0) / 22_050)) }
    /// The fallback clip: half a second, wide enough in the picture for a short word's label.
    static let beep = (0..<11_025).map { Float(0.5 * sin(2 * Double.pi * 800 * Double($0) / 22_050)) }
    let clips = MemoryClips([1: loud, 2: loud.map { -$0 }, 3: long, 9: beep])

    func plan(_ request: String, joins: Joins = .standard) throws -> RenderPlan {
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en"], joins: joins)
        let lookup = DictionaryLookup(takes: [
            "up": [ClipTake(clipID: 1, frameCount: 1_000)], "down": [ClipTake(clipID: 2, frameCount: 1_000)],
            "long": [ClipTake(clipID: 3, frameCount: 100_000)],
        ])
        let fallback = ClipTake(clipID: 9, frameCount: 11_025)
        return try Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [fallback])]).plan(
            SSMLReader().read(request))
    }

    /// The picture of `plan` pulled in blocks of `blockSize`.
    func picture(_ plan: RenderPlan, blockSize: Int) throws -> RenderPicture {
        let renderer = Renderer(plan: plan, audio: clips)
        var picture = RenderPicture()
        var buffer = [Float](repeating: 0, count: blockSize)
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            buffer.withUnsafeBufferPointer {
                picture.add(UnsafeBufferPointer(rebasing: $0[..<pulled.frameCount]), pulledFrom: renderer)
            }
            if pulled.isComplete { return picture }
        }
    }

    /// Where `frame` is drawn in the first row.
    func x(_ frame: Int) -> Double { 16 + Double(frame) * 150 / 22_050 }

    @Test("one labelled box per phrase marker, from its frame to its end; a fallback's box carries the warning class")
    func phraseBoxes() throws {
        let plan = try plan(#"<speak>long <break time="100ms"/> zork down up</speak>"#)
        let svg = try SVG(try picture(plan, blockSize: 300).svg)

        let phrases = plan.markers.filter { $0.kind == .phrase }
        #expect(phrases.map(\.text) == ["long", "zork", "down", "up"])
        let boxes = svg.groups.filter { $0.classes.contains("phrase") || $0.classes.contains("fallback") }
        try #require(boxes.count == phrases.count)
        for (box, marker) in zip(boxes, phrases) {
            let isFallback = marker.text == "zork"
            #expect(box.classes == [isFallback ? "fallback" : "phrase"])
            #expect(box.title == (isFallback ? "fallback for \u{201C}zork\u{201D}" : marker.text))
            let rect = try #require(box.rects.first)
            #expect(box.rects.count == 1)
            #expect(abs(rect.x - x(marker.frame)) <= 0.05)
            #expect(abs(rect.x + rect.width - x(marker.frame + marker.frameCount)) <= 0.1)
            // Labelled where the box is wide enough for the words (4.5 s and 0.5 s), not in 45 ms.
            #expect(box.texts == (rect.width > 50 ? [marker.text] : []))
        }
        // The break is a pause, labelled with its length.
        let pauses = svg.groups.filter { $0.classes == ["pause"] }
        #expect(pauses.map(\.title) == ["pause 0.100 s"])
        #expect(
            svg.title
                == "concat-synth render: \(String(format: "%.2f", Double(plan.frameCount) / 22_050)) s · 4 phrases · 1 fallback · 0 rough joins"
        )
    }

    @Test("marks are lines at their frame with their name; sentences and paragraphs are bars over their extent")
    func marksAndStructure() throws {
        let plan = try plan(#"<speak><p><s>up <mark name="here"/>down</s><s>up</s></p></speak>"#)
        let svg = try SVG(try picture(plan, blockSize: 512).svg)

        let mark = try #require(plan.markers.first { $0.kind == .mark })
        let drawnMark = try #require(svg.groups.first { $0.classes == ["mark"] })
        #expect(drawnMark.title == "mark here")
        #expect(drawnMark.texts == ["here"])
        #expect(abs(try #require(drawnMark.lines.first).x - x(mark.frame)) <= 0.05)

        let sentences = plan.markers.filter { $0.kind == .sentence }
        let bars = svg.groups.filter { $0.classes == ["sentence"] }
        #expect(bars.map(\.title) == sentences.map { "sentence: \($0.text)" })
        for (bar, sentence) in zip(bars, sentences) {
            let rect = try #require(bar.rects.first)
            #expect(abs(rect.x - x(sentence.frame)) <= 0.05)
            #expect(abs(rect.width - Double(sentence.frameCount) * 150 / 22_050) <= 0.1)
        }
        #expect(svg.groups.filter { $0.classes == ["paragraph"] }.count == 1)
    }

    @Test("clips cut at full scale make rough joins, flagged where they are; edge fades make every join clean")
    func roughJoins() throws {
        let request = #"<speak>up down up <break time="10ms"/> down</speak>"#
        let raw = try plan(request, joins: Joins(edgeFadeFrames: 0, crossfadeFrames: 0))
        let faded = try plan(request)

        let rawPicture = try picture(raw, blockSize: 256)
        #expect(rawPicture.joins.map(\.frame) == raw.joinFrames)
        #expect(rawPicture.joins.allSatisfy { $0.isRough })
        let rough = try SVG(rawPicture.svg).groups.filter { $0.classes == ["join", "rough"] }
        #expect(rough.count == 4)
        for (join, frame) in zip(rough, raw.joinFrames) {
            #expect(abs(try #require(join.lines.first).x - x(frame)) <= 0.05)
            #expect(join.title.hasPrefix("rough join at "))
        }

        let fadedPicture = try picture(faded, blockSize: 256)
        #expect(fadedPicture.joins.map(\.frame) == faded.joinFrames)
        #expect(!fadedPicture.joins.contains { $0.isRough })
        #expect(try SVG(fadedPicture.svg).groups.filter { $0.classes.contains("rough") }.isEmpty)
    }

    @Test("the picture is the same however the render is pulled", arguments: [1, 100, 441, 4_096])
    func blockSizes(blockSize: Int) throws {
        let plan = try plan(
            #"<speak>up down <break time="30ms"/> zork up<mark name="m"/></speak>"#,
            joins: .init(edgeFadeFrames: 0, crossfadeFrames: 30))
        #expect(try picture(plan, blockSize: blockSize).svg == (try picture(plan, blockSize: 1_000_000).svg))
    }

    @Test("one waveform column per 10 ms, each from its lowest sample to its highest")
    func waveform() throws {
        let plan = try plan(
            #"<speak>up <break time="100ms"/></speak>"#, joins: Joins(edgeFadeFrames: 0, crossfadeFrames: 0))
        let svg = try SVG(try picture(plan, blockSize: 64).svg)
        let path = try #require(svg.paths.first { $0.classes == ["wave"] })
        let columns = path.d.split(separator: "M")
        #expect(columns.count == (plan.frameCount * 100 + 22_049) / 22_050)
        // The cosine spans the lane (full scale, 39 px either side of its middle); the pause is flat.
        let first = columns[0].split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
        #expect(first[2] - first[1] > 70)
        let last = columns.last!.split(whereSeparator: { $0 == " " || $0 == "V" }).compactMap { Double($0) }
        #expect(abs(last[2] - last[1] - 0.5) < 0.01)
    }

    @Test("a long render wraps into rows of 8 seconds; a phrase across the edge is drawn in both")
    func rows() throws {
        let plan = try plan("<speak>long long</speak>")
        let svg = try SVG(try picture(plan, blockSize: 4_096).svg)
        #expect(plan.frameCount == 200_000)
        #expect(svg.height == 44 + 2 * 178)
        let boxes = svg.groups.filter { $0.classes == ["phrase"] }
        #expect(boxes.map(\.rects.count) == [1, 2])
        let second = boxes[1].rects
        #expect(abs(second[0].x - x(100_000)) <= 0.05)
        #expect(abs(second[0].x + second[0].width - x(8 * 22_050)) <= 0.1)
        #expect(second[1].x == 16)
        #expect(abs(second[1].width - Double(200_000 - 8 * 22_050) * 150 / 22_050) <= 0.1)
        #expect(svg.paths.filter { $0.classes == ["wave"] }.count == 2)
        // The axis labels whole seconds from the render's start: 0 … 8 in the first row, 8 and 9 in the second.
        #expect(svg.axisLabels == (0...8).map { "\($0) s" } + ["8 s", "9 s"])
    }

    @Test("text with XML's special characters is escaped, and the document stays well formed")
    func escaping() throws {
        let plan = try plan(#"<speak>up <mark name="a&lt;b&amp;c&quot;d'e"/> down</speak>"#)
        let source = try picture(plan, blockSize: 256).svg
        #expect(source.contains("a&lt;b&amp;c&quot;d&apos;e"))
        let svg = try SVG(source)
        #expect(svg.groups.first { $0.classes == ["mark"] }?.title == #"mark a<b&c"d'e"#)
        #expect(escaped("x\u{1}y\tz") == "x y z")
    }

    @Test("decimals are written with a fixed number of places, as String(format:) would")
    func decimals() {
        #expect(decimal(0.1, places: 3) == "0.100")
        #expect(decimal(12.3456, places: 2) == "12.35")
        #expect(decimal(-1.25, places: 2) == "-1.25")
        #expect(decimal(-0.04, places: 1) == "0.0")
        #expect(decimal(7, places: 0) == "7")
    }
}
