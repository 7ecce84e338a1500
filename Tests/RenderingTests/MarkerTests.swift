// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering

@Suite struct MarkerTests {
    let voice = PlannerVoice(
        voice: VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US", "ja-JP"]),
        lookup: DictionaryLookup(["hello": [1], "good morning": [2], "設 定": [3], "ボ タ ン": [4]]),
        fallbacks: [ClipTake(clipID: 9, frameCount: 50)])

    func plan(_ request: String) throws -> RenderPlan {
        try Planner(voices: [voice]).plan(SSMLReader().read(request))
    }

    func slice(_ request: String, _ range: Range<Int>) -> String {
        String(decoding: Array(request.utf16)[range], as: UTF16.self)
    }

    @Test("marker frames are the segment starts, and byte offsets four times them")
    func frames() throws {
        let plan = try plan(#"<speak>hello <break time="10ms"/>good morning<mark name="end"/></speak>"#)
        var starts: [Int] = []
        var frame = 0
        for segment in plan.segments {
            switch segment.kind {
            case .silence, .structureEnd: break
            default: starts.append(frame)
            }
            frame += segment.frameCount
        }
        // The sentence inferred around the request's text comes first, and spans all of it.
        let markers = plan.markers
        #expect(markers.map(\.kind) == [.sentence, .phrase, .phrase, .mark])
        #expect(markers.map(\.frame) == starts)
        #expect(markers.map(\.frame) == [0, 0, 100 + 221, 100 + 221 + 200])
        #expect(markers.map(\.frameCount) == [100 + 221 + 200, 100, 200, 0])
        #expect(markers.map(\.byteOffset) == markers.map { $0.frame * 4 })
    }

    @Test("text ranges are UTF-16 ranges of the request, with Japanese and emoji before them")
    func utf16() throws {
        let request = "<speak>😀👩‍👩‍👧 hello, 設定 and ボタン! <s>good 🎉 morning</s></speak>"
        let markers = try plan(request).markers
        // The text before the <s> is a sentence of its own, whose range is that of the words spoken in it.
        #expect(
            markers.map { slice(request, $0.textRange) } == [
                "hello, 設定 and ボタン", "hello", "設定", "and", "ボタン", "good 🎉 morning", "good 🎉 morning",
            ])
        #expect(
            markers.map(\.text) == [
                "hello 設定 and ボタン", "hello", "設定", "and", "ボタン", "good morning", "good morning",
            ])
        #expect(markers.map(\.kind) == [.sentence, .phrase, .phrase, .phrase, .phrase, .sentence, .phrase])
    }

    @Test("sentences and paragraphs span their phrases, without the pause after them")
    func structures() throws {
        let plan = try plan("<speak><p><s>hello</s><s>good morning</s></p><p>hello</p></speak>")
        let spans = plan.markers.filter { $0.kind != .phrase }.map {
            "\($0.kind.rawValue) \($0.frame)+\($0.frameCount) \($0.text)"
        }
        #expect(
            spans == [
                "paragraph 0+\(100 + 16_538 + 200) hello good morning", "sentence 0+100 hello",
                "sentence \(100 + 16_538)+200 good morning", "paragraph \(100 + 16_538 + 200 + 22_050)+100 hello",
                "sentence \(100 + 16_538 + 200 + 22_050)+100 hello",
            ])
    }

    @Test("markers are JSON lines with SPEC.md's fields")
    func json() {
        let marker = Marker(kind: .mark, text: "a \"q\"\n", frame: 3, frameCount: 0, textRange: 5..<9)
        #expect(
            marker.jsonLine
                == #"{"kind":"mark","text":"a \"q\"\n","frame":3,"frames":0,"byteOffset":12,"textRange":[5,4]}"#)
    }

    @Test("each pull says which markers its frames reached")
    func pulls() throws {
        let plan = try plan(#"<speak>hello good morning<mark name="end"/></speak>"#)
        let renderer = Renderer(
            plan: plan,
            audio: MemoryClips([1: .init(repeating: 0.1, count: 100), 2: .init(repeating: 0.2, count: 200)]))
        var buffer = [Float](repeating: 0, count: 150)
        var reached: [[String]] = []
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            reached.append(renderer.reachedMarkers.map(\.marker.text))
            if pulled.isComplete { break }
        }
        #expect(reached == [["hello good morning", "hello", "good morning"], ["end"]])
    }
}
