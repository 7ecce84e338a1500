// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

/// Plain text's inferred sentences plan as explicit `<s>` elements do: the same segments, pause and markers.
@Suite struct InferredSentencePlanTests {
    let lookup = DictionaryLookup(["good morning": [4], "double tap to open": [10], "設 定": [6]])
    let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])

    var planner: Planner<DictionaryLookup> {
        Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: [ClipTake(clipID: 99, frameCount: 50)])
        ])
    }

    /// The plan of `request` read whole, its text matched `windowBytes` at a time.
    func plan(_ request: String, windowBytes: Int = 8_192) throws -> RenderPlan {
        let stream = try SSMLReader().events(request)
        return try PlanStream(planner: planner, warnings: [], textWindowBytes: windowBytes) { try stream.next() }
            .collect()
    }

    /// The plan of plain text read `pieceBytes` at a time from a pipe.
    func streamedPlan(_ text: String, pieceBytes: Int) throws -> RenderPlan {
        var remaining = Array(text.utf8)[...]
        let stream = PlainTextStream(source: "test input", start: [], pieceBytes: pieceBytes) {
            defer { remaining = remaining.dropFirst(2) }
            return Array(remaining.prefix(2))
        }
        return try planner.stream(stream, context: SpeechContext(), isLenient: false).collect()
    }

    /// Each segment's kind, frames and words, and each marker but for its place in the request.
    func timing(_ plan: RenderPlan) -> [String] {
        plan.segments.map { "\($0.kind) \($0.text.debugDescription) @\($0.frame)+\($0.frameCount)" }
            + plan.markers.map { "\($0.kind) \($0.text.debugDescription) @\($0.frame)+\($0.frameCount)" }
    }

    @Test("\"Good morning. Double tap to open.\" plans as two <s>: a medium pause between, two sentence markers")
    func twoSentences() throws {
        let plain = try plan("Good morning. Double tap to open.")
        let explicit = try plan("<speak><s>Good morning.</s> <s>Double tap to open.</s></speak>")
        #expect(timing(plain) == timing(explicit))
        #expect(plain.segments.filter { $0.kind == .silence }.map(\.frameCount) == [16_538])
        #expect(plain.frameCount == 400 + 16_538 + 1_000)
        let sentences = plain.markers.filter { $0.kind == .sentence }
        #expect(sentences.map(\.text) == ["good morning", "double tap to open"])
        #expect(sentences.map(\.frame) == [0, 400 + 16_538])
        #expect(sentences.map(\.frameCount) == [400, 1_000])
        // A sentence marker's range is the words spoken in it, in the request as given.
        #expect(sentences.map(\.textRange) == [0..<12, 14..<32])
        #expect(plain.markers.map(\.kind) == [.sentence, .phrase, .sentence, .phrase])
    }

    @Test("a Japanese text's sentences end at 。, markers and all")
    func japanese() throws {
        let plan = try plan("設定を開きます。設定。")
        let sentences = plan.markers.filter { $0.kind == .sentence }
        #expect(sentences.map(\.textRange) == [0..<7, 8..<10])
        #expect(plan.segments.filter { $0.kind == .silence }.map(\.frameCount) == [16_538])
    }

    @Test(
        "the planner's tiny text windows and a text read from a pipe in tiny pieces plan as the whole", arguments: 1...6
    )
    func tinyWindows(bytes: Int) throws {
        let text = "Good morning Mr. Smith. Double tap to open. Good morning.\n設定を開きます。Double tap to open"
        let whole = try plan(text)
        #expect(whole.markers.filter { $0.kind == .sentence }.count == 5)
        #expect(try plan(text, windowBytes: bytes) == whole)
        let streamed = try streamedPlan(text, pieceBytes: bytes)
        #expect(streamed.segments == whole.segments)
        #expect(streamed.markers == whole.markers)
    }
}
