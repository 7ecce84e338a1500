// SPDX-License-Identifier: GPL-3.0-or-later
/// Finds samples that are not numbers (NaN, ±infinity): no recording holds one, and a player or sox reads one as
/// full-scale noise.
public enum FiniteSamples {
    /// The index of the first NaN or infinite sample; `nil` when every sample is finite.
    ///
    /// ```swift
    /// FiniteSamples.firstNonFinite(in: [0, .nan, 1])   // 1
    /// ```
    ///
    /// The scan keeps the largest bit pattern of the samples without their sign: a NaN or an infinity has an all-ones
    /// exponent, so its pattern is at least that of infinity. A plain integer max the compiler vectorises; still
    /// several times a copy's work a sample on x86-64's baseline SSE2, so rendering checks each take once
    /// (`ClipIndex.readRenderReadyPCM`), not each read.
    public static func firstNonFinite(in samples: UnsafeBufferPointer<Float>) -> Int? {
        let largest = samples.withMemoryRebound(to: UInt32.self) { bits in
            var largest: UInt32 = 0
            for index in bits.indices {
                let magnitude = bits[index] & 0x7FFF_FFFF
                largest = magnitude > largest ? magnitude : largest
            }
            return largest
        }
        guard largest >= Float.infinity.bitPattern else { return nil }
        return samples.firstIndex { !$0.isFinite }
    }

    public static func firstNonFinite(in samples: [Float]) -> Int? {
        samples.withUnsafeBufferPointer { firstNonFinite(in: $0) }
    }
}
