// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// A phrase's place in its sentence: what the take chosen for it should have been recorded for.
public enum PhrasePlace: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The sentence's first phrase.
    case initial
    /// Inside the sentence.
    case medial
    /// Inside the sentence, right before a comma (or `;`, `:`, `、`): the voice stays up, going on.
    case beforeComma = "before-comma"
    /// The sentence's last phrase, unless a question mark ends it.
    case final
    /// The last phrase of a sentence that a question mark ends.
    case question

    /// The place of a phrase, from whether it starts or ends its sentence and the punctuation after its last word.
    /// The end wins over the start: a sentence of one phrase is `final`.
    public init(isFirst: Bool, isLast: Bool, punctuation: Token.Punctuation?) {
        if isLast {
            self = punctuation == .question ? .question : .final
        } else if isFirst {
            self = .initial
        } else {
            self = punctuation == .comma ? .beforeComma : .medial
        }
    }

    /// How far a take is from what this place wants, from 0 (recorded for it) to 1 (the opposite tune): the target
    /// cost before it is weighed.
    ///
    /// A tagged take goes by its tag. An untagged take goes by its measured contour at a smaller certainty (never
    /// below 0.2, as good as a tag only when nothing better is there), and costs 0.5 with no contour. The order a
    /// missing place falls back in is the order of these costs (docs/voice-packs.md has the table).
    public func distance(to take: ClipTake) -> Double {
        if let position = take.position { return Self.tagDistances[self]![position]! }
        guard let contour = take.contour else { return 0.5 }
        return Self.contourDistances[self]![contour]!
    }

    private static let tagDistances: [PhrasePlace: [TakePosition: Double]] = [
        .initial: [.initial: 0, .medial: 0.25, .final: 0.75, .question: 1],
        .medial: [.initial: 0.25, .medial: 0, .final: 1, .question: 0.75],
        .beforeComma: [.initial: 0.5, .medial: 0, .final: 1, .question: 0.5],
        .final: [.initial: 0.5, .medial: 0.75, .final: 0, .question: 1],
        .question: [.initial: 0.75, .medial: 0.5, .final: 1, .question: 0],
    ]

    private static let contourDistances: [PhrasePlace: [PitchContour: Double]] = [
        .initial: [.falling: 0.6, .level: 0.3, .rising: 0.5],
        .medial: [.falling: 0.7, .level: 0.3, .rising: 0.4],
        .beforeComma: [.falling: 0.8, .level: 0.5, .rising: 0.2],
        .final: [.falling: 0.2, .level: 0.5, .rising: 0.9],
        .question: [.falling: 0.9, .level: 0.6, .rising: 0.2],
    ]

    /// The take position recorded for this place: a comma's place wants a medial take.
    public var position: TakePosition {
        switch self {
        case .initial: .initial
        case .medial, .beforeComma: .medial
        case .final: .final
        case .question: .question
        }
    }

    public var description: String { rawValue }
}

/// Why a phrase plays the take it plays: its place, how many takes it had, and what the take cost there.
public struct TakeSelection: Equatable, Sendable, CustomStringConvertible {
    public var place: PhrasePlace
    /// How many takes it was chosen from.
    public var takeCount: Int
    /// The take's weighed target cost at `place`.
    public var targetCost: Double
    /// The weighed cost of its join with the clip right before it; `nil` when something else sounds in between.
    public var joinCost: Double?
    /// Whether one of its takes was recorded for its place (a medial take for a comma's place); when none was, the
    /// take played is the nearest in `PhrasePlace.distance(to:)`'s order.
    public var hasTakeForPlace: Bool

    public init(place: PhrasePlace, takeCount: Int, targetCost: Double, joinCost: Double?, hasTakeForPlace: Bool) {
        self.place = place
        self.takeCount = takeCount
        self.targetCost = targetCost
        self.joinCost = joinCost
        self.hasTakeForPlace = hasTakeForPlace
    }

    public var description: String {
        var line = "place \(place), 1 of \(takeCount) takes, target \(Self.formatted(targetCost))"
        if let joinCost { line += ", join \(Self.formatted(joinCost))" }
        return line
    }

    /// A cost with two decimals: `0.12`.
    public static func formatted(_ cost: Double) -> String {
        decimal(cost, places: 2)
    }
}

/// Chooses the takes of a sentence's phrases together: the path through their takes with the least target cost
/// (each take against its phrase's place) plus join cost (each take against the one before it), by dynamic
/// programming as Flite's unit selection does, over one sentence at a time.
public enum TakeSelector {
    /// A phrase to choose a take for.
    public struct Phrase: Equatable, Sendable {
        public var takes: [ClipTake]
        public var place: PhrasePlace
        /// Whether it follows the phrase before it with nothing sounding in between, so that the two join.
        public var joinsPrevious: Bool

        public init(takes: [ClipTake], place: PhrasePlace, joinsPrevious: Bool) {
            precondition(!takes.isEmpty, "a phrase to choose for has at least one take")
            self.takes = takes
            self.place = place
            self.joinsPrevious = joinsPrevious
        }

        /// Whether one of its takes was recorded for its place.
        public var hasTakeForPlace: Bool { takes.contains { $0.position == place.position } }

        /// Whether any of its takes is tagged: a phrase whose maker recorded places.
        public var hasTaggedTake: Bool { takes.contains { $0.position != nil } }
    }

    /// The most takes of one phrase weighed: the cheapest at its place, the first imported first among equals. A
    /// pack may hold thousands of takes of a phrase, and the path costs their count squared.
    public static let candidateLimit = 32

