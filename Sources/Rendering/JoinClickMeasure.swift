// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// How hard a render's joins step: the largest jump between two samples at a join, against the largest jump
/// inside the clips themselves.
///
/// A clean join steps no more than the audio around it does: a ratio of 1 or less. A join that cuts from a
/// sample at full scale to silence steps by 1, far more than speech steps from one sample to the next at
/// 22050 Hz, and is heard as a click.
public struct JoinClickMeasure: Equatable, Sendable, CustomStringConvertible {
    public var joinCount: Int
    /// The largest |x[n] - x[n-1]| where n is a join frame.
    public var largestJoinStep: Float
    /// The largest |x[n] - x[n-1]| anywhere else.
    public var largestInnerStep: Float
    /// How many of the joins lead into or out of the fallback voice's speech.
    public var fallbackVoiceJoinCount: Int
    /// The largest step at those joins.
    public var largestFallbackVoiceJoinStep: Float

    /// `largestJoinStep / largestInnerStep`; 0 when there is no join or no inner step.
    public var ratio: Float { largestInnerStep > 0 ? largestJoinStep / largestInnerStep : 0 }

    /// Measures `samples` with joins at `joinFrames` (as `RenderPlan.joinFrames` lists them), of which those at
    /// `fallbackVoiceJoinFrames` meet the fallback voice's speech (`RenderPlan.fallbackVoiceJoinFrames`).
    public init(samples: [Float], joinFrames: [Int], fallbackVoiceJoinFrames: [Int] = []) {
        let joins = Set(joinFrames.filter { $0 > 0 && $0 < samples.count })
        let fallbackVoiceJoins = joins.intersection(fallbackVoiceJoinFrames)
        var joinStep: Float = 0
        var innerStep: Float = 0
        var fallbackVoiceStep: Float = 0
        for index in samples.indices.dropFirst() {
            let step = abs(samples[index] - samples[index - 1])
            if joins.contains(index) { joinStep = max(joinStep, step) } else { innerStep = max(innerStep, step) }
            if fallbackVoiceJoins.contains(index) { fallbackVoiceStep = max(fallbackVoiceStep, step) }
        }
        joinCount = joins.count
        largestJoinStep = joinStep
        largestInnerStep = innerStep
        fallbackVoiceJoinCount = fallbackVoiceJoins.count
        largestFallbackVoiceJoinStep = fallbackVoiceStep
    }

    public var description: String {
        "\(joinCount) joins: largest step at a join \(rounded(largestJoinStep)), inside the audio \(rounded(largestInnerStep)) (ratio \(rounded(ratio)))"
            + (fallbackVoiceJoinCount == 0
                ? ""
                : "; \(fallbackVoiceJoinCount) of them at the fallback voice's speech, largest step "
                    + rounded(largestFallbackVoiceJoinStep))
    }

    private func rounded(_ value: Float) -> String { decimal(Double(value), places: 3) }
}
