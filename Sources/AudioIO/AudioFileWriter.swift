// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file format libsndfile writes: a container and a sample encoding.
public struct AudioFileFormat: Hashable, Sendable, CustomStringConvertible {
    public enum Container: String, Sendable, CaseIterable {
        case wav, aiff, caf, flac, ogg, au, mpeg, raw
    }
    public enum Encoding: String, Sendable, CaseIterable {
        case pcmS8, pcmU8, pcm16, pcm24, pcm32, float32, float64, ulaw, alaw, vorbis, opus, mp3
    }
    public enum Endianness: Sendable {
        case file, little, big
    }

    public var container: Container
    public var encoding: Encoding
    public var endianness: Endianness

    public init(_ container: Container, _ encoding: Encoding, endianness: Endianness = .file) {
        self.container = container
        self.encoding = encoding
        self.endianness = endianness
    }

    public var description: String { "\(container.rawValue)/\(encoding.rawValue)" }

    var libsndfileFormat: Int32 {
        let major: Int32
        switch container {
        case .wav: major = Int32(SF_FORMAT_WAV)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .caf: major = Int32(SF_FORMAT_CAF)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        case .ogg: major = Int32(SF_FORMAT_OGG)
        case .au: major = Int32(SF_FORMAT_AU)
        case .mpeg: major = Int32(SF_FORMAT_MPEG)
        case .raw: major = Int32(SF_FORMAT_RAW)
        }
        let minor: Int32
        switch encoding {
        case .pcmS8: minor = Int32(SF_FORMAT_PCM_S8)
        case .pcmU8: minor = Int32(SF_FORMAT_PCM_U8)
        case .pcm16: minor = Int32(SF_FORMAT_PCM_16)
        case .pcm24: minor = Int32(SF_FORMAT_PCM_24)
        case .pcm32: minor = Int32(SF_FORMAT_PCM_32)
        case .float32: minor = Int32(SF_FORMAT_FLOAT)
        case .float64: minor = Int32(SF_FORMAT_DOUBLE)
        case .ulaw: minor = Int32(SF_FORMAT_ULAW)
        case .alaw: minor = Int32(SF_FORMAT_ALAW)
        case .vorbis: minor = Int32(SF_FORMAT_VORBIS)
        case .opus: minor = Int32(SF_FORMAT_OPUS)
        case .mp3: minor = Int32(SF_FORMAT_MPEG_LAYER_III)
        }
        let endian: Int32
        switch endianness {
        case .file: endian = Int32(SF_ENDIAN_FILE)
        case .little: endian = Int32(SF_ENDIAN_LITTLE)
        case .big: endian = Int32(SF_ENDIAN_BIG)
        }
        return major | minor | endian
    }
}

/// Writes an audio file through libsndfile so that it appears whole or not at all.
///
/// Frames go to a file in `path`'s folder that has no name yet, or a hidden one where the file system refuses
/// unnamed files (`PendingFile`); `commit()` closes it and puts it in place. A writer released without `commit()`
/// (an error, a cancelled render) leaves nothing and whatever was at `path` untouched. The path `-` is standard
/// output, for a format that needs no seeking back (`.raw`): frames go out as they are written. Owns the `SNDFILE*` and closes it in `deinit`.
///
/// WAV and AIFF keep their sizes in 32 bits. A WAV that would pass 4 GB becomes RF64 (EBU Tech 3306, 64-bit
/// sizes) as it does; an AIFF stops with `AudioIOError.tooLargeForContainer` instead of wrapping its sizes round.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out.wav", format: .init(.wav, .float32), sampleRate: 22050)
/// try writer.write(samples)
/// try writer.commit()
/// ```
public final class AudioFileWriter {
    public let path: String
    /// Where the frames go until `commit()`; `nil` for standard output.
    private let file: PendingFile?
    private var handle: OpaquePointer?
    private let format: AudioFileFormat
    private let sampleRate: Int
    private let channelCount: Int
    /// The most bytes the file may hold, for a container whose sizes are 32-bit.
    private let byteLimit: Int?
    /// The file's bytes so far (header and samples), counted while `byteLimit` applies.
    private var byteCount = 0
    /// Whether a WAV grew into RF64, which has no limit.
    private var isRF64 = false
    /// Float samples converted for a 16-bit encoding, reused from write to write.
    private var shorts: [Int16] = []

    /// - Throws: `AudioIOError.unwritable` with libsndfile's message when the file cannot be created.
    public convenience init(
        path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int = 1
    ) throws(AudioIOError) {
        try self.init(
            path: path, format: format, sampleRate: sampleRate, channelCount: channelCount,
            byteLimit: format.container.byteLimit)
    }

