import SSML
import Tokens
import Verbalization
import Voicebank

/// Which take of a phrase plays.
public enum TakeChoice: String, Sendable, CaseIterable {
    /// The n-th time a phrase is spoken in a request it plays take n (round the takes, first imported first), so
    /// "no, no, no" is three takes; the same request always plays the same takes.
    case rotate
    /// Always the first imported take.
    case first
}

/// A voice as the planner sees it: who it is, how to look its phrases up, and its fallback take.
public struct PlannerVoice<Lookup: PhraseLookup> {
    public var voice: Voice
    public var lookup: Lookup
    /// The takes that speak for unmatched words, first imported first; none makes such words an error.
    public var fallbacks: [ClipTake]

    public init(voice: Voice, lookup: Lookup, fallbacks: [ClipTake]) {
        self.voice = voice
        self.lookup = lookup
        self.fallbacks = fallbacks
    }

}

/// Turns SSML events into a render plan: a voice per text run, tokens, greedy longest match, fallbacks, silences.
public struct Planner<Lookup: PhraseLookup> {
    /// The pack's voices, in the pack's order.
    public var voices: [PlannerVoice<Lookup>]
    /// The index in `voices` of the voice that speaks where the request names none.
    public var startingVoice: Int
    /// Which `<audio>` files may play.
    public var audioSandbox: AudioSandbox
    public var takeChoice: TakeChoice

    /// - Parameter startingVoice: an identifier in `voices`; the first voice when `nil` or not found.
    public init(
        voices: [PlannerVoice<Lookup>], startingVoice: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .rotate
    ) {
        precondition(!voices.isEmpty, "a planner needs at least one voice")
        self.voices = voices
        self.startingVoice = voices.firstIndex { $0.voice.identifier == startingVoice } ?? 0
        self.audioSandbox = audioSandbox
        self.takeChoice = takeChoice
    }

    /// The plan of a read document.
    ///
    /// A phrase never spans two text runs, so it never spans an element's start or end.
    /// - Throws: `ConcatSynthError.noFallbackClip` when words need a fallback their voice does not have;
    ///   whatever a look-up throws.
    public func plan(_ document: SSMLDocument) throws -> RenderPlan {
        var planning = Planning(warnings: document.warnings.map(\.description))
        try append(document.events, to: &planning)
        crossfade(&planning.segments)
        return RenderPlan(
            voice: voices[startingVoice].voice.identifier, segments: planning.segments, warnings: planning.warnings,
            audio: planning.audio)
    }

    /// The plan under construction.
    private struct Planning {
        var segments: [PlanSegment] = []
        var warnings: [String]
        var audio: [[Float]] = []
        /// How often each phrase (by its first take) has been spoken so far, for take rotation.
        var occurrences: [ClipTake: Int] = [:]

        mutating func choose(from takes: [ClipTake], _ choice: TakeChoice) -> ClipTake {
            guard choice == .rotate, takes.count > 1 else { return takes[0] }
            let count = occurrences[takes[0], default: 0]
            occurrences[takes[0]] = count + 1
            return takes[count % takes.count]
        }
        var warned: Set<String> = []
        /// Numbers read as words so far, by language and digits: a long text says the same numbers again.
        var numberWords: [String: [Token]?] = [:]
        /// Each voice's look-ups so far, by voice index: a long text asks for the same phrases again and again.
        var lookups: [Int: RememberedLookup<Lookup>] = [:]

        mutating func lookup(_ index: Int, of voices: [PlannerVoice<Lookup>]) -> RememberedLookup<Lookup> {
            if let remembered = lookups[index] { return remembered }
            let remembered = RememberedLookup(voices[index].lookup)
            lookups[index] = remembered
            return remembered
        }

        mutating func warn(_ warning: String) {
            if warned.insert(warning).inserted { warnings.append(warning) }
        }
    }

    private func append(_ events: [SSMLEvent], to planning: inout Planning) throws {
        for event in events {
            switch event {
            case .text(let run):
                try append(run, to: &planning)
            case .pause(let frames, _):
                planning.segments.append(PlanSegment(kind: .silence, frameCount: frames))
            case .mark(let name, let sourceRange):
                planning.segments.append(PlanSegment(kind: .mark(name), text: name, sourceRange: sourceRange))
            case .structureStart(let structure, let sourceRange):
                planning.segments.append(PlanSegment(kind: .structureStart(structure), sourceRange: sourceRange))
            case .structureEnd(let structure):
                planning.segments.append(PlanSegment(kind: .structureEnd(structure)))
            case .audio(let source, let fallback, let sourceRange):
                switch audioSandbox.load(source) {
                case .success(let samples):
                    planning.segments.append(
                        PlanSegment(
                            kind: .audio(index: planning.audio.count), frameCount: samples.count, text: source,
                            sourceRange: sourceRange))
                    planning.audio.append(samples)
                case .failure(let refusal):
                    planning.warn(refusal.description)
                    try append(fallback, to: &planning)
                }
            }
        }
    }

