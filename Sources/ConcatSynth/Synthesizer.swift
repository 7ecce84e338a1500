import AudioIO
import Planning
import Rendering
import SSML
import SpeechCore
import Voicebank

/// What to say and how: the text or SSML, the voice to start with, and the request's own rate, pitch and
/// volume (as if the request were wrapped in `<prosody>`).
///
/// ```swift
/// SpeechRequest("Hello", prosody: Prosody(rate: 2, pitchSemitones: -2))
/// ```
public struct SpeechRequest: Equatable, Sendable {
    /// SSML, or plain text when it does not start with `<`.
    public var text: String
    /// Plain text read a piece at a time (a long file or a pipe), spoken instead of `text` as it is read.
    public var plainText: PlainTextStream?
    /// The identifier of the voice to start with; `nil` for the synthesizer's.
    public var voice: String?
    public var prosody: Prosody
    /// Speak malformed SSML's text with a warning, and ignore bad attribute values: what a screen reader,
    /// which cannot afford silence, wants.
    public var isLenient: Bool

    public init(_ text: String, voice: String? = nil, prosody: Prosody = .normal, isLenient: Bool = false) {
        self.text = text
        self.voice = voice
        self.prosody = prosody
        self.isLenient = isLenient
    }

    /// Plain text read as it is spoken: memory stays small however long the text. Invalid UTF-8 in strict
    /// mode stops the request at the piece that holds it, after the audio of the pieces before.
    public init(plainText: PlainTextStream, voice: String? = nil, prosody: Prosody = .normal, isLenient: Bool = false) {
        self.init("", voice: voice, prosody: prosody, isLenient: isLenient)
        self.plainText = plainText
    }

    public static func == (left: SpeechRequest, right: SpeechRequest) -> Bool {
        left.text == right.text && left.plainText === right.plainText && left.voice == right.voice
            && left.prosody == right.prosody && left.isLenient == right.isLenient
    }
}

/// Speaks requests with the voices of a pack: SSML or text → events → tokens → match plan → timeline → PCM.
///
/// ```swift
/// let synthesizer = try Synthesizer(pack: VoicePack(path: "my.sqlite", access: .readOnly))
/// let renderer = try synthesizer.renderer(for: SpeechRequest("<speak>Hello <break time=\"1s\"/> world</speak>"))
/// // pull frames from it; it plans as it goes
/// ```
public final class Synthesizer {
    public let pack: VoicePack
    /// The voice that speaks where the request names none.
    public let voice: Voice
    private let planner: Planner<ClipIndex>
    private let reader = SSMLReader(sampleRate: RenderFormat.sampleRate)
    /// The clips its renderers stretched, kept for the requests that follow (`StretchCache`).
    public let stretchCache: StretchCache

    /// - Parameter voice: the starting voice's identifier; `nil` for the pack's first voice. SSML's `<voice>`,
    ///   `<lang>` and `xml:lang` switch to other voices of the pack.
    /// - Throws: `ConcatSynthError.voicebank` when the pack has no such voice, or no voice at all.
    ///   `audioSandbox` says which files `<audio>` may play (none by default).
    ///   `takeChoice` says which take of a phrase plays.
    ///   `stretchCacheCapacity` bounds the samples of stretched clips kept between requests; 0 keeps none.
    public convenience init(
        pack: VoicePack, voice identifier: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .rotate, stretchCacheCapacity: Int = StretchCache.standardSampleCapacity
    ) throws(ConcatSynthError) {
        try self.init(
            pack: pack, voice: identifier, audioSandbox: audioSandbox, takeChoice: takeChoice, standInFallback: nil,
            stretchCacheCapacity: stretchCacheCapacity)
    }

    /// - Parameter standInFallback: planned for the words of a voice with no fallback clip, instead of the error;
    ///   for analysing a pack (coverage), never for rendering.
    init(
        pack: VoicePack, voice identifier: String?, audioSandbox: AudioSandbox, takeChoice: TakeChoice,
        standInFallback: ClipTake?, stretchCacheCapacity: Int = StretchCache.standardSampleCapacity
    ) throws(ConcatSynthError) {
        self.pack = pack
        stretchCache = StretchCache(sampleCapacity: stretchCacheCapacity)
        do throws(VoicebankError) {
            let indexes = try pack.clipIndexes()
            guard let first = indexes.first else { throw VoicebankError.noVoice(path: pack.path) }
            let starting = identifier ?? first.voice.identifier
            guard let startingIndex = indexes.first(where: { $0.voice.identifier == starting }) else {
                throw VoicebankError.unknownVoice(
                    identifier: starting, available: indexes.map(\.voice.identifier), path: pack.path)
            }
            let plannerVoices = indexes.map { index in
                let fallbacks = index.fallbackTakes.isEmpty ? standInFallback.map { [$0] } ?? [] : index.fallbackTakes
                return PlannerVoice(voice: index.settings, lookup: index, fallbacks: fallbacks)
            }
            planner = Planner(
                voices: plannerVoices, startingVoice: starting, audioSandbox: audioSandbox, takeChoice: takeChoice)
            voice = startingIndex.voice
        } catch {
            throw .voicebank(error)
        }
    }

