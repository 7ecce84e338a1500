// SPDX-License-Identifier: GPL-3.0-or-later
#if arch(x86_64)
    import _Builtin_intrinsics.intel
#endif

/// Float samples to 16-bit PCM and back: the one conversion for every 16-bit output (16-bit files, the
/// speech-dispatcher module's audio blocks, the Wyoming and HTTP servers' audio, a sound device that refuses Float32,
/// the recogniser's input) and every 16-bit input read without libsndfile (espeak-ng's speech, a capture device,
/// a module's audio blocks, a pack's original samples).
///
/// A sample is clipped to -1…1, scaled by 32767 and rounded to the nearest integer, ties to even (C's `lrintf`,
/// as sox rounds), so full scale is ±32767 and never -32768, and 0 stays 0. NaN becomes 0. libsndfile's own
/// conversion floors at 32768 a unit instead, so `AudioFileWriter` converts with this one first.
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

    /// `values` as 16-bit samples, each converted as `sample(_:)` converts it.
    public static func samples(_ values: [Float]) -> [Int16] {
        [Int16](unsafeUninitializedCapacity: values.count) { buffer, count in
            values.withUnsafeBufferPointer { convert($0, into: buffer) }
            count = values.count
        }
    }

    /// A 16-bit sample as a float, as libsndfile reads 16-bit audio: full scale is 32768 a unit, so -32768 is -1
    /// and 32767 just under 1.
    @inline(__always)
    public static func value(_ sample: Int16) -> Float { Float(sample) / 32_768 }

    /// The little-endian 16-bit samples in `bytes`; an odd last byte is left out.
    public static func samples(littleEndian bytes: [UInt8]) -> [Int16] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// Writes `samples` as native-endian 16-bit integers at the start of `out`, which holds at least
    /// `samples.count` values. Allocates nothing.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Int16>) {
        precondition(out.count >= samples.count, "a 16-bit buffer too small for its samples")
        guard let destination = out.baseAddress else { return }
        convert(samples, into: UnsafeMutableRawPointer(destination))
    }

    /// Writes `samples` as little-endian 16-bit integers at the start of `bytes`, which holds at least
    /// `2 × samples.count` bytes. Allocates nothing.
    public static func convert(_ samples: UnsafeBufferPointer<Float>, into bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= samples.count * 2, "a 16-bit buffer too small for its samples")
        guard let destination = bytes.baseAddress else { return }
        if Int16(1).littleEndian == 1 {
            convert(samples, into: destination)
        } else {
            for index in samples.indices {
                destination.storeBytes(of: sample(samples[index]).littleEndian, toByteOffset: index * 2, as: Int16.self)
            }
        }
    }

    /// Native-endian samples at `destination`.
    private static func convert(_ samples: UnsafeBufferPointer<Float>, into destination: UnsafeMutableRawPointer) {
        guard let source = samples.baseAddress else { return }
        var index = 0
        #if arch(x86_64)
            // Eight at a time with SSE2, which every x86-64 has: NaN zeroed, clipped, scaled, converted with the
            // processor's rounding (to nearest, ties to even, as `lrintf`) and packed to 16 bits, in far fewer
            // instructions than the compiler's vector loop of `sample`.
            let one = _mm_set1_ps(1)
            let minusOne = _mm_set1_ps(-1)
            let scale = _mm_set1_ps(32_767)
            @inline(__always) func scaled(_ values: __m128) -> __m128i {
                let numbers = _mm_and_ps(values, _mm_cmpord_ps(values, values))
                return _mm_cvtps_epi32(_mm_mul_ps(_mm_min_ps(_mm_max_ps(numbers, minusOne), one), scale))
            }
            while index + 8 <= samples.count {
                let packed = _mm_packs_epi32(
                    scaled(_mm_loadu_ps(source + index)), scaled(_mm_loadu_ps(source + index + 4)))
                destination.storeBytes(of: packed, toByteOffset: index * 2, as: __m128i.self)
                index += 8
            }
        #endif
        while index < samples.count {
            destination.storeBytes(of: sample(source[index]), toByteOffset: index * 2, as: Int16.self)
            index += 1
        }
    }
}
