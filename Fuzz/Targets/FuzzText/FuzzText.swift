// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target `text`: SSML and plain text through reading, planning and rendering.
//
// Input: byte 0 picks the mode (bit 0 lenient, bit 1 plain text read as a stream rather than SSML), byte 1 the
// plain-text piece size and byte 2 the size of each read, so the cuts between pieces fall anywhere; the rest is
// the request. Any error thrown is a fine answer; a trap, a sanitizer report or a hang is a finding.

import Planning
import Rendering
import SSML
import SpeechCore
import SpeechTestSupport

// libFuzzer calls the target from one thread only, so the planner and clips are shared without a lock.

/// An English and a Japanese voice, so that `<voice>`, `<lang>` and `xml:lang` switch between voices and
/// numbers, dates and times are read in both languages.
nonisolated(unsafe) let planner = Planner(voices: [
    PlannerVoice(
        voice: VoiceSettings(identifier: "com.example.en", primaryLanguages: ["en-US"]), lookup: phrases,
        fallbacks: [ClipTake(clipID: 99, frameCount: 50)]),
    PlannerVoice(
        voice: VoiceSettings(identifier: "com.example.ja", primaryLanguages: ["ja-JP"], normalRate: 1.2),
        lookup: phrases, fallbacks: [ClipTake(clipID: 98, frameCount: 60)]),
])

nonisolated(unsafe) let phrases = DictionaryLookup([
    "hello": [1], "world": [2], "good": [3], "good morning": [4], "morning": [5], "one": [6], "two": [7],
    "twenty": [8], "first": [9], "a": [10], "the": [11], "hello world": [12, 13], "こんにちは": [14], "一": [15],
    "二十": [16], "point": [17], "o'clock": [18],
])

/// Clip `n` of `DictionaryLookup` is `100 × n` frames; the fallbacks are 50 and 60.
nonisolated(unsafe) let clips = MemoryClips(
    Dictionary(uniqueKeysWithValues: (1...18).map { ($0, [Float](repeating: 0.25, count: 100 * $0)) })
        .merging([99: [Float](repeating: -0.25, count: 50), 98: [Float](repeating: 0.5, count: 60)]) { $1 })

/// Plans longer than this are planned but not rendered: a 600 s break is valid and would only cost time.
let longestRenderedFrames = 20 * 22_050

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard input.count >= 3 else { return 0 }
    let isLenient = input[0] & 1 != 0
    let isPlainText = input[0] & 2 != 0
    let pieceBytes = 1 + Int(input[1] % 64)
    let readBytes = 1 + Int(input[2] % 64)
    let request = Array(input[3...])
    do {
        let stream: PlanStream<DictionaryLookup>
        if isPlainText {
            var position = 0
            let text = PlainTextStream(source: "fuzz input", start: [], pieceBytes: pieceBytes) {
                let end = min(request.count, position + readBytes)
                defer { position = end }
                return Array(request[position..<end])
            }
            stream = planner.stream(text, context: SpeechContext(), isLenient: isLenient)
        } else {
            stream = planner.stream(
                try SSMLReader().events(String(decoding: request, as: UTF8.self), lenient: isLenient))
        }
        let plan = try stream.collect()
        if plan.frameCount <= longestRenderedFrames {
            _ = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 1 + Int(input[1]))
        }
    } catch {}
    return 0
}
