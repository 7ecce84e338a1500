// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile
import SpeechCore

/// A sample encoding a render can be written in (`render --encoding`).
public enum OutputEncoding: String, Sendable, CaseIterable {
    /// 32-bit float, the renderer's own samples.
    case float
    /// 16-bit signed PCM ("signed linear").
    case s16
    /// 24-bit signed PCM.
    case s24
    /// G.711 µ-law, 8 bits a sample: North American and Japanese phone systems.
    case ulaw
    /// G.711 A-law, 8 bits a sample: European phone systems.
    case alaw

    public var bytesPerSample: Int {
        switch self {
        case .float: return 4
        case .s16: return 2
        case .s24: return 3
        case .ulaw, .alaw: return 1
        }
    }

    var fileEncoding: AudioFileFormat.Encoding {
        switch self {
        case .float: return .float32
        case .s16: return .pcm16
        case .s24: return .pcm24
        case .ulaw: return .ulaw
        case .alaw: return .alaw
        }
    }
}

/// What a render writes: a file format at a sample rate, picked by the output's extension and the options.
///
/// ```swift
/// let format = try RenderOutputFormat(path: "prompt.sln", sampleRate: nil, encoding: nil)   // raw s16 at 8000 Hz
/// ```
public struct RenderOutputFormat: Equatable, Sendable, CustomStringConvertible {
    public var file: AudioFileFormat
    public var sampleRate: Int
    /// The sample encoding, or `nil` for a compressed codec (Vorbis, Opus, MP3).
    public var encoding: OutputEncoding?

    /// The format for `path` (`nil` or `-`: raw little-endian on standard output) with the `--sample-rate` and
    /// `--encoding` a person gave, if any.
    ///
    /// - Throws: `AudioIOError.unknownOutputExtension`, `.unsupportedOutputFormat` (this machine's libsndfile
    ///   cannot write it), `.encodingNotInContainer`, `.conflictingOutputOption`, `.unsupportedOutputRate`.
    public init(path: String?, sampleRate: Int?, encoding: OutputEncoding?) throws(AudioIOError) {
        if let sampleRate, !AudioLimits.sampleRates.contains(sampleRate) {
            throw .unsupportedOutputRate(sampleRate: sampleRate)
        }
        guard let path, path != "-" else {
            let encoding = encoding ?? .float
            self.init(
                file: AudioFileFormat(.raw, encoding.fileEncoding, endianness: .little),
                sampleRate: sampleRate ?? RenderFormat.sampleRate, encoding: encoding)
            return
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
            let container = OutputContainer.byExtension[name[name.index(after: dot)...].lowercased()]
        else { throw .unknownOutputExtension(path: path) }
        guard container.isWritable else { throw .unsupportedOutputFormat(path: path, extension: container.name) }

        if let fixedRate = container.fixedRate, let sampleRate, sampleRate != fixedRate {
            throw .conflictingOutputOption(
                path: path, option: .sampleRate(sampleRate), picked: "\(container.name) is \(fixedRate) Hz")
        }
        var picked = container.defaultEncoding
        if let encoding {
            if container.encodings.count == 1, let only = container.encodings.first, only != encoding {
                throw .conflictingOutputOption(
                    path: path, option: .encoding(encoding),
                    picked: "\(container.name) is \(only.rawValue)")
            }
            guard container.encodings.contains(encoding) else {
                throw .encodingNotInContainer(
                    path: path, encoding: encoding.rawValue, accepted: container.encodings.map(\.rawValue))
            }
            picked = encoding
        }
        self.init(
            file: AudioFileFormat(
                container.container, picked?.fileEncoding ?? container.codec,
                endianness: container.container == .raw ? .little : .file),
            sampleRate: container.fixedRate ?? sampleRate ?? container.defaultRate ?? RenderFormat.sampleRate,
            encoding: picked)
    }

    public init(file: AudioFileFormat, sampleRate: Int, encoding: OutputEncoding?) {
        self.file = file
        self.sampleRate = sampleRate
        self.encoding = encoding
    }

    /// Bytes one frame takes in the output, what a marker's `byteOffset` counts: the encoding's sample size, and
    /// Float32's 4 for a compressed codec, which has no fixed size (its decoded samples are what is counted).
    public var bytesPerFrame: Int { encoding?.bytesPerSample ?? OutputEncoding.float.bytesPerSample }

    public var description: String { "\(file) at \(sampleRate) Hz" }

    /// The extensions this machine's libsndfile writes, in the order `--help` lists them.
    public static var acceptedExtensions: [String] {
        OutputContainer.all.filter(\.isWritable).flatMap(\.extensions).map { ".\($0)" }
    }
}

/// One row of the extension table: a container, the encodings it holds, and any rate or encoding it fixes.
struct OutputContainer {
    var extensions: [String]
    var container: AudioFileFormat.Container
    /// The encodings `--encoding` may pick; empty for a compressed codec.
    var encodings: [OutputEncoding]
    var defaultEncoding: OutputEncoding?
    /// The codec of a compressed container.
    var codec: AudioFileFormat.Encoding = .float32
    /// Asterisk's raw prompt formats say their rate in their name.
    var fixedRate: Int?
    /// The rate when none is asked for, where 22050 Hz is not one the codec takes.
    var defaultRate: Int?

