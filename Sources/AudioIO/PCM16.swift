/// Float samples to 16-bit PCM: the one conversion for every 16-bit output (the speech-dispatcher module's audio
/// blocks, the Wyoming server's audio chunks, a sound device that refuses Float32).
///
/// A sample is clipped to -1…1, scaled by 32767 and rounded to the nearest integer, ties to even (C's `lrintf`,
/// as libsndfile and sox round), so full scale is ±32767 and never -32768, and 0 stays 0. NaN becomes 0.
///
/// ```swift
/// PCM16.sample(0.5)    // 16384 (16383.5 rounds to even)
/// PCM16.sample(-1.2)   // -32767
/// ```
public enum PCM16 {
    @inline(__always)
    public static func sample(_ value: Float) -> Int16 {
        let clipped = value.isNaN ? 0 : min(1, max(-1, value)) * 32_767
        // Every float from 2²³ to 2²⁴ is a whole number whose low mantissa bits count up from 0 at 1.5 × 2²³: adding
        // 1.5 × 2²³ rounds the sample to an integer, ties to even, and leaves it, as two's complement, in the low 16
        // bits. No float-to-integer conversion, so a loop of these compiles to vector instructions;
        // `rounded(.toNearestOrEven)` would call libm's `rintf` per sample on x86-64's baseline instruction set.
        let magic: Float = 12_582_912
        return Int16(truncatingIfNeeded: (clipped + magic).bitPattern)
    }

    /// Writes `samples` as native-endian 16-bit integers at the start of `out`, which holds at least
    /// `samples.count` values. Allocates nothing.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Int16>) {
        precondition(out.count >= samples.count, "a 16-bit buffer too small for its samples")
        for index in samples.indices { out[index] = sample(samples[index]) }
    }

    /// Writes `samples` as little-endian 16-bit integers at the start of `bytes`, which holds at least
    /// `2 × samples.count` bytes. Allocates nothing.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, into bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= samples.count * 2, "a 16-bit buffer too small for its samples")
        for index in samples.indices {
            bytes.storeBytes(of: sample(samples[index]).littleEndian, toByteOffset: index * 2, as: Int16.self)
        }
    }
}
