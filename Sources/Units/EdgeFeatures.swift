// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a join compares at a unit's edge: the spectrum (a mel-spaced cepstrum), F0 and energy of the few
/// milliseconds around one frame of a take. A take's are measured once, at the middle of each phone, when it is
/// aligned, and kept as its `JoinFeatures`.
public struct EdgeFeatures: Equatable, Sendable {
    /// Cepstral coefficients 1…`JoinFeatures.cepstrumCount` of the log band energies.
    public var cepstrum: [Double]
    /// F0 in Hz; `nil` where the frame is not voiced.
    public var f0: Double?
    /// Energy in dB (full scale 0).
    public var energyDecibels: Double

    /// The features of `samples` (`EdgeFeatures.windowFrames` frames centred on the edge, 22050 Hz).
    public init(samples: [Float]) {
        let count = samples.count
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(count, 1))
        energyDecibels = 10 * log10(energy + 1e-10)
        cepstrum = Self.cepstrum(samples)
        f0 = energyDecibels > Self.silenceDecibels ? Self.f0(samples) : nil
    }

    /// Frames read around an edge: 23 ms, two periods of a 90 Hz voice.
    public static let windowFrames = 512
    /// Below it a frame counts as silence, and has no F0.
    static let silenceDecibels = -55.0

    /// The features of the `windowFrames` frames of `samples` centred on `frame`, zeros where they fall outside.
    public init(samples: [Float], around frame: Int) {
        let start = frame - Self.windowFrames / 2
        var window = [Float](repeating: 0, count: Self.windowFrames)
        let first = max(0, start)
        let end = min(samples.count, start + Self.windowFrames)
        if end > first { for index in first..<end { window[index - start] = samples[index] } }
        self.init(samples: window)
    }

    /// The features as one phone's `JoinFeatures` values: the cepstrum, F0 (0 where unvoiced), energy.
    public var joinValues: [Float] {
        cepstrum.map(Float.init) + [Float(f0 ?? 0), Float(energyDecibels)]
    }

    /// How far apart two edges sound, by `weights`: `left` and `right` are a phone's `JoinFeatures` values each, with
    /// the levels their takes play at.
    public static func distance(
        _ left: ArraySlice<Float>, levelDecibels leftLevel: Double, _ right: ArraySlice<Float>,
        levelDecibels rightLevel: Double, weights: UnitWeights
    ) -> Double {
        var spectral = 0.0
        for (a, b) in zip(left.prefix(JoinFeatures.cepstrumCount), right.prefix(JoinFeatures.cepstrumCount)) {
            spectral += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        var cost = weights.spectrum * spectral.squareRoot()
        let leftEnergy = Double(left[left.startIndex + JoinFeatures.energyOffset]) + leftLevel
        let rightEnergy = Double(right[right.startIndex + JoinFeatures.energyOffset]) + rightLevel
        cost += weights.energy * abs(leftEnergy - rightEnergy)
        let leftF0 = Double(left[left.startIndex + JoinFeatures.f0Offset])
        let rightF0 = Double(right[right.startIndex + JoinFeatures.f0Offset])
        if leftF0 > 0, rightF0 > 0 { cost += weights.pitch * abs(12 * log2(leftF0 / rightF0)) }
        return cost
    }

    // The spectrum: a DFT of the middle 256 frames under a Hann window, 20 bands spaced evenly on the mel scale up to
    // 8 kHz, their log energies, and a DCT-II of those. Written out rather than taken from aubio, whose MFCC needs
    // libfftw3f, which the speaking executables do not load; 256 frames cost little at a join's few frames.
    private static let dftFrames = 256
    private static let bandCount = 20
    private static let cepstrumCount = JoinFeatures.cepstrumCount

    private static let window: [Double] = (0..<dftFrames).map {
        0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(dftFrames - 1))
    }
    private static let cosines: [Double] = (0..<dftFrames).map { cos(2 * Double.pi * Double($0) / Double(dftFrames)) }
    private static let sines: [Double] = (0..<dftFrames).map { sin(2 * Double.pi * Double($0) / Double(dftFrames)) }
    /// Each DFT bin's band, or -1 for none.
    private static let bands: [Int] = {
        func mel(_ hz: Double) -> Double { 2595 * log10(1 + hz / 700) }
        let top = mel(8_000)
        let low = mel(80)
        return (0...dftFrames / 2).map { bin in
            let hz = Double(bin) * Double(RenderFormat.sampleRate) / Double(dftFrames)
            guard hz >= 80, hz < 8_000 else { return -1 }
            return min(bandCount - 1, Int((mel(hz) - low) / (top - low) * Double(bandCount)))
        }
    }()

    private static func cepstrum(_ samples: [Float]) -> [Double] {
        let offset = max(0, (samples.count - dftFrames) / 2)
        var windowed = [Double](repeating: 0, count: dftFrames)
        for index in 0..<min(dftFrames, samples.count - offset) {
            windowed[index] = Double(samples[offset + index]) * window[index]
        }
        var energies = [Double](repeating: 1e-10, count: bandCount)
        for bin in 1...dftFrames / 2 where bands[bin] >= 0 {
            var real = 0.0
            var imaginary = 0.0
            var phase = 0
            for value in windowed {
                real += value * cosines[phase]
                imaginary -= value * sines[phase]
                phase = (phase + bin) & (dftFrames - 1)
            }
            energies[bands[bin]] += real * real + imaginary * imaginary
        }
        let logs = energies.map { log($0) }
        return (1...cepstrumCount).map { order in
            var sum = 0.0
            for (band, value) in logs.enumerated() {
                sum += value * cos(Double.pi * Double(order) * (Double(band) + 0.5) / Double(bandCount))
            }
            return sum / Double(bandCount)
        }
    }

    /// F0 by autocorrelation of the samples averaged down to a quarter of the rate, 60–400 Hz; `nil` where no lag
    /// correlates by half.
    private static func f0(_ samples: [Float]) -> Double? {
        let decimation = 4
        let rate = Double(RenderFormat.sampleRate) / Double(decimation)
        var low: [Double] = []
        low.reserveCapacity(samples.count / decimation)
        var index = 0
        while index + decimation <= samples.count {
            var sum = 0.0
            for offset in 0..<decimation { sum += Double(samples[index + offset]) }
            low.append(sum / Double(decimation))
            index += decimation
        }
        let shortest = Int(rate / 400)
        let longest = min(Int(rate / 60), low.count / 2)
        guard longest > shortest else { return nil }
        let energy = low.reduce(0) { $0 + $1 * $1 }
        guard energy > 0 else { return nil }
        var best = (lag: 0, correlation: 0.0)
        for lag in shortest...longest {
            var sum = 0.0
            for position in 0..<(low.count - lag) { sum += low[position] * low[position + lag] }
            let correlation = sum / energy * Double(low.count) / Double(low.count - lag)
            if correlation > best.correlation { best = (lag, correlation) }
        }
        return best.correlation >= 0.5 ? rate / Double(best.lag) : nil
    }
}

extension JoinFeatures {
    /// Measures a take's join features: `EdgeFeatures` at the middle of each of `phones`, in `samples`, its whole
    /// conversion at 22050 Hz (which alignment frames count in).
    public static func measure(samples: [Float], phones: [AlignedTake.Segment]) -> JoinFeatures {
        JoinFeatures(
            values: phones.flatMap {
                EdgeFeatures(samples: samples, around: ($0.frames.lowerBound + $0.frames.upperBound) / 2).joinValues
            })
    }
}
