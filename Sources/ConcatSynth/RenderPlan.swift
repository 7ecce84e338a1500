import AudioIO
import SSML
import Voicebank

/// One piece of the output, in order: a clip, a fallback clip, silence, or a point with no frames.
public struct PlanSegment: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A take of a phrase the voice has.
        case phrase(ClipTake)
        /// The voice's fallback clip, standing for words no phrase covers.
        case fallback(ClipTake)
        /// Silence: a `<break>`, or the pause after a sentence or paragraph.
        case silence
        /// A `<mark>`: a named point in the audio.
        case mark(String)
        /// An `<audio>` file the sandbox allowed: `RenderPlan.audio[index]`.
        case audio(index: Int)
        /// Where an `<s>` or `<p>` begins and ends.
        case structureStart(StructureKind)
        case structureEnd(StructureKind)
    }

    public var kind: Kind
    public var frameCount: Int
    /// The words spoken (tokens joined by spaces), what the fallback stands for, or the mark's name.
    public var text: String
    /// UTF-16 offsets in the request of what this segment speaks; `nil` for silence.
    public var sourceRange: Range<Int>?
    /// The identifier of the voice that speaks it; empty for silence and points.
    public var voice: String
    /// Volume from `prosody` and `emphasis`, in dB; `-infinity` for silent.
    public var volumeDecibels: Double
    /// The SSML rate divided by the voice's normal rate: 1 plays the clips as recorded. Carried, not yet applied.
    public var rate: Double
    /// Frames the clip fades in and out over at edges that do not crossfade.
    public var edgeFadeFrames: Int
    /// Frames the clip's end overlaps the next clip's start (a crossfade); 0 when the next is no clip.
    public var overlapWithNext: Int

    public init(
        kind: Kind, frameCount: Int = 0, text: String = "", sourceRange: Range<Int>? = nil, voice: String = "",
        volumeDecibels: Double = 0, rate: Double = 1, edgeFadeFrames: Int = Joins.standard.edgeFadeFrames,
        overlapWithNext: Int = 0
    ) {
        self.edgeFadeFrames = edgeFadeFrames
        self.overlapWithNext = overlapWithNext
        self.kind = kind
        self.frameCount = frameCount
        self.text = text
        self.sourceRange = sourceRange
        self.voice = voice
        self.volumeDecibels = volumeDecibels
        self.rate = rate
    }

    /// The linear factor samples are multiplied by: 10^(dB/20) of the volume and the clip's loudness level, 0
    /// for silent.
    public var gain: Float {
        let level: Double
        switch kind {
        case .phrase(let take), .fallback(let take): level = take.levelDecibels
        default: level = 0
        }
        return Float(Decibels.amplitude(volumeDecibels + level))
    }

    public var description: String {
        var line: String
        switch kind {
        case .phrase(let take): line = "phrase \(take) \"\(text)\""
        case .fallback(let take): line = "fallback \(take) for \"\(text)\""
        case .silence: line = "silence"
        case .mark(let name): line = "mark \"\(name)\""
        case .audio(let index): line = "audio #\(index) \"\(text)\""
        case .structureStart(let structure): line = "\(structure.rawValue) start"
        case .structureEnd(let structure): line = "\(structure.rawValue) end"
        }
        if frameCount > 0 { line += " \(frameCount) frames" }
        if !voice.isEmpty { line += " (\(voice))" }
        if volumeDecibels != 0 { line += " \(volumeDecibels == -.infinity ? "silent" : "\(volumeDecibels) dB")" }
        if rate != 1 { line += " rate \(rate)" }
        if overlapWithNext > 0 { line += " crossfade \(overlapWithNext)" }
        return line
    }
}

/// What a request becomes before any audio is read: its segments in order, and what the fallback spoke for.
public struct RenderPlan: Equatable, Sendable, CustomStringConvertible {
    /// The identifier of the voice the request starts with.
    public var voice: String
    public var segments: [PlanSegment]
    /// The SSML reader's and planner's warnings (lenient mode, unknown voice, …), one sentence each.
    public var warnings: [String]
    /// The render-ready samples of the `<audio>` files the plan plays.
    public var audio: [[Float]]

