// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Planning
import SSML
import Voicebank

/// What can go wrong turning a request into audio; each case names the input and is something a caller can act on:
/// fix the request, name another pack or voice, give the voice a fallback clip, or repair the pack.
///
/// Its messages say what is wrong and what would be accepted in the library's own terms; a program that shows them
/// to a person (a command line, a server) may word the remedy as its own options.
public enum ConcatSynthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SSML that cannot be read: malformed, a refused `<!DOCTYPE>` or entity, a value an attribute cannot take, or
    /// a root other than `<speak>`. `message` names the input at its 1-based `line` and `column` (in Unicode scalars)
    /// and what would be accepted.
    case ssml(message: String, line: Int, column: Int)
    /// A request that could not be read from its file, descriptor or text stream, or whose bytes are not valid in
    /// its encoding.
    case request(RequestReadingError)
    /// No pack at `path`.
    case noPack(path: String)
    /// The pack at `path` was made by a newer version (schema `version`; this library reads up to `supported`).
    case newerPack(path: String, version: Int, supported: Int)
    /// Another program held the pack's write lock past the busy timeout: try again later.
    case packBusy(path: String)
    /// The file cannot be used as a pack: not a voice pack, damaged, holding what the store does not make, or
    /// failing to read; `message` says which.
    case unusablePack(path: String, message: String)
    /// A clip of the pack whose row and audio disagree, or whose audio is not numbers: `damage` says how.
    case damagedClip(path: String, clipID: Int, phrase: String, damage: String)
    /// A voice of the pack holds a setting no tool would store: `setting` is its column, `value` what it holds,
    /// `expected` what it may.
    case damagedVoice(path: String, voice: String, setting: String, value: String, expected: String)
    /// The pack has no voice yet.
    case noVoice(path: String)
    /// The pack has no voice `identifier`; `available` names those it has.
    case unknownVoice(identifier: String, available: [String], path: String)
    /// A voice asked for with no pack named is in more than one pack of the `VoiceCatalog`: `packPaths` names them.
    case voiceInSeveralPacks(identifier: String, packPaths: [String])
    /// A voice asked for with no pack named is in no pack of the `VoiceCatalog`: `available` names the voices there
    /// are, `packPaths` the packs looked in.
    case voiceNotInCatalog(identifier: String, available: [String], packPaths: [String])
    /// Words no clip covers, in a voice without a fallback clip.
    case noFallbackClip(voice: String, words: String)
    /// A folder allowed for `<audio>` that is not an existing directory.
    case audioDirectory(String)
    /// A request checked to be covered (`Synthesizer.checkCovered`, a `FallbackLog`) has words no clip covers.
    case fallbackInStrictMode(voice: String, words: [String])
    /// An audio file that could not be read or converted (an `<audio>` file, the output rate's conversion, the
    /// fallback voice): `message` names it and why.
    case audio(String)
    /// An error of no stage of the engine's own, such as one a library user's text stream threw: its description,
    /// reported as it is.
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
        case let error as VoicebankError: self = ConcatSynthError(store: error)
        case let error as AudioIOError: self = .audio(error.description)
        case let error as PlainTextError: self = .request(RequestReadingError(error))
        case let error as SSMLError: self = ConcatSynthError(ssml: error)
        case PlanningError.noFallbackClip(let voice, let words): self = .noFallbackClip(voice: voice, words: words)
        case PlanningError.audioDirectory(let path): self = .audioDirectory(path)
        default: return nil
        }
    }

    init(ssml error: SSMLError) {
        self = .ssml(message: error.description, line: error.line, column: error.column)
    }

    /// The store's error as the case a caller acts on; the ones about the file itself are `.unusablePack`.
    init(store error: VoicebankError) {
        switch error {
        case .noPack(let path): self = .noPack(path: path)
        case .newerSchema(let path, let version, let supported):
            self = .newerPack(path: path, version: version, supported: supported)
        case .busy(let path): self = .packBusy(path: path)
        case .damagedClip(let path, let clipID, let phrase, let damage):
            self = .damagedClip(path: path, clipID: clipID, phrase: phrase, damage: damage.description)
        case .damagedVoice(let path, let voice, let field, let value, let expected):
            self = .damagedVoice(path: path, voice: voice, setting: field, value: value, expected: expected)
        case .noVoice(let path): self = .noVoice(path: path)
        case .unknownVoice(let identifier, let available, let path):
            self = .unknownVoice(identifier: identifier, available: available, path: path)
        case .notAVoicePack(let path, _), .sqlite(let path, _, _), .damagedPack(let path, _),
            .foreignSchemaObject(let path, _, _), .incompleteSchema(let path, _), .readOnlyPack(let path, _),
            .diskFull(let path), .unknownClip(_, let path), .ambiguousVoice(_, let path):
            self = .unusablePack(path: path, message: error.description)
        default: self = .other(error.description)
        }
    }

    public var description: String {
        switch self {
        case .ssml(let message, _, _): return message
        case .request(let error): return error.description
        case .noPack(let path):
            return "no voice pack at \(path); expected the path of a voice pack, such as one `voicebank create` makes"
        case .newerPack(let path, let version, let supported):
            return VoicebankError.newerSchema(path: path, version: version, supported: supported).description
        case .packBusy(let path): return VoicebankError.busy(path: path).description
        case .unusablePack(_, let message): return message
        case .damagedClip(let path, let clipID, let phrase, let damage):
            return
                "voice pack \(path) has a damaged clip #\(clipID) \"\(phrase)\": \(damage); remove that clip and import it again, or restore the pack from a copy"
        case .damagedVoice(let path, let voice, let setting, let value, let expected):
            return
                VoicebankError.damagedVoice(path: path, voice: voice, field: setting, value: value, expected: expected)
                .description
        case .noVoice(let path): return VoicebankError.noVoice(path: path).description
        case .unknownVoice(let identifier, let available, let path):
            return VoicebankError.unknownVoice(identifier: identifier, available: available, path: path).description
        case .voiceInSeveralPacks(let identifier, let packPaths):
            return
                "voice \(identifier) is in more than one pack (\(packPaths.joined(separator: ", "))); expected the pack to speak with named"
        case .voiceNotInCatalog(let identifier, let available, let packPaths):
            return
                "no voice \(identifier) in \(packPaths.joined(separator: ", ")); expected one of: \(available.isEmpty ? "(none)" : available.joined(separator: ", "))"
        case .noFallbackClip(let voice, let words):
            return PlanningError.noFallbackClip(voice: voice, words: words).description
        case .audioDirectory(let path): return PlanningError.audioDirectory(path).description
        case .fallbackInStrictMode(let voice, let words):
            return
                "voice \(voice) has no clip for \(words.map { "\"\($0)\"" }.joined(separator: ", ")); a strict request accepts only what the voice's clips cover"
        case .audio(let message): return message
        case .other(let description): return description
        }
    }
}
