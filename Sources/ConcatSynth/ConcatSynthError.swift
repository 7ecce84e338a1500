import SSML
import Voicebank

/// What can go wrong turning a request into audio; each case names the input.
public enum ConcatSynthError: Error, Equatable, CustomStringConvertible {
    case ssml(SSMLError)
    case voicebank(VoicebankError)
    /// Words no clip covers, in a voice without a fallback clip.
    case noFallbackClip(voice: String, words: String)
    /// `--allow-audio` named something that is not a directory.
    case audioDirectory(String)
    /// `--strict`: words no clip covers.
    case fallbackInStrictMode(voice: String, words: [String])

    public var description: String {
        switch self {
        case .ssml(let error): return error.description
        case .voicebank(let error): return error.description
        case .noFallbackClip(let voice, let words):
            return
                "voice \(voice) has no clip for \"\(words)\" and no fallback clip; expected a pack whose voice has one (voicebank import --fallback FILE)"
        case .audioDirectory(let path):
            return
                "cannot allow audio from \(path): it is not an existing directory; expected --allow-audio DIR naming a folder of audio files"
        case .fallbackInStrictMode(let voice, let words):
            return
                "voice \(voice) has no clip for \(words.map { "\"\($0)\"" }.joined(separator: ", ")); --strict accepts only requests the voice's clips cover"
        }
    }
}