    public init(voice: String, segments: [PlanSegment], warnings: [String] = [], audio: [[Float]] = []) {
        self.voice = voice
        self.segments = segments
        self.warnings = warnings
        self.audio = audio
    }

    /// The output's length: every segment end to end, less each crossfade.
    public var frameCount: Int { segments.reduce(0) { $0 + $1.frameCount - $1.overlapWithNext } }

    /// Output frames where one sounding segment gives way to the next: where a join could click.
    public var joinFrames: [Int] {
        var joins: [Int] = []
        var frame = 0
        for segment in segments where segment.frameCount > 0 {
            if frame > 0 { joins.append(frame) }
            frame += segment.frameCount - segment.overlapWithNext
        }
        return joins
    }

    /// The fallback segments: the words no clip covered, each maximal run once.
    public var fallbacks: [PlanSegment] {
        segments.filter { if case .fallback = $0.kind { true } else { false } }
    }

    /// A marker for each phrase (clip or fallback), sentence, paragraph and `<mark>`, in frame order; where
    /// several start at one frame, the enclosing one comes first.
    ///
    /// A sentence's or paragraph's text is the words spoken in it, its range from its first spoken word to its
    /// last (the whole element when nothing in it is spoken), its frames up to its end (without the pause after).
    public var markers: [Marker] {
        var markers: [Marker] = []
        var open: [(index: Int, words: [String], range: Range<Int>?)] = []
        var frame = 0
        for segment in segments {
            switch segment.kind {
            case .phrase, .fallback:
                let range = segment.sourceRange ?? 0..<0
                markers.append(
                    Marker(
                        kind: .phrase, text: segment.text, frame: frame, frameCount: segment.frameCount,
                        textRange: range))
                for level in open.indices {
                    open[level].words.append(segment.text)
                    open[level].range =
                        open[level].range.map {
                            min($0.lowerBound, range.lowerBound)..<max($0.upperBound, range.upperBound)
                        } ?? range
                }
            case .mark(let name):
                markers.append(
                    Marker(
                        kind: .mark, text: name, frame: frame, frameCount: 0, textRange: segment.sourceRange ?? 0..<0))
            case .structureStart(let structure):
                open.append((markers.count, [], nil))
                markers.append(
                    Marker(
                        kind: structure == .sentence ? .sentence : .paragraph, text: "", frame: frame, frameCount: 0,
                        textRange: segment.sourceRange ?? 0..<0))
            case .structureEnd:
                guard let (index, words, range) = open.popLast() else { break }
                markers[index].frameCount = frame - markers[index].frame
                markers[index].text = words.joined(separator: " ")
                if let range { markers[index].textRange = range }
            case .silence, .audio:
                break
            }
            frame += segment.frameCount - segment.overlapWithNext
        }
        return markers
    }

    public var description: String {
        (["plan for \(voice): \(frameCount) frames"] + segments.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// A point or span in the audio and the text it speaks, like Apple's `AVSpeechSynthesisMarker`.
public struct Marker: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case phrase, sentence, paragraph, mark
    }

    public var kind: Kind
    /// The words spoken, or the mark's name.
    public var text: String
    /// The first frame, in the 22050 Hz output.
    public var frame: Int
    /// Frames it lasts; 0 for a mark.
    public var frameCount: Int
    /// UTF-16 offsets in the request as given.
    public var textRange: Range<Int>

    public init(kind: Kind, text: String, frame: Int, frameCount: Int, textRange: Range<Int>) {
        self.kind = kind
        self.text = text
        self.frame = frame
        self.frameCount = frameCount
        self.textRange = textRange
    }

    /// Where `frame` starts in the Float32 output: what Apple's `byteSampleOffset` carries.
    public var byteOffset: Int { frame * MemoryLayout<Float>.size }

    /// One line of JSON with the fields SPEC.md lists, in its order.
    public var jsonLine: String {
        #"{"kind":"\#(kind.rawValue)","text":\#(jsonString(text)),"frame":\#(frame),"frames":\#(frameCount),"#
            + #""byteOffset":\#(byteOffset),"textRange":[\#(textRange.lowerBound),\#(textRange.count)]}"#
    }

    public var description: String { jsonLine }
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
func jsonString(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        case "\t": escaped += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped + "\""
}
