// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

extension UnitVoice {
    /// Frames two pieces of a word crossfade over: 5 ms.
    public static let crossfadeFrames = 110
    /// How far a piece's start may move to meet the one before it (optimal coupling): 5 ms each way, a period of a
    /// 200 Hz voice in all.
    public static let couplingFrames = 110

    /// The samples of a word's units, at their takes' levels: each piece after the first starts where, within
    /// `couplingFrames` of its cut, its waveform best continues the piece before it (the highest normalised
    /// correlation with the earlier piece's own continuation), and crossfades into it over `crossfadeFrames`.
    ///
    /// - Throws: what reading a take's audio throws.
    public func samples(of choice: UnitChoice, in index: UnitIndex) throws -> [Float] {
        var output: [Float] = []
        for (position, piece) in choice.pieces.enumerated() {
            let take = index.takes[piece.take].aligned
            let gain = Float(Decibels.amplitude(try level(of: take)))
            guard position > 0 else {
                output += try samples(of: take, piece.frames.lowerBound, piece.frames.count).map { $0 * gain }
                continue
            }
            let previous = choice.pieces[position - 1]
            let previousTake = index.takes[previous.take].aligned
            let previousGain = Float(Decibels.amplitude(try level(of: previousTake)))
            let fade = Self.crossfadeFrames
            let reach = Self.couplingFrames
            let continuation = try samples(of: previousTake, previous.frames.upperBound, fade).map { $0 * previousGain }
            let around = try samples(of: take, piece.frames.lowerBound - reach, fade + 2 * reach).map { $0 * gain }
            let shift = Self.bestShift(continuation, in: around, reach: reach)
            let start = piece.frames.lowerBound + shift
            for index in 0..<fade {
                let weight = (Float(index) + 0.5) / Float(fade)
                output.append(continuation[index] * (1 - weight) + around[reach + shift + index] * weight)
            }
            let rest = piece.frames.upperBound - (start + fade)
            if rest > 0 { output += try samples(of: take, start + fade, rest).map { $0 * gain } }
        }
        return output
    }

    /// The shift in -reach…reach at which `around` (which starts `reach` frames before the cut) best matches
    /// `continuation`; the smallest shift among equals, so that the same units join the same way.
    static func bestShift(_ continuation: [Float], in around: [Float], reach: Int) -> Int {
        var best = (shift: 0, score: -Double.infinity)
        let energy = continuation.reduce(0.0) { $0 + Double($1) * Double($1) }
        for shift in -reach...reach {
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
