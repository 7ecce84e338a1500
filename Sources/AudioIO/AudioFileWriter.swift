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
/// Frames go to a hidden temporary file beside `path`; `commit()` closes it and renames it into place.
/// A writer released without `commit()` (an error, a cancelled render) removes the temporary file and
/// leaves whatever was at `path` untouched. The path `-` is standard output, for a format that needs no
/// seeking back (`.raw`): frames go out as they are written. Owns the `SNDFILE*` and closes it in `deinit`.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out.wav", format: .init(.wav, .float32), sampleRate: 22050)
/// try writer.write(samples)
/// try writer.commit()
/// ```
public final class AudioFileWriter {
    public let path: String
    /// Where the frames go until `commit()`; `nil` for standard output.
    private let temporaryPath: String?
    private var handle: OpaquePointer?

    /// - Throws: `AudioIOError.unwritable` with libsndfile's message when the file cannot be created.
    public init(path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int = 1) throws(AudioIOError) {
        self.path = path
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = format.libsndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw .unwritable(path: path, reason: "libsndfile cannot write \(format) at \(sampleRate) Hz")
        }
        if path == "-" {
            temporaryPath = nil
            handle = sf_open_fd(STDOUT_FILENO, Int32(SFM_WRITE), &info, Int32(SF_FALSE))
        } else {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { String(path[...$0]) } ?? ""
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let temporaryPath = "\(directory).\(name).partial-\(getpid())"
            self.temporaryPath = temporaryPath
            handle = sf_open(temporaryPath, Int32(SFM_WRITE), &info)
        }
        guard let handle else { throw .unwritable(path: path, reason: libsndfileMessage(nil)) }
        // No PEAK chunk: it would make identical renders differ by nothing but its timestamp.
        sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        // A sample past full scale saturates in an integer encoding instead of wrapping round to the other sign.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit {
        if let handle {
            sf_close(handle)
            if let temporaryPath { unlink(temporaryPath) }
        }
    }

    /// Appends interleaved Float samples in -1…1.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioIOError) {
        try check(sf_write_float(openHandle(), samples.baseAddress, sf_count_t(samples.count)), samples.count)
    }

    public func write(_ samples: [Float]) throws(AudioIOError) {
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioIOError) in try write(buffer) }
    }

    /// Appends interleaved 16-bit samples.
    public func write(_ samples: [Int16]) throws(AudioIOError) {
        try check(sf_write_short(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Appends interleaved 32-bit samples.
    public func write(_ samples: [Int32]) throws(AudioIOError) {
        try check(sf_write_int(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Appends interleaved 64-bit float samples.
    public func write(_ samples: [Double]) throws(AudioIOError) {
        try check(sf_write_double(openHandle(), samples, sf_count_t(samples.count)), samples.count)
    }

    /// Finishes the file and moves it to `path`, replacing what was there.
    public func commit() throws(AudioIOError) {
        let handle = try openHandle()
        self.handle = nil
        let status = sf_close(handle)
        guard let temporaryPath else {
            guard status == 0 else { throw .unwritable(path: path, reason: String(cString: sf_error_number(status))) }
            return
        }
        guard status == 0 else {
            unlink(temporaryPath)
            throw .unwritable(path: path, reason: String(cString: sf_error_number(status)))
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw .unwritable(path: path, reason: reason)
        }
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
