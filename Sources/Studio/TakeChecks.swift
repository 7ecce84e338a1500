// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// How a recording becomes a take, and what is said of it before it is kept: the same on the page (which reads these
/// values from `GET /api/state`) and in `voicebank record`.
struct TakeChecks: Encodable, Sendable {
    /// A take whose peak goes above this, in dBFS, clips.
    var clippingDecibels = -1.0
    /// A take whose peak stays below this gets a hint to move closer.
    var quietDecibels = -30.0
    /// Left out at the start of every recording: the click of the key that started it.
    var leadSeconds = 0.2
    /// Left out at the end: the click of the key that stopped it.
    var tailSeconds = 0.15
    /// What is left must be at least this long to be a take.
    var shortestSeconds = 0.05

    static let standard = TakeChecks()

    /// `samples` recorded at `sampleRate` without the lead and the tail; `nil` when too little is left.
    func cut(_ samples: [Float], sampleRate: Int) -> ArraySlice<Float>? {
        let from = Int((leadSeconds * Double(sampleRate)).rounded())
        let to = samples.count - Int((tailSeconds * Double(sampleRate)).rounded())
        guard Double(to - from) >= shortestSeconds * Double(sampleRate) else { return nil }
        return samples[from..<to]
    }

    /// What to tell of a take with this peak, in the room with this noise floor (the quietest level heard outside
    /// takes), for a voice that trims its clips' ends below `trimThresholdDecibels`: sentences, none when all is well.
    func hints(peakDecibels: Double, noiseFloorDecibels: Double?, trimThresholdDecibels: Double?) -> [String] {
        var hints: [String] = []
        if peakDecibels > clippingDecibels {
            hints.append(
                "It clips (peak \(Self.decibels(peakDecibels))): record it again a little further from the microphone.")
        } else if peakDecibels < quietDecibels {
            hints.append(
                "It is quiet (peak \(Self.decibels(peakDecibels))): move closer to the microphone or raise its input level."
            )
        }
        if let floor = noiseFloorDecibels, let trim = trimThresholdDecibels, floor > trim {
            hints.append(
                "The room's noise (\(Self.decibels(floor))) is above the level the pack trims below (\(Self.decibels(trim))), so the silence at the ends of takes stays in."
            )
        }
        return hints
    }

    /// `-6.0 dBFS`; `-inf dBFS` for silence.
    static func decibels(_ value: Double) -> String { "\(Decibels.text(value)) dBFS" }

    /// The level of an amplitude in dBFS: `-inf` for 0.
    static func level(_ amplitude: Float) -> Double {
        Decibels.level(amplitude: Double(amplitude))
    }
}
