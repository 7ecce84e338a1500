// SPDX-License-Identifier: GPL-3.0-or-later
/// What can go wrong reading, converting or writing audio; each case names the input.
public enum AudioIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libsndfile could not open the file; `reason` is its own message (`sf_strerror`).
    case unreadable(path: String, reason: String)
    /// The file opened but holds no audio frames.
    case empty(path: String)
    /// A sample is NaN or infinite (a float file written by a broken program); `frame` is where, in the file.
    case nonFiniteSample(path: String, frame: Int)
    /// The file's channel count is outside what a clip can have.
    case unsupportedChannelCount(path: String, channelCount: Int)
    /// The file's sample rate is outside what a clip can have.
    case unsupportedSampleRate(path: String, sampleRate: Int)
    /// The file is longer than a clip can be.
    case tooLong(path: String, seconds: Double)
    /// libsndfile stopped before the end of the file.
    case truncated(path: String, expectedFrames: Int, readFrames: Int)
    /// A `.g722` file could not be decoded: libspandsp could not be loaded, or its decoder failed.
    case g722DecoderUnavailable(path: String, reason: String)
    /// libsamplerate refused the conversion; `reason` is its own message (`src_strerror`).
    case conversionFailed(reason: String)
    /// libsndfile could not create or write the output file.
    case unwritable(path: String, reason: String)
    /// The audio would pass the most bytes the container's 32-bit sizes hold (AIFF's 4 GB).
    case tooLargeForContainer(path: String, container: String, byteLimit: Int)
    /// The output file name's extension picks no container this writer knows.
    case unknownOutputExtension(path: String)
    /// The extension names a format this machine's libsndfile was built without (MP3, Opus).
    case unsupportedOutputFormat(path: String, extension: String)
    /// The asked encoding is not one the output's container holds.
    case encodingNotInContainer(path: String, encoding: String, accepted: [String])
    /// A rate or encoding asked for other than the one the output's extension fixes.
    case conflictingOutputOption(path: String, option: OutputOption, picked: String)
    /// The asked output rate is outside what the converter takes.
    case unsupportedOutputRate(sampleRate: Int)
    /// libebur128 could not measure loudness.
    case loudnessMeter(reason: String)
    /// libespeak-ng could not be loaded or started; `reason` is dlerror's message or what failed.
    case espeakUnavailable(reason: String)
    /// espeak-ng has no voice for the language (a BCP 47 tag).
    case espeakLanguage(language: String)
    /// An espeak-ng call returned an error status (`espeak_ERROR`).
    case espeakFailed(call: String, status: Int)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return
                "cannot read audio file \(path): \(reason); expected a file libsndfile reads (AIFF, AIFF-C, WAV, FLAC, Ogg, CAF, …)"
        case .empty(let path):
            return "audio file \(path) has no audio frames; expected a recording at least one frame long"
        case .nonFiniteSample(let path, let frame):
            return
                "audio file \(path) holds a sample that is not a number (NaN or infinite) at frame \(frame); expected finite samples, as any recording has"
        case .unsupportedChannelCount(let path, let channelCount):
            return "audio file \(path) has \(channelCount) channels; expected 1 to \(AudioLimits.maximumChannelCount)"
        case .unsupportedSampleRate(let path, let sampleRate):
            return
                "audio file \(path) has a sample rate of \(sampleRate) Hz; expected \(AudioLimits.sampleRates.lowerBound) to \(AudioLimits.sampleRates.upperBound) Hz"
        case .tooLong(let path, let seconds):
            return
                "audio file \(path) lasts \(Int(seconds)) s; expected a clip of at most \(AudioLimits.maximumSeconds) s"
        case .truncated(let path, let expectedFrames, let readFrames):
            return
                "audio file \(path) ended after \(readFrames) of its \(expectedFrames) frames; expected a complete file"
        case .g722DecoderUnavailable(let path, let reason):
            return
                "cannot decode G.722 file \(path): \(reason); expected Debian's libspandsp2 (apt-get install libspandsp2), whose decoder reads it"
        case .conversionFailed(let reason):
            return "sample-rate conversion failed: \(reason)"
        case .unwritable(let path, let reason):
            return "cannot write audio file \(path): \(reason)"
        case .tooLargeForContainer(let path, let container, let byteLimit):
            return
                "cannot write audio file \(path): an \(container) file holds at most \(byteLimit) bytes (its sizes are 32-bit) and this audio is longer; expected .wav (RF64 past 4 GB), .caf or .flac, which have no such limit"
        case .unknownOutputExtension(let path):
            return
                "cannot tell the output format of \(path); expected a name ending in \(RenderOutputFormat.acceptedExtensions.joined(separator: ", "))"
        case .unsupportedOutputFormat(let path, let `extension`):
            return
                "cannot write \(path): this machine's libsndfile does not write \(`extension`) files; expected a name ending in \(RenderOutputFormat.acceptedExtensions.joined(separator: ", "))"
        case .encodingNotInContainer(let path, let encoding, let accepted):
            guard !accepted.isEmpty else {
                return
                    "cannot write \(path) as \(encoding): the format has its own codec; expected no encoding asked for"
            }
            return
                "cannot write \(path) as \(encoding): expected the encoding \(accepted.joined(separator: ", ")) for this format"
        case .conflictingOutputOption(let path, let option, let picked):
            return
                "\(option) conflicts with the output \(path): \(picked); expected no \(option.name) asked for, or another extension"
        case .unsupportedOutputRate(let sampleRate):
            return
                "invalid output sample rate \(sampleRate): expected \(AudioLimits.sampleRates.lowerBound) to \(AudioLimits.sampleRates.upperBound) Hz"
        case .loudnessMeter(let reason):
            return "loudness measurement failed: \(reason)"
        case .espeakUnavailable(let reason):
            return
                "cannot start espeak-ng for the fallback voice: \(reason); expected Debian's libespeak-ng1 and espeak-ng-data (apt-get install libespeak-ng1)"
        case .espeakLanguage(let language):
            return
                "espeak-ng has no voice for the language \(language); expected a language espeak-ng speaks (espeak-ng --voices lists them), or the fallback clip or spell"
        case .espeakFailed(let call, let status):
            return
                "espeak-ng failed at \(call) with status \(status) (\(status == 2 ? "not found" : status == 1 ? "buffer full" : "internal error")); expected espeak-ng's own voices and variants"
        }
    }
}

/// The bounds a clip's source file must stay within.
public enum AudioLimits {
    /// libsndfile itself allows up to 1024; more than this is a multitrack session, not a phrase.
    public static let maximumChannelCount = 64
    /// libsamplerate converts within a ratio of 1/256 to 256; this range keeps well inside it.
    public static let sampleRates = 4_000...768_000
    /// A phrase clip is short; an hour of audio is a mistake, not a phrase.
    public static let maximumSeconds = 3_600
}

/// A rate or encoding asked of an output, as `AudioIOError.conflictingOutputOption` names it.
public enum OutputOption: Equatable, Sendable, CustomStringConvertible {
    case sampleRate(Int)
    case encoding(OutputEncoding)

    /// What it sets: "sample rate" or "encoding".
    public var name: String {
        switch self {
        case .sampleRate: return "sample rate"
        case .encoding: return "encoding"
        }
    }

    /// "a sample rate of 16000 Hz", "the encoding alaw".
    public var description: String {
        switch self {
        case .sampleRate(let rate): return "a sample rate of \(rate) Hz"
        case .encoding(let encoding): return "the encoding \(encoding.rawValue)"
        }
    }
}