    /// The index in its `takes` of the take each phrase plays, and why.
    ///
    /// - Parameter previous: the take that plays right before the first phrase, which it joins when
    ///   `joinsPrevious` says so; `nil` when none.
    /// Deterministic: among equal costs the earlier take wins.
    public static func choose(
        _ phrases: [Phrase], after previous: ClipTake?, weights: SelectionWeights
    ) -> [(index: Int, selection: TakeSelection)] {
        guard !phrases.isEmpty else { return [] }
        let candidates = phrases.map { Self.candidates($0, weights: weights) }
        // best[i][j]: the least cost of a path to candidate j of phrase i; from[i][j]: the candidate of phrase i-1
        // on it.
        var best: [[Double]] = []
        var from: [[Int]] = []
        for (index, phrase) in phrases.enumerated() {
            var costs: [Double] = []
            var origins: [Int] = []
            for candidate in candidates[index] {
                let target = candidate.target
                guard index > 0 else {
                    let join =
                        phrase.joinsPrevious ? previous.map { joinCost(from: $0, to: candidate.take, weights) } : nil
                    costs.append(target + (join ?? 0))
                    origins.append(-1)
                    continue
                }
                var least = Double.infinity
                var origin = 0
                for (before, earlier) in candidates[index - 1].enumerated() {
                    let join = phrase.joinsPrevious ? joinCost(from: earlier.take, to: candidate.take, weights) : 0
                    let cost = best[index - 1][before] + join
                    if cost < least {
                        least = cost
                        origin = before
                    }
                }
                costs.append(least + target)
                origins.append(origin)
            }
            best.append(costs)
            from.append(origins)
        }
        var chosen = Array(repeating: 0, count: phrases.count)
        chosen[phrases.count - 1] = best[phrases.count - 1].indices.min {
            best[phrases.count - 1][$0] < best[phrases.count - 1][$1]
        }!
        for index in stride(from: phrases.count - 1, to: 0, by: -1) {
            chosen[index - 1] = from[index][chosen[index]]
        }
        var previousTake = previous
        return phrases.indices.map { index in
            let candidate = candidates[index][chosen[index]]
            let join =
                phrases[index].joinsPrevious
                ? previousTake.map { joinCost(from: $0, to: candidate.take, weights) } : nil
            previousTake = candidate.take
            return (
                candidate.index,
                TakeSelection(
                    place: phrases[index].place, takeCount: phrases[index].takes.count, targetCost: candidate.target,
                    joinCost: join, hasTakeForPlace: phrases[index].hasTakeForPlace)
            )
        }
    }

    /// Why `take` plays where another rule chose it (rotation, the first take): its costs as selection counts them.
    public static func selection(
        of take: ClipTake, for phrase: Phrase, after previous: ClipTake?, weights: SelectionWeights
    ) -> TakeSelection {
        TakeSelection(
            place: phrase.place, takeCount: phrase.takes.count,
            targetCost: weights.position * phrase.place.distance(to: take),
            joinCost: phrase.joinsPrevious ? previous.map { joinCost(from: $0, to: take, weights) } : nil,
            hasTakeForPlace: phrase.hasTakeForPlace)
    }

    private struct Candidate {
        var index: Int
        var take: ClipTake
        var target: Double
    }

    private static func candidates(_ phrase: Phrase, weights: SelectionWeights) -> [Candidate] {
        let all = phrase.takes.enumerated().map { index, take in
            Candidate(index: index, take: take, target: weights.position * phrase.place.distance(to: take))
        }
        guard all.count > candidateLimit else { return all }
        // Sorted by cost, then by the order they came in: the sort is stable only by saying so.
        return Array(all.sorted { ($0.target, $0.index) < ($1.target, $1.index) }.prefix(candidateLimit))
    }

    /// The cost of `next` playing right after `take`: 0 where `next` was cut from the same recording right where
    /// `take` ends (they join as they were spoken); else the weighed F0 jump in semitones between their voiced edges,
    /// level jump in dB (each edge at the level the take plays at), and distance between the edge frames' cepstra.
    /// Takes whose edges were never measured join at no cost.
    public static func joinCost(from take: ClipTake, to next: ClipTake, _ weights: SelectionWeights) -> Double {
        if let cut = take.cut, let nextCut = next.cut, cut.isFollowed(by: nextCut) { return 0 }
        guard let end = take.edges, let start = next.edges else { return 0 }
        var cost = 0.0
        if let last = end.lastF0Hz, let first = start.firstF0Hz, last > 0, first > 0 {
            cost += weights.pitch * abs(Prosody.semitones(from: last, to: first))
        }
        let endLevel = max(end.lastEnergyDecibels, Self.quietestDecibels) + take.levelDecibels
        let startLevel = max(start.firstEnergyDecibels, Self.quietestDecibels) + next.levelDecibels
        cost += weights.energy * abs(startLevel - endLevel)
        cost += weights.spectrum * cepstralDistance(end.lastCepstrum, start.firstCepstrum)
        return cost
    }

    /// Edges quieter than this count as this quiet: digital silence has no level to compare.
    static let quietestDecibels = -90.0

    /// The Euclidean distance between two frames' cepstra past their first coefficient (the frame's energy, which the
    /// level jump weighs); 0 when they differ in length.
    static func cepstralDistance(_ left: [Float], _ right: [Float]) -> Double {
        guard left.count == right.count, left.count > 1 else { return 0 }
        var sum = 0.0
        for index in 1..<left.count {
            let difference = Double(left[index]) - Double(right[index])
            sum += difference * difference
        }
        return sum.squareRoot()
    }
}
