// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile

#if _endian(big)
    #error("AudioIO stores samples little-endian by copying native memory; a big-endian host needs byte swaps")
#endif

/// What a source file is: its container and sample format, rate, channels and length.
public struct SourceFormat: Equatable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int
    /// libsndfile's name of the container, e.g. `AIFF (Apple/SGI)`.
    public var container: String
    /// libsndfile's name of the sample encoding, e.g. `Signed 16 bit PCM`.
    public var sampleFormat: String

    public init(sampleRate: Int, channelCount: Int, frameCount: Int, container: String, sampleFormat: String) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.container = container
        self.sampleFormat = sampleFormat
    }

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    public var description: String {
        "\(container), \(sampleFormat), \(sampleRate) Hz, \(channelCount) ch, \(frameCount) frames"
    }
}

/// An open audio file being read through libsndfile; owns the `SNDFILE*` and closes it in `deinit`.
final class SoundFileReader {
    let path: String
    let format: SourceFormat
    let subtype: Int32
    private let handle: OpaquePointer
    /// The bytes a reader made from memory reads; libsndfile holds only an unretained pointer to them.
    private let memory: MemoryFile?

    convenience init(path: String) throws(AudioIOError) {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw .unreadable(path: path, reason: libsndfileMessage(nil))
        }
        try self.init(handle: handle, info: info, path: path, memory: nil)
    }

    /// Reads `bytes` as the contents of a file; `name` stands for its path in errors.
    convenience init(bytes: [UInt8], name: String) throws(AudioIOError) {
        let memory = MemoryFile(bytes)
        var io = MemoryFile.virtualIO
        var info = SF_INFO()
        guard let handle = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(memory).toOpaque())
        else {
            throw .unreadable(path: name, reason: libsndfileMessage(nil))
        }
        try self.init(handle: handle, info: info, path: name, memory: memory)
    }

    private init(handle: OpaquePointer, info: SF_INFO, path: String, memory: MemoryFile?) throws(AudioIOError) {
        self.handle = handle
        self.memory = memory
        self.path = path
        self.subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        self.format = SourceFormat(
            sampleRate: Int(info.samplerate), channelCount: Int(info.channels), frameCount: Int(info.frames),
            container: Self.formatName(info.format & Int32(SF_FORMAT_TYPEMASK)),
            sampleFormat: Self.formatName(subtype))
        guard format.frameCount > 0 else { throw .empty(path: path) }
        guard (1...AudioLimits.maximumChannelCount).contains(format.channelCount) else {
            throw .unsupportedChannelCount(path: path, channelCount: format.channelCount)
        }
        guard AudioLimits.sampleRates.contains(format.sampleRate) else {
            throw .unsupportedSampleRate(path: path, sampleRate: format.sampleRate)
        }
        guard format.frameCount / format.sampleRate <= AudioLimits.maximumSeconds else {
            throw .tooLong(path: path, seconds: format.durationSeconds)
        }
    }

    deinit { sf_close(handle) }

    /// The narrowest encoding that stores this file's samples without loss.
    var losslessEncoding: SampleEncoding {
        switch subtype {
        case Int32(SF_FORMAT_FLOAT), Int32(SF_FORMAT_VORBIS), Int32(SF_FORMAT_OPUS),
            Int32(SF_FORMAT_MPEG_LAYER_I), Int32(SF_FORMAT_MPEG_LAYER_II), Int32(SF_FORMAT_MPEG_LAYER_III):
            return .float32
        case Int32(SF_FORMAT_DOUBLE):
            return .float64
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16), Int32(SF_FORMAT_ULAW),
            Int32(SF_FORMAT_ALAW), Int32(SF_FORMAT_IMA_ADPCM), Int32(SF_FORMAT_MS_ADPCM), Int32(SF_FORMAT_GSM610),
            Int32(SF_FORMAT_VOX_ADPCM), Int32(SF_FORMAT_G721_32), Int32(SF_FORMAT_G723_24),
            Int32(SF_FORMAT_G723_40), Int32(SF_FORMAT_DWVW_12), Int32(SF_FORMAT_DWVW_16),
            Int32(SF_FORMAT_DPCM_8), Int32(SF_FORMAT_DPCM_16), Int32(SF_FORMAT_ALAC_16), Int32(SF_FORMAT_NMS_ADPCM_16),
            Int32(SF_FORMAT_NMS_ADPCM_24), Int32(SF_FORMAT_NMS_ADPCM_32):
            return .int16
        default:
            return .int32
        }
    }

    /// Reads every frame in the file's own sample type, interleaved.
    func readOriginal() throws(AudioIOError) -> OriginalPCM {
        let encoding = losslessEncoding
        let bytes: [UInt8]
        switch encoding {
        case .int16: bytes = try readInterleaved(Int16(0)) { sf_readf_short($0, $1, $2) }.withUnsafeBytes { Array($0) }
        case .int32: bytes = try readInterleaved(Int32(0)) { sf_readf_int($0, $1, $2) }.withUnsafeBytes { Array($0) }
        case .float32:
            bytes = try readInterleaved(Float(0)) { sf_readf_float($0, $1, $2) }.withUnsafeBytes { Array($0) }
        case .float64:
            bytes = try readInterleaved(Double(0)) { sf_readf_double($0, $1, $2) }.withUnsafeBytes { Array($0) }
        }
        return OriginalPCM(encoding: encoding, channelCount: format.channelCount, bytes: bytes)
    }

    /// Reads every frame as Float in -1…1 and averages the channels to mono.
    func readMono() throws(AudioIOError) -> [Float] {
        let channelCount = format.channelCount
        let interleaved = try readInterleaved(Float(0)) { sf_readf_float($0, $1, $2) }
        guard channelCount > 1 else { return interleaved }
        let scale = 1 / Float(channelCount)
        return (0..<format.frameCount).map { frame in
            var sum: Float = 0
            for channel in 0..<channelCount { sum += interleaved[frame * channelCount + channel] }
            return sum * scale
        }
    }

    /// Samples per read: memory grows with the frames a file really holds, not with the frame count its header
    /// claims (42 bytes of FLAC can claim an hour of 64 channels, which would be allocated before any read).
    private static let blockSamples = 65_536

    /// Every frame of the file, interleaved, read a block at a time with `read` (one of `sf_readf_*`).
    ///
    /// - Throws: `.unreadable` when libsndfile reports an error, `.truncated` when fewer frames come than the
    ///   header says.
    private func readInterleaved<Sample>(
        _ zero: Sample, _ read: (OpaquePointer, UnsafeMutablePointer<Sample>, sf_count_t) -> sf_count_t
    ) throws(AudioIOError) -> [Sample] {
        try rewind()
        let channelCount = format.channelCount
        var samples: [Sample] = []
        var block = [Sample](repeating: zero, count: max(channelCount, Self.blockSamples / channelCount * channelCount))
        var framesRead = 0
        while framesRead < format.frameCount {
            let wanted = min(block.count / channelCount, format.frameCount - framesRead)
            let got = Int(block.withUnsafeMutableBufferPointer { read(handle, $0.baseAddress!, sf_count_t(wanted)) })
            guard got > 0 else { break }
            samples += block[..<(got * channelCount)]
            framesRead += got
        }
        try checkComplete(framesRead)
        return samples
    }

    private func rewind() throws(AudioIOError) {
        if sf_seek(handle, 0, SEEK_SET) < 0 {
            throw .unreadable(path: path, reason: libsndfileMessage(handle))
        }
    }

    private func checkComplete(_ framesRead: Int) throws(AudioIOError) {
        if sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
            throw .unreadable(path: path, reason: libsndfileMessage(handle))
        }
        guard framesRead == format.frameCount else {
            throw .truncated(path: path, expectedFrames: format.frameCount, readFrames: framesRead)
        }
    }

    static func formatName(_ format: Int32) -> String {
        var info = SF_FORMAT_INFO()
        info.format = format
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        else { return "format 0x\(String(format, radix: 16))" }
        return String(cString: name)
    }
}

