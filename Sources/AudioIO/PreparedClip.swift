// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile
import SpeechCore

/// A source file read once and made ready for rendering: the lossless original and the render-ready PCM.
public struct PreparedClip: Sendable {
    public var source: SourceFormat
    public var original: OriginalPCM
    /// Mono Float32 at `RenderFormat.sampleRate`; its length follows `SampleRateConversion.convertedFrameCount`.
    public var renderReady: [Float]
    public var converter: Converter

    /// Extensions of the audio files clips are read from (what libsndfile reads, and Asterisk's raw `.g722`), lower
    /// case: a folder import takes the files whose names end in one.
    public static let fileExtensions: Set<String> = [
        "aiff", "aif", "aifc", "wav", "flac", "ogg", "oga", "opus", "caf", "w64", "rf64", "au", "snd", "mp3",
        G722File.fileExtension,
    ]

    /// Reads the file at `path`, keeps its samples losslessly, averages its channels and converts it to 22050 Hz.
    /// A name ending in `.g722` is read as raw G.722 at 64 kbit/s (Asterisk's wideband prompts): its samples as
    /// decoded, 16 kHz 16-bit, are what is kept.
    ///
    /// ```swift
    /// let clip = try PreparedClip(path: "Hello.aiff")   // 24 kHz 16-bit → 22050 Hz Float32
    /// ```
    /// - Throws: `AudioIOError` naming the file: unreadable, empty, unsupported channel count or sample rate,
    ///   too long, truncated, a sample that is NaN or infinite, G.722 that cannot be decoded, or a failed conversion.
    public init(path: String, converter: Converter = .best) throws(AudioIOError) {
        let recording = try Recording(path: path)
        try self.init(
            source: recording.source, original: recording.original, mono: recording.mono, converter: converter)
    }

    /// Reads `bytes` as the contents of an audio file, as `init(path:converter:)` reads a file; `name` stands for
    /// its path in errors. For the fuzzer, which has no file.
    ///
    /// - Throws: what `init(path:converter:)` throws, naming `name`.
    public init(bytes: [UInt8], name: String, converter: Converter = .best) throws(AudioIOError) {
        try self.init(reader: SoundFileReader(bytes: bytes, name: name), converter: converter)
    }

    private init(reader: SoundFileReader, converter: Converter) throws(AudioIOError) {
        let recording = try Recording(reader: reader)
        try self.init(
            source: recording.source, original: recording.original, mono: recording.mono, converter: converter)
    }

    private init(source: SourceFormat, original: OriginalPCM, mono: [Float], converter: Converter) throws(AudioIOError)
    {
        self.source = source
        self.original = original
        renderReady = try SampleRateConversion.convert(mono, from: source.sampleRate, converter: converter)
        self.converter = converter
    }

    /// Mono Float32 samples at `sampleRate` and their conversion to 22050 Hz as a clip, exactly as a 32-bit float WAV
    /// file holding the samples would be read (its format, its samples kept losslessly) and converted: for a take
    /// converted piece by piece while it was recorded (`StreamingResampler` gives what one conversion gives), which
    /// has no file. `renderReady` shorter than `SampleRateConversion.convertedFrameCount` is padded with silence, as
    /// `SampleRateConversion.convert` pads what libsamplerate did not fill.
    ///
    /// ```swift
    /// let clip = PreparedClip(floatSamples: take, sampleRate: 48_000, renderReady: converted)
    /// ```
    /// - Precondition: `floatSamples` is not empty, and `renderReady` is no longer than the conversion's length.
    public init(floatSamples: [Float], sampleRate: Int, renderReady: [Float], converter: Converter = .best) {
        let frameCount = SampleRateConversion.convertedFrameCount(
            floatSamples.count, from: sampleRate, to: RenderFormat.sampleRate)
        precondition(
            !floatSamples.isEmpty && renderReady.count <= frameCount, "a clip has samples and their conversion")
        source = SourceFormat(
            sampleRate: sampleRate, channelCount: 1, frameCount: floatSamples.count,
            container: SoundFileReader.formatName(Int32(SF_FORMAT_WAV)),
            sampleFormat: SoundFileReader.formatName(Int32(SF_FORMAT_FLOAT)))
        // In memory order, as `SoundFileReader.readOriginal` keeps a float file's samples.
        original = OriginalPCM(encoding: .float32, channelCount: 1, bytes: floatSamples.withUnsafeBytes { Array($0) })
        self.renderReady = renderReady + [Float](repeating: 0, count: frameCount - renderReady.count)
        self.converter = converter
    }