    private func append(_ run: TextRun, to planning: inout Planning) throws {
        let speakerIndex = voiceIndex(for: run.context, planning: &planning)
        let speaker = voices[speakerIndex]
        let lookup = planning.lookup(speakerIndex, of: voices)
        let tokens: [Token]
        switch run.context.sayAs?.interpretAs {
        case .characters, .spellOut: tokens = Tokenizer.characterTokens(in: run.text)
        case .digits:
            tokens = Tokenizer.digitTokens(in: run.text)
        case .telephone:
            tokens = plusSign(in: run, language: speaker.voice) + Tokenizer.digitTokens(in: run.text)
        case .cardinal, .number, .ordinal, .date, .time:
            switch sayAsTokens(run, speaker: speaker.voice) {
            case .success(let words): tokens = words
            case .failure(let error):
                planning.warn(
                    "<say-as interpret-as=\"\(run.context.sayAs!.interpretAs.rawValue)\"> read as plain text: \(error)")
                tokens = Tokenizer.tokens(in: run.text)
            }
        case nil: tokens = Tokenizer.tokens(in: run.text)
        }
        for match in try Matcher.match(tokens, in: lookup) {
            guard match.take == nil else {
                try appendSegment(for: match, of: run, speaker: speaker, to: &planning)
                continue
            }
            // Digits no clip covers are read as a number, in words the voice may have; the rest falls back.
            var unmatched: [Token] = []
            for token in match.tokens {
                guard token.kind == .number,
                    let words = numberTokens(token, language: speaker.voice, planning: &planning)
                else {
                    unmatched.append(token)
                    continue
                }
                if !unmatched.isEmpty {
                    try appendSegment(
                        for: Match(takes: [], tokens: unmatched), of: run, speaker: speaker, to: &planning)
                    unmatched = []
                }
                for wordMatch in try Matcher.match(words, in: lookup) {
                    try appendSegment(for: wordMatch, of: run, speaker: speaker, to: &planning)
                }
            }
            if !unmatched.isEmpty {
                try appendSegment(for: Match(takes: [], tokens: unmatched), of: run, speaker: speaker, to: &planning)
            }
        }
    }

    private func appendSegment(
        for match: Match, of run: TextRun, speaker: PlannerVoice<Lookup>, to planning: inout Planning
    ) throws {
        guard let first = match.tokens.first, let last = match.tokens.last else { return }
        let sourceRange = run.sourceRange(forTextRange: first.sourceRange.lowerBound..<last.sourceRange.upperBound)
        let kind: PlanSegment.Kind
        let frameCount: Int
        if !match.takes.isEmpty {
            let take = planning.choose(from: match.takes, takeChoice)
            kind = .phrase(take)
            frameCount = take.frameCount
        } else {
            guard !speaker.fallbacks.isEmpty else {
                throw ConcatSynthError.noFallbackClip(voice: speaker.voice.identifier, words: match.words)
            }
            let fallback = planning.choose(from: speaker.fallbacks, takeChoice)
            kind = .fallback(fallback)
            frameCount = fallback.frameCount
        }
        planning.segments.append(
            PlanSegment(
                kind: kind, frameCount: frameCount, text: match.words, sourceRange: sourceRange,
                voice: speaker.voice.identifier, volumeDecibels: run.context.volumeDecibels,
                rate: run.context.rate / speaker.voice.normalRate, edgeFadeFrames: speaker.voice.joins.edgeFadeFrames))
    }

    /// Overlaps each clip with the next where both voices crossfade and nothing sounding (a silence, an
    /// `<audio>`) lies between them: by the smaller voice's crossfade, at most half of either clip.
    private func crossfade(_ segments: inout [PlanSegment]) {
        let crossfades = Dictionary(
            uniqueKeysWithValues: voices.map { ($0.voice.identifier, $0.voice.joins.crossfadeFrames) })
        var previousClip: Int?
        for index in segments.indices {
            switch segments[index].kind {
            case .phrase, .fallback:
                if let previous = previousClip {
                    let wanted = min(crossfades[segments[previous].voice] ?? 0, crossfades[segments[index].voice] ?? 0)
                    segments[previous].overlapWithNext = min(
                        wanted, segments[previous].frameCount / 2, segments[index].frameCount / 2)
                }
                previousClip = index
            case .silence, .audio:
                previousClip = nil
            case .mark, .structureStart, .structureEnd:
                break
            }
        }
    }

