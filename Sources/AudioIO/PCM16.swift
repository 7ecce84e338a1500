/// Float samples to 16-bit PCM: the one conversion for every 16-bit output (the Wyoming server's audio chunks).
///
/// A sample is clipped to -1…1, scaled by 32767 and rounded to the nearest integer, ties to even (C's `lrintf`,
/// as libsndfile and sox round), so full scale is ±32767 and never -32768, and 0 stays 0. NaN becomes 0.
///
/// ```swift
/// PCM16.sample(0.5)    // 16384 (16383.5 rounds to even)
/// PCM16.sample(-1.2)   // -32767
/// ```
public enum PCM16 {
    public static func sample(_ value: Float) -> Int16 {
        guard !value.isNaN else { return 0 }
        return Int16((min(1, max(-1, value)) * 32_767).rounded(.toNearestOrEven))
    }

    /// Writes `samples` as little-endian 16-bit integers at the start of `bytes`, which holds at least
    /// `2 × samples.count` bytes. Allocates nothing.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, into bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= samples.count * 2, "a 16-bit buffer too small for its samples")
        for (index, value) in samples.enumerated() {
            bytes.storeBytes(of: sample(value).littleEndian, toByteOffset: index * 2, as: Int16.self)
        }
    }
}
