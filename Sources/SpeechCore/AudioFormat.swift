#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output format every clip is prepared in and every render produces.
public enum RenderFormat {
    /// Frames per second of render-ready audio: what Apple's speech-synthesizer voices answer with.
    public static let sampleRate = 22_050

    /// A frame count as whole milliseconds, rounded: 661 frames are 30 ms.
    public static func milliseconds(_ frames: Int) -> Int { (frames * 1000 + sampleRate / 2) / sampleRate }
}

/// Levels in decibels and the amplitudes they stand for.
public enum Decibels {
    /// The amplitude factor of a level: 10^(dB/20); 0 for -infinity (silent).
    public static func amplitude(_ decibels: Double) -> Double {
        decibels == -.infinity ? 0 : pow(10, decibels / 20)
    }
}
