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

    /// The whole event for `samples`, header, escaped PCM and the closing line.
    ///
    /// ```swift
    /// AudioBlock.encode([0, 10], sampleRate: 22_050)
    /// // "705-bits=16\n705-num_channels=1\n705-sample_rate=22050\n705-num_samples=2\n705-big_endian=0\n"
    /// // "705-AUDIO\0" + [0x00, 0x00, 0x7D, 0x2A, 0x00] + "\n705 AUDIO\n"
    /// ```
    public static func encode(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out += Array(
            """
            705-bits=16
            705-num_channels=1
            705-sample_rate=\(sampleRate)
            705-num_samples=\(samples.count)
            705-big_endian=0
            705-AUDIO
            """.utf8)
        out.append(0)
        for sample in samples {
            let bits = UInt16(bitPattern: sample)
            appendEscaped(UInt8(truncatingIfNeeded: bits), to: &out)
            appendEscaped(UInt8(truncatingIfNeeded: bits >> 8), to: &out)
        }
        out += Array("\n705 AUDIO\n".utf8)
    }

    public static func encode(_ samples: [Int16], sampleRate: Int) -> [UInt8] {
        var out: [UInt8] = []
        samples.withUnsafeBufferPointer { encode($0, sampleRate: sampleRate, into: &out) }
        return out
    }

    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        if byte == 0x0A || byte == escape {
            out.append(escape)
            out.append(byte ^ 0x20)
        } else {
            out.append(byte)
        }
    }

    /// The PCM bytes of an escaped payload (what follows `705-AUDIO` and its NUL, up to the newline).
    public static func unescape<Bytes: Collection<UInt8>>(_ payload: Bytes) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count)
        var isEscaped = false
        for byte in payload {
            if isEscaped {
                bytes.append(byte ^ 0x20)
                isEscaped = false
            } else if byte == escape {
                isEscaped = true
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// Float samples as signed 16-bit, times `gain`, clipped to the 16-bit range and rounded to nearest.
    public static func convert(
        _ samples: UnsafeBufferPointer<Float>, gain: Float, into out: UnsafeMutableBufferPointer<Int16>
    ) {
        precondition(out.count >= samples.count, "the 16-bit buffer is smaller than the float one")
        for index in samples.indices {
            let scaled = (samples[index] * gain * 32_767).rounded()
            out[index] = Int16(min(32_767, max(-32_768, scaled)))
        }
    }
}
