/// Finds samples that are not numbers (NaN, ±infinity): no recording holds one, and a player or sox reads one as
/// full-scale noise.
public enum FiniteSamples {
    /// The index of the first NaN or infinite sample; `nil` when every sample is finite.
    ///
    /// ```swift
    /// FiniteSamples.firstNonFinite(in: [0, .nan, 1])   // 1
    /// ```
    ///
    /// The scan is integer tests on the exponent bits, which the compiler vectorises: it costs about what copying
    /// the samples once does, so the render path can afford it on every clip read.
    public static func firstNonFinite(in samples: UnsafeBufferPointer<Float>) -> Int? {
        var found: UInt32 = 0
        // An all-ones exponent is NaN or infinity, whatever the sign and mantissa.
        for sample in samples { found |= (~sample.bitPattern & 0x7F80_0000) == 0 ? 1 : 0 }
        guard found != 0 else { return nil }
        return samples.firstIndex { !$0.isFinite }
    }

    public static func firstNonFinite(in samples: [Float]) -> Int? {
        samples.withUnsafeBufferPointer { firstNonFinite(in: $0) }
    }
}
