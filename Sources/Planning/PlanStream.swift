// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore

/// A request's plan, made as the renderer pulls it: each pull runs the stages until a segment is placed.
///
/// It holds the stages in order (`stages`), each a type in its own file, each handing values to the next:
///
/// ```
/// EventReading ─▶ TextWindows ─▶ PhraseMatching ─▶ FallbackChains ─▶ TakeChooser ─▶ Placement
///  events          text runs      tokens            Match              segments          segments, in order
///        └─ silences, marks, sentence starts and ends, <audio> ──────────▶┘
/// ```
///
/// What is not text goes from the event reading straight to the take selection, which keeps it in order behind the
/// phrases it holds. A phrase never spans two text runs, so it never spans an element's start or end.
public final class PlanStream<Lookup: PhraseLookup> {
    /// The stages of planning, in the order a request's values pass through them.
    public static var stages: [PlanStage] {
        [.eventReading, .textWindows, .phraseMatching, .fallback, .takeSelection, .placement]
    }

    private let reading: EventReading
    private let windows: TextWindows
    private var matching: PhraseMatching<Lookup>
    private let selection: TakeChooser
    private let placement: Placement
    private let warnings: PlanWarnings
    private let trace: PlanTraceRecorder?
    /// The text run being matched, from its first event to its last token.
    private var text: TextCursor?
    private var isFinished = false
    /// Raised to stop the request; the fallback voice stops inside a phrase when it is. A renderer of the stream
    /// shares it.
    public let cancellation: Cancellation
    /// The identifier of the voice the request starts with.
    public let voice: String

    /// - Parameter events: the request's events in order, `nil` at the end.
    public convenience init(
        planner: Planner<Lookup>, warnings: [String] = [], events: @escaping () throws -> SSMLEvent?
    ) {
        self.init(
            planner: planner, warnings: warnings, textWindowBytes: TextWindows.standardWindowBytes, events: events)
    }

    /// - Parameters:
    ///   - textWindowBytes: how much text is read into tokens at a time; tests make it small to put phrases
    ///     across the cuts.
    ///   - eventWarnings: the warnings of the events pulled so far, each once, `nil` when there are no more.
    init(
        planner: Planner<Lookup>, warnings: [String], textWindowBytes: Int,
        events: @escaping () throws -> SSMLEvent?, eventWarnings: @escaping () -> String? = { nil }
    ) {
        precondition(textWindowBytes > 0, "a text window holds at least one byte")
        let log = PlanWarnings()
        let cancellation = Cancellation()
        let trace = planner.tracesDecisions ? PlanTraceRecorder() : nil
        let voices = VoiceSwitching(
            voices: planner.voiceSettings, startingVoice: planner.startingVoice, warnings: log)
        let placement = Placement(voices: planner.voiceSettings)
        let selection = TakeChooser(
            voices: planner.voiceSettings, rotation: TakeRotation(planner.takeChoice),
            placesEveryPhrase: planner.placesEveryPhrase, placement: placement, warnings: log, trace: trace)
        let fallback = FallbackChains(
            voiceCount: planner.voices.count, selection: selection, placement: placement, warnings: log, trace: trace,
            cancellation: cancellation
        ) {
            FallbackChains.strategies(
                for: planner.voices[$0], phrases: planner.rememberedLookups[$0],
                plansFallbacksAsClips: planner.plansFallbacksAsClips)
        }
        matching = PhraseMatching(
            lookups: planner.rememberedLookups, voices: planner.voiceSettings, fallback: fallback,
            selection: selection, placement: placement, trace: trace)
        reading = EventReading(
            events: events, eventWarnings: eventWarnings, warnings: log, voices: voices,
            audioSandbox: planner.audioSandbox)
        windows = TextWindows(windowBytes: textWindowBytes, voices: voices, warnings: log)
        self.cancellation = cancellation
        self.selection = selection
        self.placement = placement
        self.warnings = log
        self.trace = trace
        voice = planner.voiceSettings[planner.startingVoice].identifier
        for warning in warnings { log.warn(warning) }
    }

    /// The next segment placed in the output; `nil` at the end of the request.
    ///
    /// - Throws: `PlanningError.noFallbackClip`; what the event source or a look-up throws.
    public func nextSegment() throws -> TimedSegment? {
        while true {
            if let segment = placement.nextSegment() { return segment }
            if isFinished { return nil }
            if text != nil, try matchText() { continue }
            // No run is being matched, or the one that is goes on in the next event.
            let event = try reading.next()
            if case .text(let run) = event, text != nil {
                text!.append(run)
                continue
            }
            try finishText()
            if let event {
                try plan(event)
            } else {
                selection.endSentence()
                placement.finish()
                isFinished = true
            }
        }
    }

    /// The next complete marker (see `Timeline.nextMarker()`).
    public func nextMarker() -> IndexedMarker? { placement.nextMarker() }

    /// Plans the rest of the request and collects it: its segments, its markers in frame order, its warnings.
    ///
    /// - Throws: what `nextSegment()` throws.
    public func collect() throws -> RenderPlan {
        var segments: [TimedSegment] = []
        var markers = MarkerSequence()
        while let segment = try nextSegment() { segments.append(segment.settled()) }
        while let marker = nextMarker() { markers.add(marker) }
        var warnings: [String] = []
        while let warning = nextWarning() { warnings.append(warning) }
        return RenderPlan(voice: voice, segments: segments, markers: markers.takeReady(), warnings: warnings)
    }

    /// Plans the rest of the request and collects it with what each stage decided; the decisions are there only
    /// when the planner traces them (`Planner.tracesDecisions`).
    ///
    /// - Throws: what `nextSegment()` throws.
    public func collectTrace() throws -> PlanTrace {
        let plan = try collect()
        return PlanTrace(stages: Self.stages, decisions: trace?.decisions ?? [], plan: plan)
    }

    /// The next warning of the SSML reader or the planner, each said once.
    public func nextWarning() -> String? { warnings.next() }

    private func plan(_ event: SSMLEvent) throws {
        switch reading.read(event) {
        case .text(let run):
            text = windows.start(run)
        case .segment(let segment, let endsSentence):
            if endsSentence { selection.endSentence() }
            selection.place(segment)
        case .refusedAudio(let fallback):
            for event in fallback {
                try plan(event)
                try finishText()
            }
        }
    }

    /// Matches the current run until a segment is placed or the run ends (`true`), or until it needs the
    /// text of the next event, which goes on from it (`false`).
    private func matchText() throws -> Bool {
        // The cursor is taken out while it is matched, so that its window is never shared and grows in place.
        var cursor = text!
        text = nil
        switch try matching.match(&cursor) {
        case .placed:
            text = cursor
            return true
        case .needsText:
            text = cursor
            return false
        case .ended:
            return true
        }
    }

    /// Matches what is left of the current run, as its end.
    private func finishText() throws {
        guard text != nil else { return }
        text!.isContinued = false
        while text != nil { _ = try matchText() }
    }
}