    /// `byteLimit` is the container's own; the tests give a smaller one to reach it without writing 4 GB.
    init(path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int, byteLimit: Int?)
        throws(AudioIOError)
    {
        self.path = path
        self.format = format
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        var info = SF_INFO()
        // A rate or channel count past 32 bits comes from a hand-edited pack (an export): libsndfile refuses it
        // like any other it cannot write, rather than the conversion trapping.
        info.samplerate = Int32(exactly: sampleRate) ?? -1
        info.channels = Int32(exactly: channelCount) ?? 0
        info.format = format.libsndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw .unwritable(path: path, reason: "libsndfile cannot write \(format) at \(sampleRate) Hz")
        }
        if path == "-" {
            file = nil
            self.byteLimit = nil
            handle = sf_open_fd(STDOUT_FILENO, Int32(SFM_WRITE), &info, Int32(SF_FALSE))
        } else {
            let file: PendingFile
            // 0666 less the umask, as libsndfile's own sf_open made it.
            do { file = try PendingFile(path: path, mode: 0o666) } catch {
                throw .unwritable(path: path, reason: error.reason)
            }
            self.file = file
            self.byteLimit = byteLimit
            // The descriptor stays the `PendingFile`'s, which links it into place after libsndfile is done.
            handle = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, Int32(SF_FALSE))
        }
        guard let handle else { throw .unwritable(path: path, reason: libsndfileMessage(nil)) }
        // No PEAK chunk: it would make identical renders differ by nothing but its timestamp.
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        // A sample past full scale saturates in an integer encoding instead of wrapping round to the other sign.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if self.byteLimit != nil, let file {
            // The header, which libsndfile writes when it opens the file.
            var status = stat()
            guard fstat(file.descriptor, &status) == 0 else {
                throw .unwritable(path: path, reason: String(cString: strerror(errno)))
            }
            byteCount = Int(status.st_size)
        }
    }

    /// Whether the file is written under a hidden name beside `path`, which SIGKILL would leave behind (a file
    /// system that refuses unnamed files); `false` for standard output.
    public var hasHiddenName: Bool { file?.hasHiddenName ?? false }

    // The `PendingFile`, released after this, removes what it holds.
    deinit { if let handle { sf_close(handle) } }

    /// Appends interleaved Float samples in -1…1. Into 16-bit PCM they are converted as every 16-bit output of the
    /// tools converts them (`PCM16`: rounded to the nearest, ±32767 at full scale), not as libsndfile does (it floors
    /// them at 32768 a unit), so a render to a 16-bit file is the bytes the module, the Wyoming server and the HTTP
    /// server send.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioIOError) {
        try makeRoom(forSamples: samples.count)
        guard format.encoding == .pcm16 else {
            try check(sf_write_float(openHandle(), samples.baseAddress, sf_count_t(samples.count)), samples.count)
            return
        }
        if shorts.count < samples.count { shorts = [Int16](repeating: 0, count: samples.count) }
        let handle = try openHandle()
        let written = shorts.withUnsafeMutableBufferPointer { buffer in
            PCM16.convert(samples, into: buffer)
            return sf_write_short(handle, buffer.baseAddress, sf_count_t(samples.count))
        }
        try check(written, samples.count)
    }

    public func write(_ samples: [Float]) throws(AudioIOError) {
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioIOError) in try write(buffer) }
    }

    /// Appends interleaved 16-bit samples.
    public func write(_ samples: [Int16]) throws(AudioIOError) {
        try makeRoom(forSamples: samples.count)
        try check(sf_write_short(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Appends interleaved 32-bit samples.
    public func write(_ samples: [Int32]) throws(AudioIOError) {
        try makeRoom(forSamples: samples.count)
        try check(sf_write_int(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Appends interleaved 64-bit float samples.
    public func write(_ samples: [Double]) throws(AudioIOError) {
        try makeRoom(forSamples: samples.count)
        try check(sf_write_double(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Finishes the file and puts it at `path`, replacing what was there.
    public func commit() throws(AudioIOError) {
        let handle = try openHandle()
        self.handle = nil
        let status = sf_close(handle)
        guard status == 0 else { throw .unwritable(path: path, reason: String(cString: sf_error_number(status))) }
        do throws(FileError) {
            if let file, format.container == .ogg { try OggSerialNumber.fix(descriptor: file.descriptor, path: path) }
            try file?.commit()
        } catch {
            throw .unwritable(path: path, reason: error.reason)
        }
    }

    /// Before `count` more samples: within a 32-bit container's limit, a WAV moved into RF64, or an error.
    private func makeRoom(forSamples count: Int) throws(AudioIOError) {
        guard let byteLimit, !isRF64, let bytesPerSample = format.encoding.bytesPerSample else { return }
        let after = byteCount + count * bytesPerSample
        if after > byteLimit {
            guard format.container == .wav else {
                throw .tooLargeForContainer(path: path, container: format.container.name, byteLimit: byteLimit)
            }
            try moveIntoRF64()
            return
        }
        byteCount = after
    }

    /// Closes the WAV written so far, whole and under its limit, and copies its samples byte for byte into a new
    /// RF64 file in the same place (`PendingFile.startOver()`), where the rest go. A WAV stays plain until then,
    /// rather than RF64 from the start with libsndfile's `SFC_RF64_AUTO_DOWNGRADE`: that writes every WAV as
    /// WAVE_FORMAT_EXTENSIBLE, which Asterisk's and Python's readers refuse. The copy needs as much free space again
    /// for a moment.
    private func moveIntoRF64() throws(AudioIOError) {
        guard let file else { throw .unwritable(path: path, reason: "an RF64 file cannot be written to a pipe") }
        let wav = try openHandle()
        handle = nil
        let closed = sf_close(wav)
        guard closed == 0 else { throw .unwritable(path: path, reason: String(cString: sf_error_number(closed))) }
        let wavDescriptor: Int32
        do { wavDescriptor = try file.startOver() } catch { throw .unwritable(path: path, reason: error.reason) }
        defer { close(wavDescriptor) }
        // libsndfile reads from where the descriptor stands.
        lseek(wavDescriptor, 0, SEEK_SET)
        var wavInfo = SF_INFO()
        guard let reader = sf_open_fd(wavDescriptor, Int32(SFM_READ), &wavInfo, Int32(SF_FALSE)) else {
            throw .unwritable(path: path, reason: libsndfileMessage(nil))
        }
        defer { sf_close(reader) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_RF64) | (format.libsndfileFormat & Int32(SF_FORMAT_SUBMASK))
        guard let rf64 = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) else {
            throw .unwritable(path: path, reason: libsndfileMessage(nil))
        }
        handle = rf64
        // No SFC_SET_ADD_PEAK_CHUNK here: libsndfile 1.2.0's RF64 writer has no PEAK chunk, and asking it to
        // leave one out adds one.
        sf_command(rf64, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // Both keep little-endian samples in the same encoding, so the bytes move unchanged.
        let bytesPerFrame = (format.encoding.bytesPerSample ?? 1) * channelCount
        var buffer = [UInt8](repeating: 0, count: bytesPerFrame * 262_144)
        var copied: sf_count_t = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { sf_read_raw(reader, $0.baseAddress, sf_count_t($0.count)) }
            if read <= 0 { break }
            let written = buffer.withUnsafeBytes { sf_write_raw(rf64, $0.baseAddress, read) }
            guard written == read else { throw .unwritable(path: path, reason: libsndfileMessage(rf64)) }
            copied += read
        }
        guard copied == wavInfo.frames * sf_count_t(bytesPerFrame) else {
            throw .unwritable(
                path: path, reason: "moving the first 4 GB into RF64 copied \(copied) bytes of \(wavInfo.frames) frames"
            )
        }
        isRF64 = true
    }

    private func openHandle() throws(AudioIOError) -> OpaquePointer {
        guard let handle else { throw .unwritable(path: path, reason: "the file was already committed") }
        return handle
    }

    private func check(_ written: sf_count_t, _ expected: Int) throws(AudioIOError) {
        guard Int(written) == expected else {
            throw .unwritable(path: path, reason: libsndfileMessage(handle))
        }
    }
}

extension AudioFileFormat.Container {
    /// The most bytes a file may hold where the container keeps its sizes in 32 bits (RIFF's and AIFF's FORM size
    /// count all but the first 8 bytes, so a pad byte after the samples still fits); `nil` where it does not:
    /// CAF's sizes are 64-bit, FLAC, Ogg and MPEG are streams, and libsndfile writes an AU of over 2 GB with the
    /// size AU keeps for "unknown" (0xFFFFFFFF), which readers take to mean "to the end of the file".
    var byteLimit: Int? {
        switch self {
        case .wav, .aiff: return Int(UInt32.max)
        case .caf, .flac, .ogg, .au, .mpeg, .raw: return nil
        }
    }

    /// The container's name in messages.
    var name: String {
        switch self {
        case .wav: return "WAV"
        case .aiff: return "AIFF"
        case .caf: return "CAF"
        case .flac: return "FLAC"
        case .ogg: return "Ogg"
        case .au: return "AU"
        case .mpeg: return "MPEG"
        case .raw: return "raw"
        }
    }
}

extension AudioFileFormat.Encoding {
    /// Bytes a sample takes; `nil` for a compressed codec.
    var bytesPerSample: Int? {
        switch self {
        case .pcmS8, .pcmU8, .ulaw, .alaw: return 1
        case .pcm16: return 2
        case .pcm24: return 3
        case .pcm32, .float32: return 4
        case .float64: return 8
        case .vorbis, .opus, .mp3: return nil
        }
    }
}
