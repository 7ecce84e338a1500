// SPDX-License-Identifier: GPL-3.0-or-later
/// What the module tells the server on its own while a message plays, as the bytes it writes.
///
/// ```swift
/// ModuleEvent.indexMark("__spd_1").bytes   // "700-__spd_1\n700 INDEX MARK\n"
/// ```
public enum ModuleEvent: Equatable, Sendable {
    case begin
    case end
    case stop
    case pause
    /// A `<mark>` the audio has reached: every sample before it has been sent.
    case indexMark(String)
    /// A sound icon file for the server to play.
    case icon(path: String)

    public var text: String {
        switch self {
        case .begin: "701 BEGIN\n"
        case .end: "702 END\n"
        case .stop: "703 STOP\n"
        case .pause: "704 PAUSE\n"
        case .indexMark(let name): "700-\(name)\n700 INDEX MARK\n"
        case .icon(let path): "706-\(path)\n706 ICON\n"
        }
    }
}

/// The `705 AUDIO` event: a block of signed 16-bit little-endian mono PCM, escaped so that no byte of it is a
/// newline.
///
/// speech-dispatcher reads each event as lines, so the PCM bytes `0x0A` (newline) and `0x7D` (the escape
/// byte itself) are sent as `0x7D` followed by the byte with bit 5 flipped (`0x2A`, `0x5D`), the HDLC way.
public enum AudioBlock {
    /// The escape byte.
    public static let escape: UInt8 = 0x7D
    /// The most samples one block carries: 10,000 bytes, as speech-dispatcher's own modules send, large enough to
    /// move audio efficiently and small enough that a STOP is heard at once.
    public static let maximumSampleCount = 5_000

    /// The most bytes the event for `sampleCount` samples takes: header, every PCM byte escaped, closing line.
    public static func maximumEncodedByteCount(sampleCount: Int) -> Int { 160 + sampleCount * 4 }

    /// Writes the whole event for `samples` (header, escaped PCM, closing line) at the start of `out`, which holds
    /// at least `maximumEncodedByteCount(sampleCount:)` bytes; returns the bytes written.
    ///
    /// ```swift
    /// AudioBlock.encode([0, 10], sampleRate: 22_050)
    /// // "705-bits=16\n705-num_channels=1\n705-sample_rate=22050\n705-num_samples=2\n705-big_endian=0\n"
    /// // "705-AUDIO\0" + [0x00, 0x00, 0x7D, 0x2A, 0x00] + "\n705 AUDIO\n"
    /// ```
    public static func encode(
        _ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, into out: UnsafeMutableRawBufferPointer
    ) -> Int {
        precondition(out.count >= maximumEncodedByteCount(sampleCount: samples.count), "the block buffer is too small")
        var header = """
            705-bits=16
            705-num_channels=1
            705-sample_rate=\(sampleRate)
            705-num_samples=\(samples.count)
            705-big_endian=0
            705-AUDIO
            """
        var index = header.withUTF8 { bytes in
            out.copyMemory(from: UnsafeRawBufferPointer(bytes))
            return bytes.count
        }
        out[index] = 0
        index += 1
        @inline(__always) func put(_ byte: UInt8) {
            if byte == 0x0A || byte == escape {
                out[index] = escape
                out[index + 1] = byte ^ 0x20
                index += 2
            } else {
                out[index] = byte
                index += 1
            }
        }
        // Low byte first, as 705-big_endian=0 says. Sixteen bytes at a time, compared with both bytes to escape in
        // one vector instruction each: a run with neither (nine in ten of them) is copied whole. In a run with one,
        // eight bytes at a time are copied up to the first byte to escape, found with the zero-byte test on a
        // 64-bit word (its lowest flag is exact), rather than going byte by byte.
        let pcm = UnsafeRawBufferPointer(samples)
        let newlines = SIMD16<UInt8>(repeating: 0x0A)
        let escapes = SIMD16<UInt8>(repeating: escape)
        let ones: UInt64 = 0x0101_0101_0101_0101
        @inline(__always) func zeroByteFlags(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & (ones << 7) }
        var offset = 0
        if UInt16(0x0102).littleEndian == 0x0102 {
            while offset + 16 <= pcm.count {
                let bytes = pcm.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                guard any((bytes .== newlines) .| (bytes .== escapes)) else {
                    out.storeBytes(of: bytes, toByteOffset: index, as: SIMD16<UInt8>.self)
                    index += 16
                    offset += 16
                    continue
                }
                let end = offset + 16
                while offset + 8 <= end {
                    let word = pcm.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    let flags = zeroByteFlags(word ^ (0x0A &* ones)) | zeroByteFlags(word ^ (UInt64(escape) &* ones))
                    // Written whole even when a byte in it is escaped: what follows that byte is written again.
                    out.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
                    guard flags != 0 else {
                        index += 8
                        offset += 8
                        continue
                    }
                    let first = flags.trailingZeroBitCount / 8
                    index += first
                    put(pcm[offset + first])
                    offset += first + 1
                }
                while offset < end {
                    put(pcm[offset])
                    offset += 1
                }
            }
            while offset < pcm.count {
                put(pcm[offset])
                offset += 1
            }
        } else {
            for sample in samples {
                let bits = UInt16(bitPattern: sample)
                put(UInt8(truncatingIfNeeded: bits))
                put(UInt8(truncatingIfNeeded: bits >> 8))
            }
        }
        for byte in "\n705 AUDIO\n".utf8 {
            out[index] = byte
            index += 1
        }
        return index
    }

    /// The whole event for `samples`, as bytes.
    public static func encode(_ samples: [Int16], sampleRate: Int) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: maximumEncodedByteCount(sampleCount: samples.count), alignment: 8)
        defer { buffer.deallocate() }
        let count = samples.withUnsafeBufferPointer { encode($0, sampleRate: sampleRate, into: buffer) }
        return Array(buffer[0..<count])
    }

    /// The PCM bytes of an escaped payload (what follows `705-AUDIO` and its NUL, up to the newline).
    public static func unescape<Bytes: Collection<UInt8>>(_ payload: Bytes) -> [UInt8] {
        let unescaped = payload.withContiguousStorageIfAvailable { unescape(UnsafeRawBufferPointer($0)) }
        return unescaped ?? Array(payload).withUnsafeBytes { unescape($0) }
    }

    private static func unescape(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: payload.count) { bytes, count in
            count = 0
            guard let base = payload.baseAddress else { return }
            var offset = 0
            // The runs between escapes are copied whole: speech escapes about one byte in a hundred.
            while offset < payload.count {
                let end = memchr(base + offset, Int32(escape), payload.count - offset).map {
                    UnsafeRawPointer($0) - base
                }
                let runEnd = end ?? payload.count
                UnsafeMutableRawBufferPointer(
                    UnsafeMutableBufferPointer(rebasing: bytes[count..<count + runEnd - offset])
                )
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[offset..<runEnd]))
                count += runEnd - offset
                // An escape with nothing after it ends the payload.
                guard let end, end + 1 < payload.count else { return }
                bytes[count] = payload[end + 1] ^ 0x20
                count += 1
                offset = end + 2
            }
        }
    }
}
