// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#endif

/// The units chosen for one word: the parts of takes it plays, in order, each a run of units that followed each other
/// in its take.
public struct UnitChoice: Equatable, Sendable {
    public struct Piece: Equatable, Sendable {
        /// The take's index in the unit index.
        public var take: Int
        /// Frames of the take's whole samples.
        public var frames: Range<Int>
        /// Units the piece holds.
        public var unitCount: Int
    }

    public var pieces: [Piece]
    /// The path's total cost (target and join).
    public var cost: Double
}

/// What the search found for a word: its units, or the first phone-pair (or phone) no take has.
public enum UnitSearchResult: Equatable, Sendable {
    case built(UnitChoice)
    case missing(String)
}

extension UnitVoice {
    /// Candidates kept for each unit of a word after the target cost, besides the units that continue a kept one in its
    /// take.
    static let candidatesPerUnit = 12

    /// Chooses units for a word by Viterbi: a half-phone at each end of the word and the phone-pairs between, each
    /// weighed by the target cost against what the word asks for, and each pair of neighbours by the join cost (none
    /// for units that follow each other in one take).
    ///
    /// - Parameters:
    ///   - phones: the word's phones, from the front end.
    ///   - before: the phone said before the word, `nil` after a pause; `after` likewise.
    /// - Throws: what reading a take's audio throws.
    public func choose(word phones: [Phone], before: Phone?, after: Phone?, in index: UnitIndex) throws
        -> UnitSearchResult
    {
        if let missing = missingUnit(of: phones, in: index) { return .missing(missing) }
        // The units: the first phone's left half, the pairs, the last phone's right half.
        var slots: [[Candidate]] = []
        for slot in 0...phones.count {
            let kind: Candidate.Kind = slot == 0 ? .leftHalf : slot == phones.count ? .rightHalf : .pair
            let places: [(take: Int, phone: Int)]
            switch kind {
            case .leftHalf: places = index.places(ofPhone: phones[0].symbol)
            case .rightHalf: places = index.places(ofPhone: phones[slot - 1].symbol)
            case .pair:
                places = index.units(ofPair: PhoneSet.pair(phones[slot - 1].symbol, phones[slot].symbol))
            }
            guard !places.isEmpty else {
                return .missing(
                    kind == .pair
                        ? PhoneSet.pair(phones[slot - 1].symbol, phones[slot].symbol)
                        : phones[kind == .leftHalf ? 0 : slot - 1].symbol)
            }
            let target = Target(phones: phones, slot: slot, before: before, after: after)
            var candidates = places.map { place in
                let candidate = Candidate(kind: kind, take: place.take, phone: place.phone)
                return candidate.weighed(targetCost(candidate, target, in: index))
            }
            candidates.sort { ($0.targetCost, $0.take, $0.phone) < ($1.targetCost, $1.take, $1.phone) }
            var kept = Array(candidates.prefix(Self.candidatesPerUnit))
            if let previous = slots.last {
                let continuing = Set(previous.map { UnitIndex.Cut(take: $0.take, phone: $0.endPhone, point: .middle) })
                kept += candidates.dropFirst(Self.candidatesPerUnit).filter { continuing.contains($0.start) }
            }
            slots.append(kept)
        }
        // Takes without stored join features (a pack from before they were kept) have the edges every join may compare
        // measured from their audio take by take in frame order: reads of one take follow each other, and the store
        // walks each take's pages once rather than once a join.
        var edges: [(take: Int, phone: Int)] = []
        for (number, slot) in slots.enumerated() {
            for candidate in slot where index.takes[candidate.take].aligned.joinFeatures == nil {
                if number > 0 { edges.append((candidate.take, candidate.start.phone)) }
                if number < slots.count - 1 { edges.append((candidate.take, candidate.end.phone)) }
            }
        }
        edges.sort { ($0.take, $0.phone) < ($1.take, $1.phone) }
        for edge in edges { _ = try joinFeatures(take: edge.take, phone: edge.phone, in: index) }
        return .built(try viterbi(slots, in: index))
    }

    /// The first phone (for a word's edges) or phone-pair of a word that no take has; `nil` when every unit of it has
    /// a place, so that the word can be built. Reads no audio.
    public func missingUnit(of phones: [Phone], in index: UnitIndex) -> String? {
        guard let first = phones.first, let last = phones.last else { return "no phones" }
        if index.places(ofPhone: first.symbol).isEmpty { return first.symbol }
        for (left, right) in zip(phones, phones.dropFirst())
        where !index.hasPair(PhoneSet.pair(left.symbol, right.symbol)) {
            return PhoneSet.pair(left.symbol, right.symbol)
        }
        return index.places(ofPhone: last.symbol).isEmpty ? last.symbol : nil
    }

