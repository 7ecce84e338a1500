// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Glibc
import Testing

@Suite struct PCM16Tests {
    @Test(
        "scaled by 32767, rounded to nearest with ties to even, clipped to ±32767",
        arguments: [
            (Float(0), 0), (1, 32_767), (-1, -32_767), (1.5, 32_767), (-2, -32_767), (0.5, 16_384),
            (-0.5, -16_384), (Float(1.5) / 32_767, 2), (Float(2.5) / 32_767, 2), (.nan, 0), (.infinity, 32_767),
        ])
    func sample(value: Float, expected: Int) {
        #expect(Int(PCM16.sample(value)) == expected)
    }

    @Test("converts a buffer to little-endian bytes")
    func buffer() {
        let samples: [Float] = [0, 1, -1, 0.25]
        var bytes = [UInt8](repeating: 0xAA, count: 10)
        samples.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBytes { PCM16.convert(source, into: $0) }
        }
        #expect(bytes == [0, 0, 0xFF, 0x7F, 0x01, 0x80, 0x00, 0x20, 0xAA, 0xAA])
    }

    @Test(
        "a buffer converts each sample as one sample converts, NaN and infinities too, in the vector loop and after it")
    func bufferAgreesWithSample() {
        let values: [Float] = [.nan, .infinity, -.infinity, 0.5, -0.5, 2, -2, -0.0, 1e-9, -1, 1, .nan, 0.25]
        for count in 0...values.count {
            let samples = Array(values.prefix(count))
            var out = [Int16](repeating: 0x55, count: count + 1)
            samples.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { PCM16.convert(source, into: $0) }
            }
            #expect(out == samples.map(PCM16.sample) + [0x55], "\(count) samples")
        }
    }

    @Test("every step of 1/65536 and every tie rounds as C's lrintf does, into Int16 buffers too")
    func agreesWithLibm() {
        // Each tie k + 0.5 of the 16-bit scale, and a sweep finer than one 16-bit step.
        let ties = (-32_768...32_767).map { (Float($0) + 0.5) / 32_767 }
        let sweep = (-65_600...65_600).map { Float($0) / 65_536 }
        let samples = ties + sweep
        var out = [Int16](repeating: 0, count: samples.count)
        samples.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { PCM16.convert(source, into: $0) }
        }
        let expected = samples.map { Int16(lrintf(min(1, max(-1, $0)) * 32_767)) }
        #expect(out == expected)
    }
}
