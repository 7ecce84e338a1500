// SPDX-License-Identifier: GPL-3.0-or-later
/// How a clip's original samples are stored: the narrowest native type that holds the source losslessly.
public enum SampleEncoding: String, Sendable, CaseIterable {
    /// 16-bit signed integers, little-endian; 8-bit, 16-bit, µ-law, A-law and ADPCM sources.
    case int16 = "s16le"
    /// 32-bit signed integers, little-endian, left-justified; 24-bit and 32-bit sources.
    case int32 = "s32le"
    /// 32-bit floats, little-endian; float sources and lossy codecs (Vorbis, Opus, MP3) as decoded.
    case float32 = "f32le"
    /// 64-bit floats, little-endian; double sources.
    case float64 = "f64le"

    /// Bytes one sample takes.
    public var byteCount: Int {
        switch self {
        case .int16: return 2
        case .int32, .float32: return 4
        case .float64: return 8
        }
    }
}

/// A clip's samples exactly as the source file held them: interleaved, at the source rate and channel count.
public struct OriginalPCM: Equatable, Sendable {
    public var encoding: SampleEncoding
    public var channelCount: Int
    /// Interleaved little-endian samples.
    public var bytes: [UInt8]

    public init(encoding: SampleEncoding, channelCount: Int, bytes: [UInt8]) {
        self.encoding = encoding
        self.channelCount = channelCount
        self.bytes = bytes
    }

    /// Frames held: bytes ÷ (sample size × channels).
    public var frameCount: Int { bytes.count / (encoding.byteCount * channelCount) }

    /// The samples as 16-bit integers; `nil` unless the encoding is `.int16`.
    public var int16Samples: [Int16]? {
        guard encoding == .int16 else { return nil }
        return PCM16.samples(littleEndian: bytes)
    }
}
