// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Voicebank

/// What can go wrong making and changing a voice: importing audio (its files, transcripts, label tracks and
/// positions), configuring the fallback voice, removing clips, exporting, checking takes by listening and aligning
/// them. Each case names the file, clip or voice it is about; what the pack itself refuses is `.store`.
public enum AuthoringError: Error, Equatable, Sendable, CustomStringConvertible, CarryingStoreErrors {
    /// The pack refused a read or a change: opening, its schema, its clips or voices.
    case store(VoicebankError)
    /// A file's audio cannot be read or measured; AudioIO's own description.
    case audio(AudioIOError)
    case emptyPhrase(file: String, phrase: String)
    /// The fallback voice asked for a voice whose language espeak-ng has no voice for.
    case fallbackLanguage(voice: String, language: String)
    /// The recogniser could not listen to a take (`voicebank verify --words`); its own description.
    case recognition(String)
    case fileSystem(path: String, reason: String)
    case transcript(path: String, line: Int?, reason: String)
    /// A label track (Audacity's `start<TAB>end<TAB>label` lines) that cannot be read or cut from its recording.
    case labels(path: String, line: Int?, reason: String)
    /// A take's position given in two ways that disagree, or given to a fallback clip; `file` is the audio file.
    case position(file: String, reason: String)
    /// A position given to a fallback clip already in a pack, which is never tagged with one.
    case fallbackPosition(clipID: Int, path: String)
    case noAudioFiles(folder: String)
    case unknownPhrase(phrase: String, voice: String, path: String)
    case lastFallback(voice: String, path: String)
    /// The aligner's interpreter or script is not there, or would not start.
    case alignerUnavailable(reason: String)
    /// The aligner stopped or answered what its protocol does not allow, part way through a take.
    case alignerFailed(clipID: Int, reason: String)

    public var description: String {
        switch self {
        case .store(let error): error.description
        case .audio(let error): error.description
        case .emptyPhrase(let file, let phrase):
            "the phrase \"\(phrase)\" of \(file) has no words once normalised; expected a phrase that has letters, digits or CJK characters"
        case .fallbackLanguage(let voice, let language):
            "espeak-ng has no voice for \(language), the language of voice \(voice); expected a language espeak-ng speaks (espeak-ng --voices lists them), or the fallback clip or spell"
        case .recognition(let description): description
        case .fileSystem(let path, let reason): "cannot use \(path): \(reason)"
        case .transcript(let path, let line, let reason):
            "transcript \(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
        case .labels(let path, let line, let reason): "labels \(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
        case .position(let file, let reason): "cannot import \(file): \(reason)"
        case .fallbackPosition(let clipID, let path):
            "clip \(clipID) of \(path) is a fallback clip, which has no position; expected the id of a phrase clip (a take)"
        case .noAudioFiles(let folder):
            "folder \(folder) holds no audio files; expected files ending in \(PreparedClip.fileExtensions.sorted().map { "." + $0 }.joined(separator: ", "))"
        case .unknownPhrase(let phrase, let voice, let path):
            "no clip with the phrase \"\(phrase)\" in voice \(voice) of \(path); `voicebank list` shows the phrases"
        case .lastFallback(let voice, let path):
            "that would remove the last fallback clip of voice \(voice) in \(path), and words no clip covers could not be spoken; expected another fallback clip imported first, or leaving the voice with none allowed"
        case .alignerUnavailable(let reason):
            "cannot start the aligner: \(reason); expected tools/python-env to have made its environment (pocketsphinx 5.1.1) in the checkout the program was built in, or VOICEBANK_ALIGNER naming that checkout"
        case .alignerFailed(let clipID, let reason):
            "the aligner failed on clip #\(clipID): \(reason); expected tools/align-takes's answers (run `voicebank align` again once it is mended)"
        }
    }
}
