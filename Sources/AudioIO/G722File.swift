// SPDX-License-Identifier: GPL-3.0-or-later
import CSpanDSP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `.g722` file: raw G.722 at 64 kbit/s with no header, as Asterisk stores its wideband prompts. libsndfile reads no
/// G.722, so spandsp's decoder, made for telephony, turns it into 16 kHz 16-bit samples: each byte is one codeword of
/// the two sub-bands and decodes to two samples, so a file of any length is whole.
enum G722File {
    static let fileExtension = "g722"
    static let sampleRate = 16_000
    static let bitRate = 64_000

    /// Whether the file at `path` is read as G.722 (its name ends in `.g722`, in any case).
    static func isG722(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return path[path.index(after: dot)...].lowercased() == fileExtension
    }

    /// The samples the file's bytes decode to, and so its frames at 16 kHz.
    static func frameCount(byteCount: Int) -> Int { byteCount * 2 }

    /// What `path` holds: its format and its samples as the decoder gives them.
    ///
    /// - Throws: `AudioIOError.unreadable` when the file cannot be read, `.empty` for no bytes, `.tooLong` past a
    ///   clip's length, `.g722DecoderUnavailable` when libspandsp cannot be loaded.
    static func read(path: String) throws(AudioIOError) -> (format: SourceFormat, samples: [Int16]) {
        let format = try self.format(path: path)
        let bytes: [UInt8]
        do {
            bytes = try readFile(atPath: path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        guard !bytes.isEmpty else { throw .empty(path: path) }
        guard let decoder = Self.decoder.functions else {
            throw .g722DecoderUnavailable(path: path, reason: Self.decoder.failure)
        }
        guard let state = decoder.pointee.g722_decode_init(nil, Int32(bitRate), 0) else {
            throw .g722DecoderUnavailable(path: path, reason: "g722_decode_init failed")
        }
        defer { _ = decoder.pointee.g722_decode_free(state) }
        var samples = [Int16](repeating: 0, count: frameCount(byteCount: bytes.count))
        let decoded = samples.withUnsafeMutableBufferPointer { output in
            bytes.withUnsafeBufferPointer { input in
                decoder.pointee.g722_decode(state, output.baseAddress!, input.baseAddress!, Int32(input.count))
            }
        }
        // The decoder writes two samples a byte at 64 kbit/s; fewer would mean a library that decodes otherwise.
        guard Int(decoded) == samples.count else {
            throw .g722DecoderUnavailable(
                path: path, reason: "g722_decode gave \(decoded) samples for \(bytes.count) bytes, not two a byte")
        }
        var whole = format
        whole.frameCount = samples.count
        return (whole, samples)
    }

    /// The format of the file at `path`, from its size alone.
    ///
    /// - Throws: `AudioIOError.unreadable` when the file cannot be opened, `.empty` for no bytes, `.tooLong` past a
    ///   clip's length.
    static func format(path: String) throws(AudioIOError) -> SourceFormat {
        let file: ReadableFile
        do {
            file = try ReadableFile(path: path)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        var status = stat()
        guard fstat(file.descriptor.rawValue, &status) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard (status.st_mode & S_IFMT) != S_IFDIR else {
            throw .unreadable(path: path, reason: "it is a folder, not a file")
        }
        let byteCount = Int(status.st_size)
        guard byteCount > 0 else { throw .empty(path: path) }
        let format = SourceFormat(
            sampleRate: sampleRate, channelCount: 1, frameCount: frameCount(byteCount: byteCount),
            container: "G.722 (raw, 64 kbit/s)", sampleFormat: "Signed 16 bit PCM")
        guard format.frameCount / sampleRate <= AudioLimits.maximumSeconds else {
            throw .tooLong(path: path, seconds: format.durationSeconds)
        }
        return format
    }

    /// spandsp's decoder, loaded once, when the first `.g722` file is read (its functions never change after).
    nonisolated(unsafe) private static let decoder: (functions: UnsafePointer<concat_synth_spandsp>?, failure: String) =
        {
            var error = [CChar](repeating: 0, count: 512)
            let functions = concat_synth_spandsp_load(&error)
            return (functions, error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }()
}
