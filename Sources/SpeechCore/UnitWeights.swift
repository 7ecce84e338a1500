// SPDX-License-Identifier: GPL-3.0-or-later
/// How the units fallback weighs what it compares when it chooses phone-pair units: a voice setting (`voicebank
/// configure --unit-context-weight …`), each weight with its default (docs/speaking.md explains them).
///
/// A unit's target cost adds what differs between the unit as it was said and the phone-pair the word asks for; a
/// join's cost adds how far apart the two units' edges sound. Units that follow each other in one take join at no
/// cost, so whole syllables and words come from one take where the voice said them.
public struct UnitWeights: Equatable, Hashable, Sendable, Encodable, CustomStringConvertible {
    /// For each neighbour of the unit (the phone before it and after it) that is not the target's: half for a phone
    /// of the same class (a stop for a stop), whole for another.
    public var context: Double
    /// For a vowel said with other stress than the word asks for (primary, secondary, none).
    public var stress: Double
    /// For a unit whose edge falls at a word's start or end where the target's does not, or the reverse.
    public var wordPlace: Double
    /// For a unit said before or after a pause (a phrase's edge) where the target is not, or the reverse.
    public var phrasePlace: Double
    /// Per unit of |ln(length / the phones' mean length)|.
    public var duration: Double
    /// Per unit of the Euclidean distance of the edge frames' cepstra (natural-log magnitudes).
    public var spectrum: Double
    /// Per semitone of F0 jump across the join, where both sides are voiced.
    public var pitch: Double
    /// Per decibel of energy jump across the join.
    public var energy: Double

    public init(
        context: Double = 1, stress: Double = 1, wordPlace: Double = 0.5, phrasePlace: Double = 0.5,
        duration: Double = 1, spectrum: Double = 0.5, pitch: Double = 0.25, energy: Double = 0.05
    ) {
        self.context = context
        self.stress = stress
        self.wordPlace = wordPlace
        self.phrasePlace = phrasePlace
        self.duration = duration
        self.spectrum = spectrum
        self.pitch = pitch
        self.energy = energy
    }

    /// The weights of a voice that was never configured otherwise.
    public static let standard = UnitWeights()

    /// Each weight's name as `voicebank configure` takes it (`--unit-NAME-weight`) and the pack stores it
    /// (`unit_NAME_weight`, with `_` for `-`), in the order of `values`.
    public static let names = [
        "context", "stress", "word-place", "phrase-place", "duration", "spectrum", "pitch", "energy",
    ]

    /// The weights in the order of `names`.
    public var values: [Double] { [context, stress, wordPlace, phrasePlace, duration, spectrum, pitch, energy] }

    /// The weights from `values` in the order of `names`.
    public init(values: [Double]) {
        precondition(values.count == Self.names.count, "one value for each of UnitWeights.names")
        self.init(
            context: values[0], stress: values[1], wordPlace: values[2], phrasePlace: values[3], duration: values[4],
            spectrum: values[5], pitch: values[6], energy: values[7])
    }

    /// What each weight may be: from 0 (ignored) to 100, as the selection weights.
    public static let weights: ClosedRange<Double> = SelectionWeights.weights

    /// What a weight may be, for errors.
    public static var accepted: String { SelectionWeights.accepted }

    public var description: String {
        zip(Self.names, values).map { "\($0) \($1)" }.joined(separator: ", ")
    }
}
