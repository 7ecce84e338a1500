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

    /// `largestJoinStep / largestInnerStep`; 0 when there is no join or no inner step.
    public var ratio: Float { largestInnerStep > 0 ? largestJoinStep / largestInnerStep : 0 }

    /// Measures `samples` with joins at `joinFrames` (as `RenderPlan.joinFrames` lists them).
    public init(samples: [Float], joinFrames: [Int]) {
        let joins = Set(joinFrames.filter { $0 > 0 && $0 < samples.count })
        var joinStep: Float = 0
        var innerStep: Float = 0
        for index in samples.indices.dropFirst() {
            let step = abs(samples[index] - samples[index - 1])
            if joins.contains(index) { joinStep = max(joinStep, step) } else { innerStep = max(innerStep, step) }
        }
        joinCount = joins.count
        largestJoinStep = joinStep
        largestInnerStep = innerStep
    }

    public var description: String {
        "\(joinCount) joins: largest step at a join \(rounded(largestJoinStep)), inside the audio \(rounded(largestInnerStep)) (ratio \(rounded(ratio)))"
    }

    private func rounded(_ value: Float) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
