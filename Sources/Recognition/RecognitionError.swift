// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO

/// What can go wrong listening to audio with pocketsphinx; each case names what failed.
public enum RecognitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libpocketsphinx could not be loaded; `reason` is dlerror's message.
    case libraryUnavailable(reason: String)
    /// A file of the recogniser's model is missing (Debian's pocketsphinx-en-us brings them).
    case modelMissing(path: String)
    /// A pocketsphinx call failed; `message` is the error it logged (empty when it logged none).
    case failed(call: String, message: String)
    /// No phrase of a grammar has all its words in the recogniser's dictionary, so there is nothing to listen for.
    case noKnownPhrase(phrases: [String])
    /// The audio's sample rate is one no recording has.
    case unsupportedSampleRate(Int)
    /// The conversion to the model's rate failed.
    case audio(AudioIOError)

    public var description: String {
        switch self {
        case .libraryUnavailable(let reason):
            return
                "cannot check words: pocketsphinx, the recogniser, cannot be loaded (\(reason)); install Debian's libpocketsphinx3 and pocketsphinx-en-us (apt-get install libpocketsphinx3 pocketsphinx-en-us)"
        case .modelMissing(let path):
            return
                "cannot check words: the recogniser's model file \(path) is missing; install Debian's pocketsphinx-en-us (apt-get install pocketsphinx-en-us)"
        case .failed(let call, let message):
            return "pocketsphinx's \(call) failed" + (message.isEmpty ? "" : ": \(message)")
        case .noKnownPhrase(let phrases):
            return
                "no phrase of the grammar (\(phrases.prefix(5).map { "\"\($0)\"" }.joined(separator: ", "))\(phrases.count > 5 ? ", …" : "")) has all its words in the recogniser's dictionary; expected at least one phrase of English words"
        case .unsupportedSampleRate(let rate):
            return
                "cannot listen to audio at \(rate) Hz; expected \(AudioLimits.sampleRates.lowerBound) to \(AudioLimits.sampleRates.upperBound) Hz"
        case .audio(let error):
            return error.description
        }
    }
}
