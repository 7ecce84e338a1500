// SPDX-License-Identifier: GPL-3.0-or-later
/// What a request says, as a flat list of events in speaking order, plus the warnings met on the way.
public struct SSMLDocument: Equatable, Sendable, CustomStringConvertible {
    public var events: [SSMLEvent]
    public var warnings: [SSMLWarning]

    public init(events: [SSMLEvent] = [], warnings: [SSMLWarning] = []) {
        self.events = events
        self.warnings = warnings
    }

    /// One line per event, then one line per warning (`warning: …`); `(no events)` when there are none.
    public var description: String {
        var lines = events.map(\.description)
        if lines.isEmpty { lines.append("(no events)") }
        lines += warnings.map { "warning: \($0.message)" }
        return lines.joined(separator: "\n")
    }
}

/// One step of a request.
public enum SSMLEvent: Equatable, Sendable, CustomStringConvertible {
    /// Character data between two tags (or a `<sub>` alias); a phrase never spans two runs.
    ///
    /// (Boxed, so that an event stays small: a 10 MB request makes about a million of them.)
    indirect case text(TextRun)
    /// Silence of `frames` frames at the reader's sample rate, spoken in `context`: a pause that
    /// `origin.followsRate` is shorter at a faster rate.
    case pause(frames: Int, origin: PauseOrigin, context: SpeechContext = SpeechContext())
    /// A `<mark name=…>`; `sourceRange` is that of the whole element.
    case mark(name: String, sourceRange: Range<Int>)
    /// The start of a `<s>` or `<p>`.
    case structureStart(StructureKind)
    /// The end of the `<s>` or `<p>` opened by the matching `structureStart`; `sourceRange` is that of the
    /// whole element, start tag to end tag (known at its end, so that nothing before it waits for it).
    case structureEnd(StructureKind, sourceRange: Range<Int>)
    /// An `<audio src=…>`: play `source`, or speak `fallback` (the events of its content) when it cannot be
    /// played; `sourceRange` is that of the whole element; `context` is how the file is played (its volume, rate
    /// and pitch).
    case audio(source: String, fallback: [SSMLEvent], sourceRange: Range<Int>, context: SpeechContext = SpeechContext())

    /// One line, e.g. `text "Hello" 7..<12 (rate 2.0)`, `pause 3925 frames (break)`.
    public var description: String {
        switch self {
        case .text(let run):
            return run.description
        case .pause(let frames, let origin, let context):
            let prosody = context.prosody == .normal ? "" : ", \(context.prosody)"
            return "pause \(frames) frames (\(origin.rawValue)\(prosody))"
        case .mark(let name, let range):
            return "mark \(name.debugDescription) \(range)"
        case .structureStart(let kind):
            return "\(kind.rawValue) start"
        case .structureEnd(let kind, let range):
            return "\(kind.rawValue) end \(range)"
        case .audio(let source, let fallback, let range, _):
            let inner = fallback.map(\.description).joined(separator: "; ")
            return "audio \(source.debugDescription) \(range) fallback [\(inner)]"
        }
    }
}

/// Why a pause is there.
///
/// Sentence and paragraph pauses are made only between spoken content: never at the very end of the
/// request, never before the first text or audio, only the longest where several boundaries meet
/// (`</s></p><p><s>` gives one 1000 ms pause), and never where a `<break>` sits at the boundary (as the last
/// content inside the element or the first after it). Such a pause comes right after the last
/// `structureEnd` of its boundary.
public enum PauseOrigin: String, Equatable, Sendable, CaseIterable {
    /// A `<break time=…>`: exactly its frames at every rate.
    case breakElement = "break"
    /// A `<break strength=…>`, or a bare `<break/>` (medium).
    case breakStrength = "break strength"
    /// The end of an `<s>` (750 ms, the `medium` break).
    case sentence
    /// The end of a `<p>` (1000 ms, the `strong` break).
    case paragraph

    /// Whether the pause is divided by the speed it is spoken at: a reader at 4x wants no second between
    /// sentences. Only a `<break time>` asks for an exact length.
    public var followsRate: Bool { self != .breakElement }
}

/// The structural elements that produce markers and pauses.
public enum StructureKind: String, Equatable, Sendable, CaseIterable {
    case sentence
    case paragraph
}

/// A run of text to speak, where it came from in the request, and how to speak it.
///
/// Two runs are equal when their text, source range and context are equal.
public struct TextRun: Equatable, Sendable, CustomStringConvertible {
    /// The text to speak, entities decoded, whitespace as given; for `<sub alias=…>` the alias.
    public var text: String
    /// UTF-16 offsets of the run in the request as given: from its first character to its last (comments
    /// and CDATA markup inside it included); for `<sub>` the whole element.
    public var sourceRange: Range<Int>
    public var context: SpeechContext
    /// Whether the next event's run goes on from this one: a long text read a piece at a time, where a
    /// phrase may reach across the cut.
    public var isContinued: Bool
    /// How UTF-16 offsets in `text` map back to the request; derived from the request while reading.
    var sourceMap: SourceMap

    public init(
        text: String, sourceRange: Range<Int>, context: SpeechContext = SpeechContext(), isContinued: Bool = false
    ) {
        self.init(text: text, sourceRange: sourceRange, context: context, sourceMap: .identity)
        self.isContinued = isContinued
    }

