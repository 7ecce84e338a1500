import SSML
import Tokens
import Voicebank

/// Turns SSML events into a render plan: tokens per text run, greedy longest match, fallbacks, silences.
public struct Planner<Lookup: PhraseLookup> {
    public var voice: String
    public var lookup: Lookup
    /// The take that speaks for unmatched words; `nil` when the voice has none, which makes them an error.
    public var fallback: ClipTake?

    public init(voice: String, lookup: Lookup, fallback: ClipTake?) {
        self.voice = voice
        self.lookup = lookup
        self.fallback = fallback
    }

    /// The plan of a read document.
    ///
    /// A phrase never spans two text runs, so it never spans an element's start or end.
    /// - Throws: `ConcatSynthError.noFallbackClip` when words need a fallback the voice does not have; whatever
    ///   the look-up throws.
    public func plan(_ document: SSMLDocument) throws -> RenderPlan {
        var segments: [PlanSegment] = []
        var warnings = document.warnings.map(\.description)
        try append(document.events, to: &segments, warnings: &warnings)
        return RenderPlan(voice: voice, segments: segments, warnings: warnings)
    }

    private func append(_ events: [SSMLEvent], to segments: inout [PlanSegment], warnings: inout [String]) throws {
        for event in events {
            switch event {
            case .text(let run):
                try append(run, to: &segments)
            case .pause(let frames, _):
                segments.append(PlanSegment(kind: .silence, frameCount: frames))
            case .mark(let name, let sourceRange):
                segments.append(PlanSegment(kind: .mark(name), frameCount: 0, text: name, sourceRange: sourceRange))
            case .structureStart, .structureEnd:
                break
            case .audio(let source, let fallback, _):
                warnings.append("<audio src=\"\(source)\"> is not played: no audio directory is allowed; its fallback content is spoken")
                try append(fallback, to: &segments, warnings: &warnings)
            }
        }
    }

    private func append(_ run: TextRun, to segments: inout [PlanSegment]) throws {
        let tokens: [Token]
        switch run.context.sayAs?.interpretAs {
        case .characters, .spellOut: tokens = Tokenizer.characterTokens(in: run.text)
        case .digits, .telephone: tokens = Tokenizer.digitTokens(in: run.text)
        default: tokens = Tokenizer.tokens(in: run.text)
        }
        for match in try Matcher.match(tokens, in: lookup) {
            guard let first = match.tokens.first, let last = match.tokens.last else { continue }
            let sourceRange = run.sourceRange(forTextRange: first.sourceRange.lowerBound..<last.sourceRange.upperBound)
            let kind: PlanSegment.Kind
            let frameCount: Int
            if let take = match.take {
                kind = .phrase(take)
                frameCount = take.frameCount
            } else {
                guard let fallback else { throw ConcatSynthError.noFallbackClip(voice: voice, words: match.words) }
                kind = .fallback(fallback)
                frameCount = fallback.frameCount
            }
            segments.append(
                PlanSegment(
                    kind: kind, frameCount: frameCount, text: match.words, sourceRange: sourceRange,
                    volumeDecibels: run.context.volumeDecibels, rate: run.context.rate))
        }
    }
}