    /// The word for a telephone number's leading `+` in the voice's language (`plus`, `プラス`), if it has one.
    private func plusSign(in run: TextRun, language voice: Voice) -> [Token] {
        let leading = run.text.utf16.prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }.count
        guard let first = run.text.utf16.dropFirst(leading).first, first == 0x2B || first == 0xFF0B,
            let verbalizer = Verbalizer.forLanguage(voice.primaryLanguages.first ?? "")
        else { return [] }
        return Tokenizer.tokens(in: verbalizer.plusSign).map {
            Token($0.text, $0.kind, sourceRange: leading..<leading + 1)
        }
    }

    /// The words of a `say-as` number, ordinal, date or time in the voice's language,
    /// as tokens that all point at the whole run; a failure when the text is not one or the language has no
    /// words for it.
    private func sayAsTokens(_ run: TextRun, speaker voice: Voice) -> Result<[Token], VerbalizationError> {
        let sayAs = run.context.sayAs!
        guard let interpretation = Interpretation(interpretAs: sayAs.interpretAs.rawValue) else {
            preconditionFailure("say-as \(sayAs.interpretAs) has no words to read")
        }
        let language = voice.primaryLanguages.first ?? ""
        return Result { () throws(VerbalizationError) in
            let words = try Verbalizer.words(
                for: run.text, as: interpretation, format: sayAs.format, language: language)
            return Tokenizer.tokens(in: words.joined(separator: " ")).map {
                Token($0.text, $0.kind, sourceRange: 0..<run.text.utf16.count)
            }
        }
    }

    /// A digit run read as a cardinal number in the voice's language, as tokens that point at the digits.
    private func numberTokens(_ token: Token, language voice: Voice, planning: inout Planning) -> [Token]? {
        let language = voice.primaryLanguages.first ?? ""
        let key = language + " " + token.text
        let words: [Token]?
        if let remembered = planning.numberWords[key] {
            words = remembered
        } else {
            words = (try? Verbalizer.words(for: token.text, as: .cardinal, format: nil, language: language)).map {
                Tokenizer.tokens(in: $0.joined(separator: " "))
            }
            planning.numberWords[key] = words
        }
        return words?.map { Token($0.text, $0.kind, sourceRange: token.sourceRange) }
    }

    /// The voice a run is spoken in: the one `<voice name>` names (identifier or name), else the best for its
    /// `xml:lang` (a primary language before a supported one, the whole tag before its language subtag), else
    /// the starting voice. A name or language no voice answers to is a warning.
    private func voiceIndex(for context: SpeechContext, planning: inout Planning) -> Int {
        if let name = context.voiceName {
            if let index = voices.firstIndex(where: {
                $0.voice.identifier == name || $0.voice.name.lowercased() == name.lowercased()
            }) {
                return index
            }
            planning.warn(
                "no voice \"\(name)\" in the pack (voices: \(voices.map(\.voice.identifier).joined(separator: ", "))); "
                    + "speaking with \(context.language == nil ? "the current voice" : "the voice for its language")")
        }
        guard let tag = context.language?.lowercased(), !tag.isEmpty else { return startingVoice }
        let subtag = tag.split(separator: "-").first.map(String.init) ?? tag
        let matchers: [(Voice) -> Bool] = [
            { $0.primaryLanguages.contains { $0.lowercased() == tag } },
            { $0.supportedLanguages.contains { $0.lowercased() == tag } },
            { $0.primaryLanguages.contains { $0.lowercased().split(separator: "-").first.map(String.init) == subtag } },
            {
                $0.supportedLanguages.contains {
                    $0.lowercased().split(separator: "-").first.map(String.init) == subtag
                }
            },
        ]
        // The starting voice wins a tie, so a request in the starting voice's language never switches voice.
        for matches in matchers {
            if matches(voices[startingVoice].voice) { return startingVoice }
            if let index = voices.firstIndex(where: { matches($0.voice) }) { return index }
        }
        planning.warn(
            "no voice for xml:lang=\"\(context.language ?? "")\" in the pack; speaking with \(voices[startingVoice].voice.identifier)"
        )
        return startingVoice
    }
}

/// A voice's phrase look-ups, each asked of the pack once per plan and remembered for the rest of it.
///
/// A plan reads one snapshot of the pack (`VoicePack.reading`), so the answers cannot change while it lasts.
final class RememberedLookup<Lookup: PhraseLookup>: PhraseLookup {
    let lookup: Lookup
    private var firstKeys: [KeyBytes: String?] = [:]
    private var takesByKey: [KeyBytes: [ClipTake]] = [:]

    init(_ lookup: Lookup) { self.lookup = lookup }

    func firstPhraseKey(atOrAfter key: String) throws -> String? {
        if let known = firstKeys[KeyBytes(key)] { return known }
        let found = try lookup.firstPhraseKey(atOrAfter: key)
        firstKeys[KeyBytes(key)] = .some(found)
        return found
    }

    func takes(forPhraseKey key: String) throws -> [ClipTake] {
        if let known = takesByKey[KeyBytes(key)] { return known }
        let takes = try lookup.takes(forPhraseKey: key)
        takesByKey[KeyBytes(key)] = takes
        return takes
    }
}

/// A phrase key hashed and compared as its UTF-8 bytes, as the pack compares it: keys are normalised already,
/// and `String`'s own hashing would normalise them again.
struct KeyBytes: Hashable {
    var key: String

    init(_ key: String) { self.key = key }

    static func == (left: KeyBytes, right: KeyBytes) -> Bool {
        var left = left.key
        var right = right.key
        return left.withUTF8 { leftBytes in right.withUTF8 { leftBytes.elementsEqual($0) } }
    }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