    init(text: String, sourceRange: Range<Int>, context: SpeechContext, sourceMap: SourceMap) {
        self.text = text
        self.sourceRange = sourceRange
        self.context = context
        self.isContinued = false
        self.sourceMap = sourceMap
    }

    public static func == (lhs: TextRun, rhs: TextRun) -> Bool {
        lhs.text == rhs.text && lhs.sourceRange == rhs.sourceRange && lhs.context == rhs.context
            && lhs.isContinued == rhs.isContinued
    }

    /// The UTF-16 range of the request that `textRange` (UTF-16 offsets into `text`) was read from.
    ///
    /// Entities and character references map to the whole reference (`&amp;` is 5 units for 1), and any
    /// part of a `<sub>` alias maps to the whole `<sub>` element, so a word marker always points at what
    /// the request says. Offsets outside `text` are clamped.
    ///
    /// ```swift
    /// // request: "<speak>Q&amp;A now</speak>", run.text == "Q&A now"
    /// run.sourceRange(forTextRange: 0..<3)   // 7..<14, "Q&amp;A"
    /// ```
    public func sourceRange(forTextRange textRange: Range<Int>) -> Range<Int> {
        switch sourceMap {
        case .whole:
            return sourceRange
        case .identity:
            let count = sourceRange.count
            let lower = min(max(textRange.lowerBound, 0), count)
            let upper = min(max(textRange.upperBound, lower), count)
            return (sourceRange.lowerBound + lower)..<(sourceRange.lowerBound + upper)
        case .segments(let segments):
            guard let last = segments.last else { return sourceRange.lowerBound..<sourceRange.lowerBound }
            let lower = min(max(textRange.lowerBound, 0), last.textEnd)
            let upper = min(max(textRange.upperBound, lower), last.textEnd)
            let start = SourceSegment.sourceOffset(ofStart: lower, in: segments)
            if lower == upper { return start..<start }
            return start..<max(start, SourceSegment.sourceOffset(ofEnd: upper, in: segments))
        }
    }

    /// `text "…" lower..<upper`, then the non-default context in parentheses.
    public var description: String {
        let context = context.description
        return "text \(text.debugDescription) \(sourceRange)" + (context.isEmpty ? "" : " (\(context))")
            + (isContinued ? " continued" : "")
    }
}

/// A problem the reader worked around; `message` is one sentence naming the input, line and column.
public struct SSMLWarning: Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { message }
}

/// How a run's text offsets map to the request's UTF-16 offsets.
enum SourceMap: Sendable {
    /// The text is the source slice, unit for unit.
    case identity
    /// Any part of the text stands for the whole source range (a `<sub>` alias).
    case whole
    /// Pieces in text order: verbatim character data, or a replacement (a decoded reference); gaps in
    /// the source between pieces are markup (comments, CDATA delimiters, dropped tags).
    case segments([SourceSegment])
}

/// One piece of a run: text units `textStart..<textEnd` came from source units `sourceStart..<sourceEnd`.
struct SourceSegment: Equatable, Sendable {
    var textStart: Int
    var textEnd: Int
    var sourceStart: Int
    var sourceEnd: Int
    /// Verbatim pieces map unit for unit; a replacement maps as a whole.
    var isVerbatim: Bool

    /// The source offset where text offset `offset` starts; `offset` is within 0...text length.
    static func sourceOffset(ofStart offset: Int, in segments: [SourceSegment]) -> Int {
        let index = firstIndex(in: segments) { $0.textEnd > offset }
        guard index < segments.count else { return segments[segments.count - 1].sourceEnd }
        let segment = segments[index]
        return segment.isVerbatim ? segment.sourceStart + (offset - segment.textStart) : segment.sourceStart
    }

    /// The source offset where text ending at `offset` ends; `offset` is within 1...text length.
    static func sourceOffset(ofEnd offset: Int, in segments: [SourceSegment]) -> Int {
        let index = firstIndex(in: segments) { $0.textEnd >= offset }
        guard index < segments.count else { return segments[segments.count - 1].sourceEnd }
        let segment = segments[index]
        return segment.isVerbatim ? segment.sourceStart + (offset - segment.textStart) : segment.sourceEnd
    }

    /// The pieces of `segments` that `textRange` covers, cut to it, with text offsets counted from its start: the
    /// map of a part of a run (`TextRun.part`). A cut falls between scalars, so never inside a replacement.
    static func slice(_ segments: [SourceSegment], _ textRange: Range<Int>) -> [SourceSegment] {
        var sliced: [SourceSegment] = []
        var index = firstIndex(in: segments) { $0.textEnd > textRange.lowerBound }
        while index < segments.count && segments[index].textStart < textRange.upperBound {
            var segment = segments[index]
            let start = max(segment.textStart, textRange.lowerBound)
            let end = min(segment.textEnd, textRange.upperBound)
            if segment.isVerbatim {
                segment.sourceStart += start - segment.textStart
                segment.sourceEnd -= segment.textEnd - end
            }
            segment.textStart = start - textRange.lowerBound
            segment.textEnd = end - textRange.lowerBound
            sliced.append(segment)
            index += 1
        }
        return sliced
    }

    /// Binary search: the first index whose segment satisfies `predicate` (which is monotonic).
    private static func firstIndex(in segments: [SourceSegment], where predicate: (SourceSegment) -> Bool) -> Int {
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(segments[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
