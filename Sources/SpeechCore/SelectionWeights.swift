// SPDX-License-Identifier: GPL-3.0-or-later
/// How much a voice's take selection weighs a take's place against the smoothness of its joins: a voice setting
/// (`voicebank configure --position-weight …`).
///
/// A take's cost is `position` × how far its tag (or measured contour) is from its phrase's place, from 0 to 1, plus,
/// at each join between two adjacent takes, `pitch` × the F0 jump in semitones, `energy` × the level jump in dB and
/// `spectrum` × the distance between the edge frames' cepstra. With the defaults a take of the wrong place costs as
/// much as a ten-semitone jump, so a tag wins over a smoother join unless the join is very rough.
public struct SelectionWeights: Equatable, Hashable, Sendable, Encodable, CustomStringConvertible {
    public var position: Double
    /// Per semitone of F0 jump.
    public var pitch: Double
    /// Per dB of level jump.
    public var energy: Double
    /// Per unit of Euclidean distance between the edge frames' cepstra (the first coefficient, the frame's energy,
    /// left out: `energy` weighs that).
    public var spectrum: Double

    public init(position: Double, pitch: Double, energy: Double, spectrum: Double) {
        self.position = position
        self.pitch = pitch
        self.energy = energy
        self.spectrum = spectrum
    }

    public static let standard = SelectionWeights(position: 1, pitch: 0.1, energy: 0.05, spectrum: 0.05)

    /// What each weight may be: from 0 (ignored) to 100.
    public static let weights: ClosedRange<Double> = 0...100

    /// What a weight may be, for errors.
    public static var accepted: String {
        "a weight from \(Int(weights.lowerBound)) (ignored) to \(Int(weights.upperBound))"
    }

    public var description: String {
        "position \(position), pitch \(pitch) a semitone, energy \(energy) a dB, spectrum \(spectrum)"
    }
}