    /// The whole plan of a request, collected: to print, compare or analyse. Rendering does not need it.
    ///
    /// - Throws: `ConcatSynthError.ssml` (malformed input, refused DOCTYPE or entity, bad value: line and
    ///   column), `.noFallbackClip`, `.voicebank`.
    public func plan(_ request: SpeechRequest) throws(ConcatSynthError) -> RenderPlan {
        let stream = try self.stream(request)
        do {
            return try pack.reading { try stream.collect() }
        } catch {
            throw ConcatSynthError(error)
        }
    }

    /// `plan(SpeechRequest(request, isLenient: lenient))`.
    public func plan(_ request: String, lenient: Bool = false) throws(ConcatSynthError) -> RenderPlan {
        try plan(SpeechRequest(request, isLenient: lenient))
    }

    /// The request's plan, made as it is pulled.
    ///
    /// - Throws: `ConcatSynthError.ssml` for a request that cannot be read; planning's own errors come from
    ///   the stream's pulls.
    public func stream(_ request: SpeechRequest) throws(ConcatSynthError) -> PlanStream<ClipIndex> {
        var events: SSMLEventStream?
        if request.plainText == nil {
            do throws(SSMLError) {
                events = try reader.events(request.text, lenient: request.isLenient, prosody: request.prosody)
            } catch {
                throw .ssml(error)
            }
        }
        var planner = planner
        if let voice = request.voice {
            guard let index = planner.voices.firstIndex(where: { $0.voice.identifier == voice }) else {
                throw .voicebank(
                    .unknownVoice(identifier: voice, available: planner.voices.map(\.voice.identifier), path: pack.path)
                )
            }
            planner.startingVoice = index
        }
        if let events { return planner.stream(events) }
        return planner.stream(
            request.plainText!, context: SpeechContext(request.prosody), isLenient: request.isLenient)
    }

    /// A renderer that plans the request as it pulls its frames, reading the pack as it was when the render
    /// began.
    ///
    /// - Throws: `ConcatSynthError.ssml` for a request that cannot be read, `.voicebank` for an unknown voice.
    /// - Parameter report: told each warning and each fallback as planning reaches it.
    public func renderer(
        for request: SpeechRequest, reporting report: @escaping (PlanNote) -> Void = { _ in }
    ) throws(ConcatSynthError) -> Renderer {
        Renderer(
            source: try SnapshotSource(try stream(request), pack: pack, audio: clipSource, report: report),
            audio: clipSource, stretchCache: stretchCache)
    }

    /// A renderer that pulls a collected plan's frames out of the pack's clips.
    public func renderer(for plan: RenderPlan) -> Renderer {
        Renderer(plan: plan, audio: clipSource, stretchCache: stretchCache)
    }

    /// Clip ids are the pack's, so any voice's index reads any voice's clips.
    private var clipSource: ClipIndex { planner.voices[planner.startingVoice].lookup }
}

/// What planning tells as it goes: a warning, or words no clip covers.
public enum PlanNote: Equatable, Sendable, CustomStringConvertible {
    case warning(String)
    /// The fallback clip of `voice` speaks `words`.
    case fallback(words: String, voice: String)

    /// `warning: …` or `fallback: no clip for "…" in voice …`: the line the command line prints.
    public var description: String {
        switch self {
        case .warning(let warning): return "warning: \(warning)"
        case .fallback(let words, let voice): return "fallback: no clip for \"\(words)\" in voice \(voice)"
        }
    }
}

/// A plan stream read inside one read transaction of the pack, from the first pull to the end of the request.
final class SnapshotSource: TimedSegmentSource {
    let stream: PlanStream<ClipIndex>
    private let pack: VoicePack
    /// Where the renderer reads the clips' samples.
    private let audio: ClipIndex
    private let report: (PlanNote) -> Void
    private var isReading: Bool

    init(
        _ stream: PlanStream<ClipIndex>, pack: VoicePack, audio: ClipIndex, report: @escaping (PlanNote) -> Void
    ) throws(ConcatSynthError) {
        self.stream = stream
        self.pack = pack
        self.audio = audio
        self.report = report
        do { isReading = try pack.beginReading() } catch { throw .voicebank(error) }
    }

    /// The renderer is done with the request: its last clip's blob handle closes too, so that a synthesizer kept
    /// between requests holds no snapshot of the pack and sees the clips imported meanwhile.
    deinit {
        audio.closeBlob()
        end()
    }

    func nextSegment() throws -> TimedSegment? {
        do {
            let segment = try stream.nextSegment()
            while let warning = stream.nextWarning() { report(.warning(warning)) }
            guard let segment else {
                end()
                return nil
            }
            if case .fallback = segment.kind { report(.fallback(words: segment.text, voice: segment.voice)) }
            return segment
        } catch {
            end()
            throw ConcatSynthError(error)
        }
    }

    func nextMarker() -> IndexedMarker? { stream.nextMarker() }

    private func end() {
        if isReading { pack.endReading() }
        isReading = false
    }
}
