// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sine of one frequency that best fits some samples (least squares of its sine and cosine): how much of that
/// frequency they hold, whatever else they hold. What the converter's quality figures and the tests of conversion
/// measure.
public struct SineFit: Sendable {
    public var frequency: Double
    public var sampleRate: Int
    /// The weights of the sine and the cosine.
    public var sine: Double
    public var cosine: Double

    /// Fits a sine of `frequency` Hz to `samples`, each at its index in the array it is a slice of, so that a fit over
    /// a middle part (leaving out the edges) is in phase with the whole.
    public init(_ frequency: Double, to samples: ArraySlice<Float>, sampleRate: Int) {
        self.frequency = frequency
        self.sampleRate = sampleRate
        var (ss, sc, cc, xs, xc) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for index in samples.indices {
            let angle = 2 * .pi * frequency * Double(index) / Double(sampleRate)
            let (sine, cosine, sample) = (sin(angle), cos(angle), Double(samples[index]))
            ss += sine * sine
            sc += sine * cosine
            cc += cosine * cosine
            xs += sample * sine
            xc += sample * cosine
        }
        let determinant = ss * cc - sc * sc
        sine = (xs * cc - xc * sc) / determinant
        cosine = (xc * ss - xs * sc) / determinant
    }

    /// The fitted sine's amplitude.
    public var amplitude: Double { (sine * sine + cosine * cosine).squareRoot() }

    /// The fitted sine at frame `index`.
    public func value(at index: Int) -> Double {
        let angle = 2 * .pi * frequency * Double(index) / Double(sampleRate)
        return sine * sin(angle) + cosine * cos(angle)
    }

    /// `samples` less the fitted sine: what else they hold, without that frequency's leakage into a fit at another.
    public func removed(from samples: ArraySlice<Float>) -> ArraySlice<Float> {
        var residual = samples
        for index in residual.indices { residual[index] -= Float(value(at: index)) }
        return residual
    }
}
