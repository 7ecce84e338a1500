// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Units

/// Which take of a phrase plays.
public enum TakeChoice: String, Sendable, CaseIterable {
    /// The takes that fit their places best and join most smoothly, chosen a sentence at a time
    /// (`TakeSelector`).
    case best
    /// The n-th time a phrase is spoken in a request it plays take n (round the takes, first imported first), so
    /// "no, no, no" is three takes; the same request always plays the same takes.
    case rotate
    /// Always the first imported take.
    case first
}

/// A voice as the planner sees it: who it is, how to look its phrases up, and what speaks the words no clip covers.
public struct PlannerVoice<Lookup: PhraseLookup> {
    public var voice: VoiceSettings
    public var lookup: Lookup
    /// The takes of the fallback clip, first imported first; none makes a fallback the clip must speak an error.
    public var fallbacks: [ClipTake]
    /// What speaks the words no clip covers when the voice's fallback mode is `voice`; without one, or when it cannot
    /// speak, the fallback clip does, with a warning.
    public var fallbackSpeaker: (any FallbackSpeaker)?
    /// What cuts the words no clip covers from the voice's takes when its fallback mode is `units`; without, every
    /// such word goes to the fallback voice.
    public var units: UnitVoice?

    public init(
        voice: VoiceSettings, lookup: Lookup, fallbacks: [ClipTake], fallbackSpeaker: (any FallbackSpeaker)? = nil,
        units: UnitVoice? = nil
    ) {
        self.voice = voice
        self.lookup = lookup
        self.fallbacks = fallbacks
        self.fallbackSpeaker = fallbackSpeaker
        self.units = units
    }
}

/// Turns SSML events into a render plan: a voice per text run, tokens, greedy longest match, fallbacks, silences,
/// each with the speed, pitch and volume it is spoken at. Each request's plan runs through the stages of a
/// `PlanStream`.
public struct Planner<Lookup: PhraseLookup> {
    /// The pack's voices, in the pack's order.
    public let voices: [PlannerVoice<Lookup>]
    /// Each voice's settings, in the pack's order: what every stage but the matching asks of a voice.
    let voiceSettings: [VoiceSettings]
    /// Each voice's look-ups, shared by the plans of this planner and its copies (`RememberedLookup`).
    let rememberedLookups: [RememberedLookup<Lookup>]
    /// The index in `voices` of the voice that speaks where the request names none.
    public var startingVoice: Int
    /// Which `<audio>` files may play.
    public var audioSandbox: AudioSandbox
    public var takeChoice: TakeChoice
    /// Plans every fallback as the fallback clip, whatever the voice's mode: for a plan made only to find the words
    /// that fall back (coverage, `--strict`'s first pass), which then speaks nothing.
    public var plansFallbacksAsClips = false
    /// Holds every phrase until its place is known, so that each gets its place (`PlanSegment.selection`) even with one
    /// take: for coverage, which lists the places no take was recorded for.
    public var placesEveryPhrase = false
    /// Records what each stage decided, for the plan dump (`PlanStream.collectTrace()`).
    public var tracesDecisions = false

    /// - Parameter startingVoice: an identifier in `voices`; the first voice when `nil` or not found.
    public init(
        voices: [PlannerVoice<Lookup>], startingVoice: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .best
    ) {
        precondition(!voices.isEmpty, "a planner needs at least one voice")
        self.voices = voices
        // One loop, and no key path into a generic type (resolved at run time by a search of the program's
        // conformances): this runs at every start of a command.
        var settings: [VoiceSettings] = []
        var lookups: [RememberedLookup<Lookup>] = []
        for voice in voices {
            settings.append(voice.voice)
            lookups.append(RememberedLookup(voice.lookup))
        }
        voiceSettings = settings
        rememberedLookups = lookups
        self.startingVoice = voices.firstIndex { $0.voice.identifier == startingVoice } ?? 0
        self.audioSandbox = audioSandbox
        self.takeChoice = takeChoice
    }

    /// The whole plan of a read document, collected: for tests and tools; rendering pulls from `stream(_:)`.
    ///
    /// - Throws: `PlanningError.noFallbackClip` when words need a fallback their voice does not have;
    ///   whatever a look-up throws.
    public func plan(_ document: SSMLDocument) throws -> RenderPlan { try stream(document).collect() }

    /// The plan of a read document, made as it is pulled.
    public func stream(_ document: SSMLDocument) -> PlanStream<Lookup> {
        var events = document.events.makeIterator()
        return PlanStream(planner: self, warnings: document.warnings.map(\.description)) { events.next() }
    }

    /// The plan of plain text read a piece at a time, spoken in `context`, in the sentences the whole text has.
    public func stream(_ text: PlainTextStream, context: SpeechContext, isLenient: Bool) -> PlanStream<Lookup> {
        PlanStream(planner: self) { try text.nextEvent(context: context, isLenient: isLenient) }
    }

    /// The plan of a request whose events are read as the plan is pulled; the reader's warnings come with them.
    public func stream(_ events: SSMLEventStream) -> PlanStream<Lookup> {
        PlanStream(
            planner: self, warnings: [], textWindowBytes: TextWindows.standardWindowBytes,
            events: { try events.next() }, eventWarnings: { events.nextWarning()?.description })
    }
}