    /// The cheapest path through the slots; ties go to the earlier candidate, so the same request chooses the same.
    private func viterbi(_ slots: [[Candidate]], in index: UnitIndex) throws -> UnitChoice {
        var costs = slots[0].map(\.targetCost)
        var back: [[Int]] = [Array(repeating: -1, count: slots[0].count)]
        for slot in 1..<slots.count {
            var next: [Double] = []
            var pointers: [Int] = []
            for candidate in slots[slot] {
                var best = (cost: Double.infinity, from: 0)
                for (from, previous) in slots[slot - 1].enumerated() {
                    let cost = costs[from] + (try joinCost(previous, candidate, in: index))
                    if cost < best.cost { best = (cost, from) }
                }
                next.append(best.cost + candidate.targetCost)
                pointers.append(best.from)
            }
            costs = next
            back.append(pointers)
        }
        var chosen = costs.indices.min { (costs[$0], $0) < (costs[$1], $1) }!
        var path: [Candidate] = []
        for slot in stride(from: slots.count - 1, through: 0, by: -1) {
            path.append(slots[slot][chosen])
            chosen = back[slot][chosen]
        }
        path.reverse()
        var pieces: [UnitChoice.Piece] = []
        for (position, unit) in path.enumerated() {
            let frames = index.frame(of: unit.start)..<index.frame(of: unit.end)
            if position > 0, path[position - 1].end == unit.start {
                pieces[pieces.count - 1].frames = pieces[pieces.count - 1].frames.lowerBound..<frames.upperBound
                pieces[pieces.count - 1].unitCount += 1
            } else {
                pieces.append(.init(take: unit.take, frames: frames, unitCount: 1))
            }
        }
        return UnitChoice(pieces: pieces, cost: costs.min()!)
    }

    /// What differs between a unit as it was said and what the word asks for there (`UnitWeights`).
    private func targetCost(_ unit: Candidate, _ target: Target, in index: UnitIndex) -> Double {
        let phones = index.takes[unit.take].phones
        let first = phones[unit.phone]
        let last = phones[unit.endPhone]
        let classes = PhoneSet.english.classes
        func mismatch(_ said: String?, _ wanted: Phone?) -> Double {
            guard let said, let wanted else { return said == nil && wanted == nil ? 0 : 1 }
            if said == wanted.symbol { return 0 }
            return classes[said] == classes[wanted.symbol] ? 0.5 : 1
        }
        let before = first.followsPause ? nil : phones[unit.phone - 1].symbol
        let after = last.precedesPause ? nil : phones[unit.endPhone + 1].symbol
        var cost = weights.context * (mismatch(before, target.before) + mismatch(after, target.after))
        for (offset, wanted) in target.phones.enumerated() where wanted.isVowel {
            if let said = stress(take: unit.take, phone: unit.phone + offset, in: index), let stress = wanted.stress,
                said != stress
            {
                cost += weights.stress
            }
        }
        let startsWord = unit.phone == 0 || phones[unit.phone - 1].word != first.word
        let endsWord = unit.endPhone + 1 == phones.count || phones[unit.endPhone + 1].word != last.word
        switch unit.kind {
        case .leftHalf:
            if startsWord != target.startsWord { cost += weights.wordPlace }
            if first.followsPause != (target.before == nil) { cost += weights.phrasePlace }
        case .rightHalf:
            if endsWord != target.endsWord { cost += weights.wordPlace }
            if last.precedesPause != (target.after == nil) { cost += weights.phrasePlace }
        case .pair:
            if first.word != last.word { cost += weights.wordPlace }
        }
        let frames = Double(index.frame(of: unit.end) - index.frame(of: unit.start))
        let expected = target.phones.enumerated().reduce(0.0) { sum, entry in
            sum + (index.meanPhoneFrames[entry.element.symbol] ?? frames) / 2
        }
        if frames > 0, expected > 0 { cost += weights.duration * abs(log(frames / expected)) }
        return cost
    }

    /// How far apart two units' edges sound; nothing for units that follow each other in one take.
    private func joinCost(_ left: Candidate, _ right: Candidate, in index: UnitIndex) throws -> Double {
        if left.end == right.start { return 0 }
        // Units meet only at a phone's middle (a unit's end within a word, the next unit's start).
        let leftEdge = try joinFeatures(take: left.take, phone: left.end.phone, in: index)
        let rightEdge = try joinFeatures(take: right.take, phone: right.start.phone, in: index)
        return EdgeFeatures.distance(
            leftEdge.values, levelDecibels: leftEdge.levelDecibels, rightEdge.values,
            levelDecibels: rightEdge.levelDecibels, weights: weights)
    }
}

/// A unit that could stand in one place of a word: a half-phone or a phone-pair of a take.
private struct Candidate {
    enum Kind { case leftHalf, pair, rightHalf }
    var kind: Kind
    var take: Int
    /// The index in its take of its (first) phone.
    var phone: Int
    var targetCost = 0.0

    var endPhone: Int { kind == .pair ? phone + 1 : phone }
    var start: UnitIndex.Cut { .init(take: take, phone: phone, point: kind == .leftHalf ? .start : .middle) }
    var end: UnitIndex.Cut { .init(take: take, phone: endPhone, point: kind == .rightHalf ? .end : .middle) }

    func weighed(_ cost: Double) -> Candidate {
        var weighed = self
        weighed.targetCost = cost
        return weighed
    }
}

/// What one place of a word asks for: its phones (one for a half, two for a pair), their neighbours, whether it
/// starts or ends the word.
private struct Target {
    var phones: [Phone]
    var before: Phone?
    var after: Phone?
    var startsWord: Bool
    var endsWord: Bool

    init(phones word: [Phone], slot: Int, before wordBefore: Phone?, after wordAfter: Phone?) {
        let first = slot == 0 ? 0 : slot - 1
        let last = slot == word.count ? word.count - 1 : slot
        phones = Array(word[first...last])
        before = first == 0 ? wordBefore : word[first - 1]
        after = last == word.count - 1 ? wordAfter : word[last + 1]
        startsWord = slot == 0
        endsWord = slot == word.count
    }
}
