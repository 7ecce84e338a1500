// SPDX-License-Identifier: GPL-3.0-or-later
import SSML

/// Reads `request` with the default reader (22050 Hz).
func read(_ request: String, lenient: Bool = false) throws(SSMLError) -> SSMLDocument {
    try SSMLReader().read(request, lenient: lenient)
}

/// The events of `request`, read strictly.
func events(_ request: String) throws(SSMLError) -> [SSMLEvent] {
    try read(request).events
}

/// The text runs of `events`, in order (not looking inside `<audio>` fallbacks).
func runs(_ events: [SSMLEvent]) -> [TextRun] {
    events.compactMap { event in
        if case .text(let run) = event { return run }
        return nil
    }
}

/// The error `request` is refused with, or `nil` when it is read.
func error(_ request: String, lenient: Bool = false) -> SSMLError? {
    do {
        _ = try read(request, lenient: lenient)
        return nil
    } catch {
        return error
    }
}

/// A text event.
func text(_ text: String, _ range: Range<Int>, _ context: SpeechContext = SpeechContext()) -> SSMLEvent {
    .text(TextRun(text: text, sourceRange: range, context: context))
}

/// The UTF-16 slice `range` of `request`, as a string.
func slice(_ request: String, _ range: Range<Int>) -> String {
    let start = String.Index(utf16Offset: range.lowerBound, in: request)
    let end = String.Index(utf16Offset: range.upperBound, in: request)
    return String(request.utf16[start..<end])!
}

/// Frames at 22050 Hz for whole milliseconds, rounded half away from zero.
func frames(milliseconds: Int) -> Int {
    (2 * milliseconds * 22050 + 1000) / 2000
}

/// VoiceOver's everyday context (Japanese, 100 % rate and volume): `rate="400.0%" volume="-1.0dB"`.
let voiceOver = SpeechContext(volumeDecibels: -1, rate: 4)

/// The events of a sentence inferred where no `<s>` is: `events` between its start and its end, whose source range
/// runs from its first character to its last that is not white space.
func sentence(_ range: Range<Int>, _ events: SSMLEvent...) -> [SSMLEvent] {
    [.structureStart(.sentence)] + events + [.structureEnd(.sentence, sourceRange: range)]
}
