// SPDX-License-Identifier: GPL-3.0-or-later
/// The stages of planning, in the order a request's values pass through them (`PlanStream.stages`).
public enum PlanStage: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Pulls the events and turns each but text into what it places (`EventReading`, EventReading.swift).
    case eventReading = "event reading"
    /// Reads each text run into tokens a window at a time, in its voice (`TextWindows`, TextWindows.swift).
    case textWindows = "text windows"
    /// Greedy longest match against the voice's phrase keys, digits read as number words
    /// (`PhraseMatching`, PhraseMatching.swift).
    case phraseMatching = "phrase matching"
    /// Speaks the words no phrase covers through the voice's chain of strategies; passes phrases on
    /// (`FallbackChains`, Fallback.swift).
    case fallback
    /// Chooses each phrase's take, holding what follows until it is chosen (`TakeChooser`, TakeChooser.swift).
    case takeSelection = "take selection"
    /// Places each segment on the timeline (`Placement`, Placement.swift).
    case placement

    public var description: String { rawValue }
}

/// What each stage of planning decided for a request, in the order it decided, with the plan that came out: which
/// phrase each run of words matched, which take each phrase plays and why, which fallback strategy spoke the words
/// no phrase covers. A diagnostic: `concat-synth render --plan` prints it.
///
/// ```
/// stages: event reading → text windows → phrase matching → fallback → take selection → placement
/// phrase matching "hello": phrase in com.example.ann, 1 take
/// take selection "hello": take #1, its only take
/// phrase matching "bob": no phrase in com.example.ann
/// fallback "bob": clip #99
/// placement: plan for com.example.ann: 150 frames
///   @0 phrase #1 "hello" 100 frames (com.example.ann)
///   …
/// ```
public struct PlanTrace: Equatable, Sendable, CustomStringConvertible {
    /// The stages, in order.
    public var stages: [PlanStage]
    public var decisions: [Decision]
    /// The plan placed on the timeline: the placement's decisions.
    public var plan: RenderPlan

    /// One stage's decision about some words.
    public struct Decision: Equatable, Sendable, CustomStringConvertible {
        public var stage: PlanStage
        /// The words decided about, as a person reads them.
        public var words: String
        public var decision: String

        public init(stage: PlanStage, words: String, decision: String) {
            self.stage = stage
            self.words = words
            self.decision = decision
        }

        /// `take selection "york": take #23 final by the sentence's cheapest path, …`
        public var description: String { "\(stage) \"\(words)\": \(decision)" }
    }

    public init(stages: [PlanStage], decisions: [Decision], plan: RenderPlan) {
        self.stages = stages
        self.decisions = decisions
        self.plan = plan
    }

    public var description: String {
        (["stages: " + stages.map(\.rawValue).joined(separator: " → ")] + decisions.map(\.description)
            + ["placement: \(plan)"]).joined(separator: "\n")
    }
}

/// Where the stages of a traced plan write their decisions; a plan made to be rendered has none.
final class PlanTraceRecorder {
    private(set) var decisions: [PlanTrace.Decision] = []

    func record(_ stage: PlanStage, _ words: String, _ decision: String) {
        decisions.append(PlanTrace.Decision(stage: stage, words: words, decision: decision))
    }
}
