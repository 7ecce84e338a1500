import Voicebank

/// One piece of the output, in order: a clip, a fallback clip, silence, or a mark (no frames).
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
    }

    public var kind: Kind
    public var frameCount: Int
    /// The words spoken (tokens joined by spaces), or what the fallback stands for; empty for silence.
    public var text: String
    /// UTF-16 offsets in the request of what this segment speaks; `nil` for silence.
    public var sourceRange: Range<Int>?
    /// Volume from `prosody` and `emphasis`, in dB; `-infinity` for silent.
    public var volumeDecibels: Double
    /// Rate from `prosody`, a multiple of the voice's normal rate; carried, applied by a later stage.
    public var rate: Double

    public init(
        kind: Kind, frameCount: Int, text: String = "", sourceRange: Range<Int>? = nil, volumeDecibels: Double = 0,
        rate: Double = 1
    ) {
        self.kind = kind
        self.frameCount = frameCount
        self.text = text
        self.sourceRange = sourceRange
        self.volumeDecibels = volumeDecibels
        self.rate = rate
    }

    /// The linear factor samples are multiplied by: 10^(dB/20), 0 for silent.
    public var gain: Float {
        volumeDecibels == -.infinity ? 0 : Float(pow10(volumeDecibels / 20))
    }

    public var description: String {
        var line: String
        switch kind {
        case .phrase(let take): line = "phrase \(take) \"\(text)\""
        case .fallback(let take): line = "fallback \(take) for \"\(text)\""
        case .silence: line = "silence"
        case .mark(let name): line = "mark \"\(name)\""
        }
        line += " \(frameCount) frames"
        if volumeDecibels != 0 { line += " \(volumeDecibels == -.infinity ? "silent" : "\(volumeDecibels) dB")" }
        if rate != 1 { line += " rate \(rate)" }
        return line
    }
}

/// What a request becomes before any audio is read: its segments in order, and what the fallback spoke for.
public struct RenderPlan: Equatable, Sendable, CustomStringConvertible {
    /// The identifier of the voice that speaks.
    public var voice: String
    public var segments: [PlanSegment]
    /// The SSML reader's warnings (lenient mode, unknown `interpret-as`, …), one sentence each.
    public var warnings: [String]

    public init(voice: String, segments: [PlanSegment], warnings: [String] = []) {
        self.voice = voice
        self.segments = segments
        self.warnings = warnings
    }

    /// The output's length: every segment end to end.
    public var frameCount: Int { segments.reduce(0) { $0 + $1.frameCount } }

    /// The fallback segments: the words no clip covered, each maximal run once.
    public var fallbacks: [PlanSegment] {
        segments.filter { if case .fallback = $0.kind { true } else { false } }
    }

    /// The most frames any one clip of the plan has: the size of the renderer's clip buffer.
    var longestClipFrameCount: Int {
        segments.reduce(0) { longest, segment in
            switch segment.kind {
            case .phrase, .fallback: max(longest, segment.frameCount)
            case .silence, .mark: longest
            }
        }
    }

    public var description: String {
        (["plan for \(voice): \(frameCount) frames"] + segments.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// 10^x without Foundation.
func pow10(_ exponent: Double) -> Double {
    #if canImport(Glibc)
        return Glibc.pow(10, exponent)
    #else
        return Darwin.pow(10, exponent)
    #endif
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
