// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Synchronization
import TestSupport
import Testing

@testable import ConcatSynth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output's converters kept between streams: a converter given back, whatever its stream reached, is lent again
/// and converts the next stream to the samples a new converter gives.
@Suite struct ResamplerPoolTests {
    /// Two seconds of a seeded noise and a sweep, in blocks as a render is pulled.
    static let signal: [Float] = {
        var generator = SeededGenerator(seed: 36)
        return (0..<44_100).map { index in
            let time = Float(index) / 22_050
            return 0.4 * sinf(2 * .pi * (100 + 2_000 * time) * time) + Float.random(in: -0.1...0.1, using: &generator)
        }
    }()

    /// `signal` through `resampler`, in blocks of 2205 frames, with its end.
    static func convert(_ resampler: StreamingResampler, frameCount: Int = signal.count, finish: Bool = true) throws
        -> [UInt32]
    {
        var converted: [Float] = []
        try signal[..<frameCount].withUnsafeBufferPointer { samples in
            for start in stride(from: 0, to: samples.count, by: 2_205) {
                let end = min(start + 2_205, samples.count)
                try resampler.convert(UnsafeBufferPointer(rebasing: samples[start..<end])) { converted += $0 }
            }
        }
        if finish { try resampler.finish { converted += $0 } }
        return converted.map(\.bitPattern)
    }

    @Test(
        "a converter given back mid-stream is lent again and converts as a new one does",
        arguments: [16_000, 24_000, 48_000])
    func reusedMidStream(rate: Int) throws {
        let expected = try Self.convert(StreamingResampler(from: 22_050, to: rate, soxr: .high))
        let pool = ResamplerPool(quality: .high)
        let first = try pool.take(from: 22_050, to: rate)
        _ = try Self.convert(first, frameCount: 5_000, finish: false)
        pool.giveBack(first)
        #expect(pool.idleCount == 1)
        let second = try pool.take(from: 22_050, to: rate)
        #expect(second === first)
        #expect(try Self.convert(second) == expected)
        pool.giveBack(second)
        let third = try pool.take(from: 22_050, to: rate)
        #expect(third === first)
        #expect(try Self.convert(third) == expected)
    }

    @Test("each pair of rates has converters of its own, and no more than the pool keeps")
    func keptByRates() throws {
        let pool = ResamplerPool(quality: .high, maximumIdleCount: 2)
        let lent = try (0..<3).map { _ in try pool.take(from: 22_050, to: 24_000) }
        let other = try pool.take(from: 22_050, to: 16_000)
        for resampler in lent + [other] { pool.giveBack(resampler) }
        #expect(pool.idleCount == 3)
        let taken = try pool.take(from: 22_050, to: 16_000)
        #expect(taken === other)
        #expect(taken.targetRate == 16_000)
    }

    @Test("threads taking and giving back at once each get the samples of a new converter")
    func acrossThreads() throws {
        let expected = try Self.convert(StreamingResampler(from: 22_050, to: 24_000, soxr: .high))
        let pool = ResamplerPool(quality: .high, maximumIdleCount: 2)
        final class Count: Sendable { let value = Mutex(0) }
        let mismatches = Count()
        let done = (0..<4).map { _ in Completion() }
        for completion in done {
            startThread {
                for round in 0..<10 {
                    let resampler = try! pool.take(from: 22_050, to: 24_000)
                    // Every other round is given back mid-stream, as a request whose client went.
                    let converted = try! Self.convert(
                        resampler, frameCount: round.isMultiple(of: 2) ? Self.signal.count : 3_000,
                        finish: round.isMultiple(of: 2))
                    if round.isMultiple(of: 2) && converted != expected { mismatches.value.withLock { $0 += 1 } }
                    pool.giveBack(resampler)
                }
                completion.complete()
            }
        }
        for completion in done { completion.wait() }
        #expect(mismatches.value.withLock { $0 } == 0)
        #expect(pool.idleCount <= 2)
    }
}
