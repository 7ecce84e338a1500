// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Planning
import Rendering
import SSML
import SpeechCore
import Units
import Voicebank

/// Speaks requests with the voices of a pack: SSML or text → events → tokens → match plan → timeline → PCM.
///
/// The one door into the engine: callers hand it a `SpeechRequest` and pull audio, markers and the plan from what it
/// gives back, none of which names how the pack is stored.
///
/// ```swift
/// let synthesizer = try Synthesizer(bank: "my.sqlite")
/// let request = SpeechRequest(.ssml(#"<speak>Hello <break time="1s"/> world</speak>"#))
/// let renderer = try synthesizer.renderer(for: request)
/// // pull frames from it; it plans as it goes
/// ```
///
/// A synthesizer is used by one thread at a time; a server lends one to each request from a `SynthesizerPool`.
public final class Synthesizer {
    /// The voice pack's path.
    public let packPath: String
    /// The pack's voices, in the pack's order.
    public let voices: [VoiceSettings]
    /// The voice that speaks where the request names none.
    public let voice: VoiceSettings
    let pack: VoicePack
    let planner: Planner<ClipIndex>
    private let reader = SSMLReader(sampleRate: RenderFormat.sampleRate)
    /// The clips its renderers stretched, kept for the requests that follow.
    package let stretchCache: StretchCache
    /// The most samples of stretched clips a synthesizer keeps between requests unless told otherwise: 2 Mi
    /// samples, about 95 s of audio.
    public static let standardStretchCacheCapacity = StretchCache.standardSampleCapacity
    /// The renderers it made, held weakly: each reads the pack's connection as long as it lives, and at its end closes
    /// the blob handle and read transaction it used (`SnapshotSource`), so a pool lends the synthesizer to another
    /// thread only once none is alive (`isRendering`).
    private var renderers: [WeakRenderer] = []

    /// Opens the pack at `bank` read-only.
    ///
    /// - Parameters:
    ///   - bank: the pack's path; with none, `$CONCAT_SYNTH_BANK`, else the default pack (`PackLocation`).
    ///   - voice: the starting voice's identifier; `nil` for the pack's first voice. SSML's `<voice>`, `<lang>`
    ///     and `xml:lang` switch to other voices of the pack.
    ///   - audioSandbox: which files `<audio>` may play (none by default).
    ///   - takeChoice: which take of a phrase plays.
    ///   - stretchCacheCapacity: the most samples of stretched clips kept between requests; 0 keeps none.
    /// - Throws: `ConcatSynthError.noPack`, `.unusablePack` or `.newerPack` when the pack cannot be opened, `.unknownVoice`, `.noVoice`.
    public convenience init(
        bank: String? = nil, voice: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .best, stretchCacheCapacity: Int = standardStretchCacheCapacity
    ) throws(ConcatSynthError) {
        try self.init(
            pack: PackLocation.openForReading(bank), voice: voice, audioSandbox: audioSandbox, takeChoice: takeChoice,
            stretchCacheCapacity: stretchCacheCapacity)
    }

    /// The voices of the pack at `bank` (as `init(bank:)` finds it), in the pack's order; none for a pack that has
    /// none yet.
    ///
    /// - Throws: `ConcatSynthError.noPack`, `.unusablePack` or `.newerPack` when the pack cannot be opened.
    public static func voices(bank: String? = nil) throws(ConcatSynthError) -> [VoiceSettings] {
        let pack = try PackLocation.openForReading(bank)
        do throws(VoicebankError) { return try pack.voices().map(\.settings) } catch {
            throw ConcatSynthError(store: error)
        }
    }

    /// A synthesizer over a pack opened already (this package's tests and tools).
    package convenience init(
        pack: VoicePack, voice identifier: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .best, stretchCacheCapacity: Int = standardStretchCacheCapacity
    ) throws(ConcatSynthError) {
        try self.init(
            pack: pack, voice: identifier, audioSandbox: audioSandbox, takeChoice: takeChoice, standInFallback: nil,
            stretchCacheCapacity: stretchCacheCapacity)
    }

