import SpeechCore

/// A source file read once and made ready for rendering: the lossless original and the render-ready PCM.
public struct PreparedClip: Sendable {
    public var source: SourceFormat
    public var original: OriginalPCM
    /// Mono Float32 at `RenderFormat.sampleRate`; its length follows `SampleRateConversion.convertedFrameCount`.
    public var renderReady: [Float]
    public var converter: Converter

    /// Extensions of the audio files clips are read from (what libsndfile reads), lower case: a folder import
    /// takes the files whose names end in one.
    public static let fileExtensions: Set<String> = [
        "aiff", "aif", "aifc", "wav", "flac", "ogg", "oga", "opus", "caf", "w64", "rf64", "au", "snd", "mp3",
    ]

    /// Reads the file at `path`, keeps its samples losslessly, averages its channels and converts it to 22050 Hz.
    ///
    /// ```swift
    /// let clip = try PreparedClip(path: "Hello.aiff")   // 24 kHz 16-bit → 22050 Hz Float32
    /// ```
    /// - Throws: `AudioIOError` naming the file: unreadable, empty, unsupported channel count or sample rate,
    ///   too long, truncated, a sample that is NaN or infinite, or a failed conversion.
    public init(path: String, converter: Converter = .best) throws(AudioIOError) {
        try self.init(reader: SoundFileReader(path: path), converter: converter)
    }

    /// Reads `bytes` as the contents of an audio file, as `init(path:converter:)` reads a file; `name` stands for
    /// its path in errors. For the fuzzer, which has no file.
    ///
    /// - Throws: what `init(path:converter:)` throws, naming `name`.
    public init(bytes: [UInt8], name: String, converter: Converter = .best) throws(AudioIOError) {
        try self.init(reader: SoundFileReader(bytes: bytes, name: name), converter: converter)
    }

    private init(reader: SoundFileReader, converter: Converter) throws(AudioIOError) {
        source = reader.format
        original = try reader.readOriginal()
        let mono = try reader.readMono()
        // One NaN would spread through the sinc filter to every frame near it, and play as full-scale noise.
        if let frame = FiniteSamples.firstNonFinite(in: mono) {
            throw .nonFiniteSample(path: reader.path, frame: frame)
        }
        renderReady = try SampleRateConversion.convert(mono, from: reader.format.sampleRate, converter: converter)
        self.converter = converter
    }

    /// The length `renderReady` would have for the file at `path`, read from its header without decoding it.
    ///
    /// - Throws: `AudioIOError` naming the file, as `init(path:converter:)` would for its header.
    public static func renderReadyFrameCount(path: String) throws(AudioIOError) -> Int {
        let format = try SoundFileReader(path: path).format
        return SampleRateConversion.convertedFrameCount(
            format.frameCount, from: format.sampleRate, to: RenderFormat.sampleRate)
    }
}
