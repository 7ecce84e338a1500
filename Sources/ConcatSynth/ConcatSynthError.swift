import AudioIO
import Planning
import SSML
import Voicebank

/// What can go wrong turning a request into audio; each case names the input.
public enum ConcatSynthError: Error, Equatable, CustomStringConvertible {
    case ssml(SSMLError)
    /// Plain text read as it is spoken that turned out unreadable or not UTF-8.
    case text(PlainTextError)
    case voicebank(VoicebankError)
    /// A voice asked for with no pack named is in more than one pack of the `VoiceCatalog`: `packPaths` names them.
    case voiceInSeveralPacks(identifier: String, packPaths: [String])
    /// A voice asked for with no pack named is in no pack of the `VoiceCatalog`: `available` names the voices there
    /// are, `packPaths` the packs looked in.
    case voiceNotInCatalog(identifier: String, available: [String], packPaths: [String])
    /// Words no clip covers, in a voice without a fallback clip.
    case noFallbackClip(voice: String, words: String)
    /// `--allow-audio` named something that is not a directory.
    case audioDirectory(String)
    /// `--strict`: words no clip covers.
    case fallbackInStrictMode(voice: String, words: [String])
    /// An `<audio>` file allowed while planning could not be read when its turn came.
    case audio(AudioIOError)
    /// A request that could not be read from its file or descriptor.
    case request(RequestReadingError)
    /// An error of no stage of the engine's own, such as one a library user's `PhraseLookup` or `ClipAudioSource`
    /// threw: its description, reported as it is.
    case other(String)

    /// The error a planning or rendering step threw, as one of these cases; one of no stage of the engine's own is
    /// `.other`, reported as it is, never a crash.
    public init(_ error: any Error) {
        self = ConcatSynthError(engineError: error) ?? .other(String(describing: error))
    }

    /// The error an engine stage threw (the SSML reader, planning, the voice pack, audio files) as one of these
    /// cases; `nil` for an error of anything else.
    public init?(engineError error: any Error) {
        switch error {
        case let error as ConcatSynthError: self = error
        case let error as VoicebankError: self = .voicebank(error)
        case let error as AudioIOError: self = .audio(error)
        case let error as PlainTextError: self = .text(error)
        case let error as SSMLError: self = .ssml(error)
        case PlanningError.noFallbackClip(let voice, let words): self = .noFallbackClip(voice: voice, words: words)
        case PlanningError.audioDirectory(let path): self = .audioDirectory(path)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .ssml(let error): return error.description
        case .text(let error): return error.description
        case .voicebank(let error): return error.description
        case .voiceInSeveralPacks(let identifier, let packPaths):
            return
                "voice \(identifier) is in more than one pack (\(packPaths.joined(separator: ", "))); pass --bank with the one to speak with"
        case .voiceNotInCatalog(let identifier, let available, let packPaths):
            return
                "no voice \(identifier) in \(packPaths.joined(separator: ", ")); expected one of: \(available.isEmpty ? "(none)" : available.joined(separator: ", "))"
        case .noFallbackClip(let voice, let words):
            return PlanningError.noFallbackClip(voice: voice, words: words).description
        case .audioDirectory(let path): return PlanningError.audioDirectory(path).description
        case .fallbackInStrictMode(let voice, let words):
            return
                "voice \(voice) has no clip for \(words.map { "\"\($0)\"" }.joined(separator: ", ")); --strict accepts only requests the voice's clips cover"
        case .audio(let error): return error.description
        case .request(let error): return error.description
        case .other(let description): return description
        }
    }
}

extension AudioSandbox {
    /// Allows `<audio>` to play files inside `directories`, measured and decoded like an import.
    ///
    /// - Throws: `ConcatSynthError.audioDirectory` for a path that is not an existing directory.
    public init(allowing directories: [String]) throws(ConcatSynthError) {
        do throws(PlanningError) {
            try self.init(allowing: directories) { path in
                do throws(AudioIOError) {
                    return .success(try PreparedClip.renderReadyFrameCount(path: path))
                } catch {
                    return .failure(AudioFileProblem(reason: error.description))
                }
            }
        } catch {
            throw ConcatSynthError(error)
        }
    }
}
