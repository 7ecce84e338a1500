// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

extension UnitVoice {
    /// Frames two pieces of a word crossfade over: 5 ms.
    public static let crossfadeFrames = 110
    /// How far a piece's start may move to meet the one before it (optimal coupling), and how far a cut may move to a
    /// pitch mark: 5 ms each way, a period of a 200 Hz voice in all.
    public static let couplingFrames = 110

    /// A word's units joined, before its F0 is shaped: its samples at their takes' levels, the pitch marks that fall in
    /// them, and where each join's crossfade starts.
    public struct JoinedWord: Equatable, Sendable {
        public var samples: [Float]
        /// Frames of `samples`, increasing: the takes' marks where their pieces play.
        public var marks: [Int]
        /// For each mark, the index of the piece it comes from.
        public var markPieces: [Int]
        /// Frames of `samples` where each piece after the first starts to fade in.
        public var joins: [Int]
    }

    /// The samples of a word's units, at their takes' levels: each piece after the first starts where it best
    /// continues the piece before it, and crossfades into it over `crossfadeFrames`.
    ///
    /// With `UnitProsody.shaped`, a cut in a voiced stretch moves to the take's pitch mark nearest it (within
    /// `couplingFrames`), and a piece's start is chosen among its take's marks near its cut, the one whose period best
    /// continues the period after the earlier piece's end (the highest normalised correlation): the crossfade joins a
    /// period to a period. Where either side has no mark near the cut (unvoiced), and always with
    /// `UnitProsody.asRecorded`, the start is the frame within `couplingFrames` of the cut that continues best.
    ///
    /// - Throws: what reading a take's audio or marks throws.
    public func join(_ choice: UnitChoice, in index: UnitIndex) throws -> JoinedWord {
        let atMarks = prosody == .shaped
        var cuts = choice.pieces.map(\.frames)
        var endsOnMark = [Bool](repeating: false, count: cuts.count)
        if atMarks {
            for position in cuts.indices.dropLast() {
                let take = index.takes[choice.pieces[position].take].aligned
                let near = Self.marks(try pitchMarks(of: take), near: cuts[position].upperBound)
                if let mark = near.min(by: { abs($0 - cuts[position].upperBound) < abs($1 - cuts[position].upperBound) }
                ),
                    mark > cuts[position].lowerBound
                {
                    cuts[position] = cuts[position].lowerBound..<mark
                    endsOnMark[position] = true
                }
            }
        }
        var word = JoinedWord(samples: [], marks: [], markPieces: [], joins: [])
        func addMarks(of take: AlignedTake, from start: Int, to end: Int, piece: Int) throws {
            guard atMarks else { return }
            let offset = word.samples.count - start
            for mark in try pitchMarks(of: take) where mark >= start && mark < end {
                word.marks.append(mark + offset)
                word.markPieces.append(piece)
            }
        }
        for (position, piece) in choice.pieces.enumerated() {
            let take = index.takes[piece.take].aligned
            let gain = Float(Decibels.amplitude(try level(of: take)))
            let cut = cuts[position]
            guard position > 0 else {
                try addMarks(of: take, from: cut.lowerBound, to: cut.upperBound, piece: position)
                word.samples += try samples(of: take, cut.lowerBound, cut.count).map { $0 * gain }
                continue
            }
            let previousTake = index.takes[choice.pieces[position - 1].take].aligned
            let previousGain = Float(Decibels.amplitude(try level(of: previousTake)))
            let fade = Self.crossfadeFrames
            let reach = Self.couplingFrames
            let previousEnd = cuts[position - 1].upperBound
            let continuation = try samples(of: previousTake, previousEnd, fade).map { $0 * previousGain }
            let around = try samples(of: take, cut.lowerBound - reach, fade + 2 * reach).map { $0 * gain }
            let marks =
                endsOnMark[position - 1]
                ? Self.marks(try pitchMarks(of: take), near: cut.lowerBound).map { $0 - cut.lowerBound } : []
            let shift =
                marks.isEmpty
                ? Self.bestShift(continuation, in: around, reach: reach)
                : Self.bestShift(continuation, in: around, reach: reach, among: marks)
            let start = cut.lowerBound + shift
            word.joins.append(word.samples.count)
            try addMarks(of: take, from: start, to: max(start, cut.upperBound), piece: position)
            for index in 0..<fade {
                let weight = (Float(index) + 0.5) / Float(fade)
                word.samples.append(continuation[index] * (1 - weight) + around[reach + shift + index] * weight)
            }
            let rest = cut.upperBound - (start + fade)
            if rest > 0 { word.samples += try samples(of: take, start + fade, rest).map { $0 * gain } }
        }
        // A piece shorter than its crossfade leaves marks past the word's end.
        while let last = word.marks.last, last >= word.samples.count {
            word.marks.removeLast()
            word.markPieces.removeLast()
        }
        return word
    }

    /// The marks of `marks` within `couplingFrames` of `frame`.
    static func marks(_ marks: [Int], near frame: Int) -> [Int] {
        let reach = couplingFrames
        var low = 0
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if marks[middle] < frame - reach { low = middle + 1 } else { high = middle }
        }
        var result: [Int] = []
        while low < marks.count, marks[low] <= frame + reach {
            result.append(marks[low])
            low += 1
        }
        return result
    }

    /// The shift in -reach…reach (or among `shifts`, when given) at which `around` (which starts `reach` frames
    /// before the cut) best matches `continuation`; the smallest shift among equals, so that the same units join the
    /// same way.
    static func bestShift(
        _ continuation: [Float], in around: [Float], reach: Int, among shifts: [Int]? = nil
    ) -> Int {
        var best = (shift: 0, score: -Double.infinity)
        let energy = continuation.reduce(0.0) { $0 + Double($1) * Double($1) }
        for shift in shifts ?? Array(-reach...reach) {
            var product = 0.0
            var other = 0.0
            for index in continuation.indices {
                let value = Double(around[reach + shift + index])
                product += Double(continuation[index]) * value
                other += value * value
            }
            let score = energy > 0 && other > 0 ? product / (energy * other).squareRoot() : 0
            if score > best.score || (score == best.score && abs(shift) < abs(best.shift)) { best = (shift, score) }
        }
        return best.shift
    }
}