/// libsndfile's message for the last error, without its closing period, to sit inside our own sentence.
func libsndfileMessage(_ handle: OpaquePointer?) -> String {
    var message = String(cString: sf_strerror(handle))
    while message.last == "." || message.last == " " { message.removeLast() }
    return message
}

/// A file's bytes in memory and a read position: what libsndfile's virtual I/O reads instead of a file.
private final class MemoryFile {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private static func from(_ userData: UnsafeMutableRawPointer?) -> MemoryFile {
        Unmanaged<MemoryFile>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// libsndfile's callbacks; C function pointers capture nothing, so each finds its file through `userData`.
    static let virtualIO = SF_VIRTUAL_IO(
        get_filelen: { userData in sf_count_t(from(userData).bytes.count) },
        seek: { offset, whence, userData in
            let file = from(userData)
            let base: Int
            switch whence {
            case SEEK_CUR: base = file.position
            case SEEK_END: base = file.bytes.count
            default: base = 0
            }
            let (target, overflow) = base.addingReportingOverflow(Int(offset))
            guard !overflow, (0...file.bytes.count).contains(target) else { return -1 }
            file.position = target
            return sf_count_t(target)
        },
        read: { destination, count, userData in
            let file = from(userData)
            let length = min(Int(max(count, 0)), file.bytes.count - file.position)
            file.bytes.withUnsafeBytes { source in
                destination!.copyMemory(from: source.baseAddress! + file.position, byteCount: length)
            }
            file.position += length
            return sf_count_t(length)
        },
        write: { _, _, _ in 0 },
        tell: { userData in sf_count_t(from(userData).position) })
}