    /// - Parameter standInFallback: planned for the words of a voice with no fallback clip, instead of the error,
    ///   and every fallback planned as a clip whatever the voice's mode, so that nothing is synthesized, and every
    ///   phrase given its place: for analysing a pack (coverage), never for rendering.
    init(
        pack: VoicePack, voice identifier: String?, audioSandbox: AudioSandbox, takeChoice: TakeChoice,
        standInFallback: ClipTake?, stretchCacheCapacity: Int = standardStretchCacheCapacity
    ) throws(ConcatSynthError) {
        self.pack = pack
        packPath = pack.path
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
                let settings = index.settings
                // Made for every voice in that mode, but it loads espeak-ng only when it first speaks.
                let fallbackVoice =
                    settings.fallbackMode.usesFallbackVoice
                    ? FallbackVoice(language: settings.language, settings: settings.fallbackVoice) : nil
                // The unit index is read from the pack when a word first falls back.
                let units =
                    settings.fallbackMode == .units
                    ? UnitVoice(
                        lookup: index, audio: index, frontEnd: Self.frontEnd(language: settings.language),
                        weights: settings.units) : nil
                return PlannerVoice(
                    voice: settings, lookup: index, fallbacks: fallbacks, fallbackSpeaker: fallbackVoice, units: units)
            }
            var planner = Planner(
                voices: plannerVoices, startingVoice: starting, audioSandbox: audioSandbox.planning,
                takeChoice: takeChoice.planning)
            planner.plansFallbacksAsClips = standInFallback != nil
            planner.placesEveryPhrase = standInFallback != nil
            self.planner = planner
            voices = indexes.map(\.settings)
            voice = startingIndex.settings
        } catch {
            throw ConcatSynthError(store: error)
        }
    }

    /// The phonetic front end of a voice's language: English's for `en` and `en-…`; none for the others yet.
    static func frontEnd(language: String) -> (any PhoneticFrontEnd)? {
        let tag = language.lowercased()
        return tag == "en" || tag.hasPrefix("en-") ? EnglishFrontEnd(language: language) : nil
    }

    /// The whole plan of a request, collected: to print, compare or analyse. Rendering does not need it.
    ///
    /// - Throws: `ConcatSynthError.ssml` (malformed input, refused DOCTYPE or entity, bad value: line and
    ///   column), `.noFallbackClip`, `.damagedClip`.
    public func plan(_ request: SpeechRequest) throws(ConcatSynthError) -> SpeechPlan {
        SpeechPlan(try renderPlan(request))
    }

    /// `plan(SpeechRequest(.ssml(request), isLenient: lenient))`.
    public func plan(_ request: String, lenient: Bool = false) throws(ConcatSynthError) -> SpeechPlan {
        try plan(SpeechRequest(.ssml(request), isLenient: lenient))
    }

    /// The plan as the planner made it, for this package's tests and tools, which read its segments.
    package func renderPlan(_ request: SpeechRequest) throws(ConcatSynthError) -> RenderPlan {
        let stream = try self.stream(request)
        do {
            return try pack.reading { try stream.collect() }
        } catch {
            throw ConcatSynthError(error)
        }
    }

    /// What each stage of planning decided for `request`, with the plan that came out, as text: the plan dump that
    /// `concat-synth render --plan` prints. The fallback voice speaks the words no clip covers, as in a render.
    ///
    /// ```swift
    /// print(try synthesizer.planTrace(SpeechRequest("Hello Bob")))
    /// // stages: event reading → text windows → phrase matching → fallback → take selection → placement
    /// // phrase matching "hello": phrase in org.concatsynth.en, 1 take
    /// // …
    /// ```
    ///
    /// - Throws: what `plan(_:)` throws.
    public func planTrace(_ request: SpeechRequest) throws(ConcatSynthError) -> String {
        try stageTrace(request).description
    }

    /// What each stage of planning decided for `request`, as planning records it (for the tests of the stages).
    package func stageTrace(_ request: SpeechRequest) throws(ConcatSynthError) -> PlanTrace {
        let stream = try self.stream(request, tracesDecisions: true)
        do {
            return try pack.reading { try stream.collectTrace() }
        } catch {
            throw ConcatSynthError(error)
        }
    }

    /// `renderPlan(SpeechRequest(.ssml(request), isLenient: lenient))`.
    package func renderPlan(_ request: String, lenient: Bool = false) throws(ConcatSynthError) -> RenderPlan {
        try renderPlan(SpeechRequest(.ssml(request), isLenient: lenient))
    }

    /// Plans `request` without rendering it and fails if any words would fall back: `--strict`'s check before any
    /// audio is made. A streamed text is read to its end. Fallbacks are planned as the fallback clip, so the
    /// fallback voice speaks nothing here.
    ///
    /// - Throws: `ConcatSynthError.fallbackInStrictMode` naming every run of words no clip covers; what `plan`
    ///   throws.
    public func checkCovered(_ request: SpeechRequest) throws(ConcatSynthError) {
        let stream = try self.stream(request, plansFallbacksAsClips: true)
        var fallbacks: [String] = []
        do {
            try pack.reading {
                while let segment = try stream.nextSegment() {
                    if let fallback = segment.fallback, fallback.startsRun { fallbacks.append(fallback.words) }
                }
            }
        } catch {
            throw ConcatSynthError(error)
        }
        if !fallbacks.isEmpty { throw .fallbackInStrictMode(voice: stream.voice, words: fallbacks) }
    }

    /// The request's plan, made as it is pulled; with `plansFallbacksAsClips`, one that only finds what falls back;
    /// with `tracesDecisions`, one that records what each stage decided.
    ///
    /// - Throws: `ConcatSynthError.ssml` for a request that cannot be read, `.unknownVoice`;
    ///   planning's own errors come from the stream's pulls.
    func stream(
        _ request: SpeechRequest, plansFallbacksAsClips: Bool = false, tracesDecisions: Bool = false
    ) throws(ConcatSynthError) -> PlanStream<ClipIndex> {
        let events: SSMLEventStream?
        do throws(SSMLError) { events = try request.events(reader: reader) } catch {
            throw ConcatSynthError(ssml: error)
        }
        var planner = planner
        if plansFallbacksAsClips { planner.plansFallbacksAsClips = true }
        planner.tracesDecisions = tracesDecisions
        if let voice = request.voice {
            guard let index = planner.voices.firstIndex(where: { $0.voice.identifier == voice }) else {
                throw .unknownVoice(
                    identifier: voice, available: planner.voices.map(\.voice.identifier), path: pack.path)
            }
            planner.startingVoice = index
        }
        if let events { return planner.stream(events) }
        return planner.stream(request.textStream!.plain, context: request.streamContext, isLenient: request.isLenient)
    }

    /// A renderer that plans the request as it pulls its frames, reading the pack as it was when the render
    /// began.
    ///
    /// - Parameters:
    ///   - request: what to say and how.
    ///   - recording: what it keeps of what it plays besides the audio: the join report, a picture.
    ///   - report: told each warning and each fallback as planning reaches it.
    /// - Throws: `ConcatSynthError.ssml` for a request that cannot be read, `.unknownVoice`.
    public func renderer(
        for request: SpeechRequest, recording: Renderer.Recording = [],
        reporting report: @escaping (PlanNote) -> Void = { _ in }
    ) throws(ConcatSynthError) -> Renderer {
        let stream = try stream(request)
        let pulling = Rendering.Renderer(
            source: try SnapshotSource(stream, pack: pack, audio: clipSource, report: report),
            audio: clipSource, stretchCache: stretchCache, cancellation: stream.cancellation)
        return Renderer(kept(pulling), voice: voice.identifier, recording: recording)
    }

    /// A renderer that pulls a collected plan's frames out of the pack's clips.
    public func renderer(for plan: SpeechPlan) -> Renderer {
        Renderer(renderingRenderer(for: plan.renderPlan), voice: voice.identifier)
    }

    /// A renderer of the rendering stage itself, for this package's tests and tools.
    package func renderingRenderer(for plan: RenderPlan) -> Rendering.Renderer {
        kept(Rendering.Renderer(plan: plan, audio: clipSource, stretchCache: stretchCache))
    }

    /// Whether a renderer it made is still alive, held anywhere.
    var isRendering: Bool { renderers.contains { $0.renderer != nil } }

    private func kept(_ renderer: Rendering.Renderer) -> Rendering.Renderer {
        renderers.removeAll { $0.renderer == nil }
        renderers.append(WeakRenderer(renderer: renderer))
        return renderer
    }

    /// Clip ids are the pack's, so any voice's index reads any voice's clips.
    private var clipSource: ClipIndex { planner.voices[planner.startingVoice].lookup }
}

private struct WeakRenderer {
    weak var renderer: Rendering.Renderer?
}

/// What planning tells as it goes: a warning, or words no clip covers.
public enum PlanNote: Equatable, Sendable, CustomStringConvertible {
    case warning(String)
    /// No clip of `voice` covers `words`: its fallback clip, letter clips or fallback voice speaks them.
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
        do { isReading = try pack.beginReading() } catch { throw ConcatSynthError(store: error) }
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
            if let fallback = segment.fallback, fallback.startsRun {
                report(.fallback(words: fallback.words, voice: segment.voice))
            }
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