    var name: String { ".\(extensions[0])" }

    /// Whether this machine's libsndfile writes the format (MP3 and Opus depend on how it was built).
    var isWritable: Bool {
        var info = SF_INFO()
        info.samplerate = Int32(fixedRate ?? defaultRate ?? RenderFormat.sampleRate)
        info.channels = 1
        info.format = AudioFileFormat(container, defaultEncoding?.fileEncoding ?? codec).libsndfileFormat
        return sf_format_check(&info) != 0
    }

    static let linear: [OutputEncoding] = [.float, .s16, .s24, .ulaw, .alaw]

    static let all: [OutputContainer] =
        [
            OutputContainer(extensions: ["wav"], container: .wav, encodings: linear, defaultEncoding: .float),
            OutputContainer(
                extensions: ["aiff", "aif", "aifc"], container: .aiff, encodings: linear, defaultEncoding: .float),
            OutputContainer(extensions: ["caf"], container: .caf, encodings: linear, defaultEncoding: .float),
            OutputContainer(extensions: ["flac"], container: .flac, encodings: [.s16, .s24], defaultEncoding: .s24),
            OutputContainer(extensions: ["ogg"], container: .ogg, encodings: [], codec: .vorbis),
            // libsndfile's Opus encoder takes 8, 12, 16, 24 or 48 kHz only; 48 kHz is Opus's own rate.
            OutputContainer(extensions: ["opus"], container: .ogg, encodings: [], codec: .opus, defaultRate: 48_000),
            OutputContainer(extensions: ["mp3"], container: .mpeg, encodings: [], codec: .mp3),
            OutputContainer(extensions: ["au"], container: .au, encodings: linear, defaultEncoding: .float),
            OutputContainer(extensions: ["raw", "f32"], container: .raw, encodings: linear, defaultEncoding: .float),
            // Asterisk's prompt formats: raw, their rate and encoding in the name (Asterisk's format_pcm, format_sln).
            OutputContainer(
                extensions: ["sln"], container: .raw, encodings: [.s16], defaultEncoding: .s16, fixedRate: 8_000),
        ]
        + [12, 16, 24, 32, 44, 48, 96, 192].map { kilohertz in
            OutputContainer(
                extensions: ["sln\(kilohertz)"], container: .raw, encodings: [.s16], defaultEncoding: .s16,
                fixedRate: kilohertz == 44 ? 44_100 : kilohertz * 1_000)
        }
        + [
            OutputContainer(
                extensions: ["ulaw"], container: .raw, encodings: [.ulaw], defaultEncoding: .ulaw, fixedRate: 8_000),
            OutputContainer(
                extensions: ["alaw"], container: .raw, encodings: [.alaw], defaultEncoding: .alaw, fixedRate: 8_000),
        ]

    static let byExtension: [String: OutputContainer] = Dictionary(
        uniqueKeysWithValues: all.flatMap { container in container.extensions.map { ($0, container) } })
}