    /// The frames `frames` of `recording` (in its own rate) as a clip of their own: their original samples kept
    /// losslessly, averaged to mono and converted to 22050 Hz, exactly as a file holding only them would be.
    ///
    /// ```swift
    /// let recording = try Recording(path: "session.wav")
    /// let hello = try PreparedClip(cutting: 24_000..<48_000, from: recording)   // 0.5 s to 1 s of a 48 kHz file
    /// ```
    /// - Precondition: `frames` lies within the recording and is not empty.
    /// - Throws: `AudioIOError.conversionFailed`.
    public init(cutting frames: Range<Int>, from recording: Recording, converter: Converter = .best)
        throws(AudioIOError)
    {
        precondition(
            !frames.isEmpty && frames.lowerBound >= 0 && frames.upperBound <= recording.source.frameCount,
            "a cut must lie within its recording")
        let frameBytes = recording.original.encoding.byteCount * recording.original.channelCount
        let bytes = (frames.lowerBound * frameBytes)..<(frames.upperBound * frameBytes)
        var source = recording.source
        source.frameCount = frames.count
        try self.init(
            source: source,
            original: OriginalPCM(
                encoding: recording.original.encoding, channelCount: recording.original.channelCount,
                bytes: Array(recording.original.bytes[bytes])),
            mono: Array(recording.mono[frames]), converter: converter)
    }

    /// The length `renderReady` would have for the file at `path`, read from its header without decoding it.
    ///
    /// - Throws: `AudioIOError` naming the file, as `init(path:converter:)` would for its header.
    public static func renderReadyFrameCount(path: String) throws(AudioIOError) -> Int {
        let format = G722File.isG722(path) ? try G722File.format(path: path) : try SoundFileReader(path: path).format
        return SampleRateConversion.convertedFrameCount(
            format.frameCount, from: format.sampleRate, to: RenderFormat.sampleRate)
    }
}

/// A longer recording read once, for takes cut from it (`PreparedClip(cutting:from:converter:)`): its format, its
/// samples kept losslessly, and averaged to mono.
public struct Recording: Sendable {
    public var source: SourceFormat
    public var original: OriginalPCM
    /// The frames averaged to mono, in -1…1, at the recording's own rate.
    var mono: [Float]

    /// Reads the file at `path` whole.
    ///
    /// - Throws: `AudioIOError` naming the file, as `PreparedClip(path:converter:)` would.
    public init(path: String) throws(AudioIOError) {
        guard G722File.isG722(path) else {
            try self.init(reader: SoundFileReader(path: path))
            return
        }
        let (format, samples) = try G722File.read(path: path)
        // As libsndfile reads 16-bit samples as Float: divided by 32768.
        self.init(
            source: format,
            original: OriginalPCM(encoding: .int16, channelCount: 1, bytes: samples.withUnsafeBytes { Array($0) }),
            mono: samples.map { Float($0) / 32_768 })
    }

    private init(source: SourceFormat, original: OriginalPCM, mono: [Float]) {
        self.source = source
        self.original = original
        self.mono = mono
    }

    fileprivate init(reader: SoundFileReader) throws(AudioIOError) {
        source = reader.format
        original = try reader.readOriginal()
        mono = try reader.readMono()
        // One NaN would spread through the sinc filter to every frame near it, and play as full-scale noise.
        if let frame = FiniteSamples.firstNonFinite(in: mono) {
            throw .nonFiniteSample(path: reader.path, frame: frame)
        }
    }
}
