// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore

/// The first stage: pulls the request's events, passes the reader's warnings on, and turns each event but text into
/// what it places: a silence at its speed, a mark, a sentence's or paragraph's start or end, an `<audio>` file the
/// sandbox allows (or, refused, the content it falls back to). Text runs go on to the text windows.
///
/// Holds nothing across events but the event source.
struct EventReading {
    /// What an event becomes.
    enum Reading {
        /// A text run, for the text windows.
        case text(TextRun)
        /// A segment to place; `endsSentence` when the sentence ends before it (a sentence or paragraph starts or
        /// ends), so that the held takes are chosen first.
        case segment(PlanSegment, endsSentence: Bool)
        /// An `<audio>` file the sandbox refused (with a warning): its content is planned instead, each event whole.
        case refusedAudio(fallback: [SSMLEvent])
    }

    private let events: () throws -> SSMLEvent?
    private let eventWarnings: () -> String?
    private let warnings: PlanWarnings
    private let voices: VoiceSwitching
    private let audioSandbox: AudioSandbox

    /// - Parameters:
    ///   - events: the request's events in order, `nil` at the end.
    ///   - eventWarnings: the warnings of the events pulled so far, each once, `nil` when there are no more.
    init(
        events: @escaping () throws -> SSMLEvent?, eventWarnings: @escaping () -> String?, warnings: PlanWarnings,
        voices: VoiceSwitching, audioSandbox: AudioSandbox
    ) {
        self.events = events
        self.eventWarnings = eventWarnings
        self.warnings = warnings
        self.voices = voices
        self.audioSandbox = audioSandbox
    }

    /// The next event, `nil` at the end; the warnings the reader gave reading it are said.
    ///
    /// - Throws: what the event source throws.
    func next() throws -> SSMLEvent? {
        let event = try events()
        while let warning = eventWarnings() { warnings.warn(warning) }
        return event
    }

    /// What `event` places, or the text run it starts.
    func read(_ event: SSMLEvent) -> Reading {
        switch event {
        case .text(let run):
            return .text(run)
        case .pause(let frames, let origin, let context):
            let speed =
                origin.followsRate ? voices.speed(context, voice: voices.voices[voices.voiceIndex(for: context)]) : 1
            return .segment(PlanSegment(kind: .silence, frameCount: frames, speed: speed), endsSentence: false)
        case .mark(let name, let sourceRange):
            return .segment(PlanSegment(kind: .mark(name), text: name, sourceRange: sourceRange), endsSentence: false)
        case .structureStart(let structure):
            return .segment(PlanSegment(kind: .structureStart(structure)), endsSentence: true)
        case .structureEnd(let structure, let sourceRange):
            return .segment(PlanSegment(kind: .structureEnd(structure), sourceRange: sourceRange), endsSentence: true)
        case .audio(let source, let fallback, let sourceRange, let context):
            switch audioSandbox.resolve(source) {
            case .success(let file):
                let voice = voices.voices[voices.voiceIndex(for: context)]
                return .segment(
                    PlanSegment(
                        kind: .audio(path: file.path), frameCount: file.frameCount, text: source,
                        sourceRange: sourceRange, volumeDecibels: context.volumeDecibels,
                        speed: voices.speed(context, voice: voice), pitchSemitones: voices.pitchSemitones(context),
                        edgeFadeFrames: 0),
                    endsSentence: false)
            case .failure(let refusal):
                warnings.warn(refusal.description)
                return .refusedAudio(fallback: fallback)
            }
        }
    }
}
