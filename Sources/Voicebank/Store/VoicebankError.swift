import AudioIO
import SpeechCore

/// What can go wrong with a voice pack; each case names the pack, voice or file it is about.
public enum VoicebankError: Error, Equatable, Sendable, CustomStringConvertible {
    case noPack(path: String)
    case notAVoicePack(path: String, reason: String)
    case newerSchema(path: String, version: Int, supported: Int)
    case sqlite(path: String, sql: String?, message: String)
    /// SQLite found the file damaged (`SQLITE_CORRUPT`): a truncated or overwritten file.
    case damagedPack(path: String, message: String)
    /// The pack's schema holds an object the store does not make (a trigger, a view, a virtual table, another table
    /// or index): `kind` says which, `name` is its name.
    case foreignSchemaObject(path: String, kind: String, name: String)
    /// A table or column of the pack's schema version is missing: `detail` is SQLite's "no such …" message.
    case incompleteSchema(path: String, detail: String)
    /// A clip's row and audio disagree, or its audio is not numbers: rendering and `verify` both refuse it.
    case damagedClip(path: String, clipID: Int, phrase: String, damage: ClipDamage)
    /// A voice row holds a setting `voicebank configure` would refuse: `field` is its column.
    case damagedVoice(path: String, voice: String, field: String, value: String, expected: String)
    /// The pack cannot be written where it is; `reason` says why (a read-only file system, permissions, …).
    case readOnlyPack(path: String, reason: String)
    /// Another connection held the pack's write lock past the busy timeout.
    case busy(path: String)
    /// The pack's file system filled up during a write; the transaction was rolled back.
    case diskFull(path: String)
    case invalidIdentifier(String)
    case invalidLanguage(String)
    case emptyName
    case noLanguage
    case invalidNormalRate(Double)
    case invalidJoins(Joins)
    /// A selection weight outside `SelectionWeights.weights`: `weight` is its name (position, pitch, energy or
    /// spectrum).
    case invalidSelectionWeight(weight: String, value: Double)
    case invalidLoudnessTarget(LoudnessTarget)
    case duplicateVoice(identifier: String, path: String)
    case noVoice(path: String)
    case unknownVoice(identifier: String, available: [String], path: String)
    case ambiguousVoice(available: [String], path: String)
    case emptyPhrase(file: String, phrase: String)
    case audio(AudioIOError)
    /// The fallback voice asked for a voice whose language espeak-ng has no voice for.
    case fallbackLanguage(voice: String, language: String)
    /// F0 or a take's features could not be measured; the measuring code's own description.
    case pitchMeasurement(String)
    /// The recogniser could not listen to a take (`voicebank verify --words`); its own description.
    case recognition(String)
    case unknownClip(id: Int, path: String)
    // Pack tools: transcripts, folders, export, remove.
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
    // Sharing: the manifest, publish, install.
    /// A manifest value that does not parse as its key asks: `expected` says what would.
    case invalidManifestValue(key: String, value: String, expected: String)
    /// An empty manifest value: unsetting the key is how one is removed.
    case emptyManifestValue(key: String)
    case unknownManifestKey(String)
    /// A pack that `publish` or `install` cannot take as it is: `reason` says why and what to do.
    case notShareable(path: String, reason: String)

    public var description: String {
        switch self {
        case .noPack(let path):
            return
                "no voice pack at \(path); expected the path of a voice pack, such as one `voicebank create` makes"
        case .notAVoicePack(let path, let reason):
            return "\(path) is not a voice pack: \(reason); expected a file made by `voicebank create`"
        case .newerSchema(let path, let version, let supported):
            return
                "voice pack \(path) has schema version \(version), newer than this voicebank reads (up to \(supported)); update concat-synth to open it"
        case .sqlite(let path, let sql, let message):
            return "SQLite failed on \(path): \(message)" + (sql.map { " (in `\($0.prefix(80))`)" } ?? "")
        case .damagedPack(let path, let message):
            return
                "voice pack \(path) is damaged (SQLite reports \"\(message)\"), perhaps truncated by a copy or sync; restore it from a copy, or rebuild it"
        case .foreignSchemaObject(let path, let kind, let name):
            let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            return
                "voice pack \(path) holds \(article) \(kind) \(Self.quoted(name)) that concat-synth does not make; expected only its own tables and indexes (it may be damaged or hostile)"
        case .incompleteSchema(let path, let detail):
            return
                "voice pack \(path) lacks part of its schema (\(detail)); expected the tables and columns of schema version \(Schema.currentVersion) that `voicebank create` makes: restore it from a copy, or rebuild it"
        case .damagedClip(let path, let clipID, let phrase, let damage):
            return
                "voice pack \(path) has a damaged clip #\(clipID) \"\(phrase)\": \(damage); remove that clip and import it again, or restore the pack from a copy"
        case .damagedVoice(let path, let voice, let field, let value, let expected):
            return
                "voice pack \(path) has a damaged voice \(voice): its \(field) is \(value), expected \(expected); configure that setting of the voice again, or restore the pack from a copy"
        case .readOnlyPack(let path, let reason):
            return
                "cannot write voice pack \(path): \(reason); expected a pack in a place you can write (copy it there and change the copy)"
        case .busy(let path):
            return
                "voice pack \(path) is busy: another program held its write lock for more than \(Database.busyTimeoutMilliseconds / 1000) s; try again when that import or edit has finished"
        case .diskFull(let path):
            return
                "cannot write voice pack \(path): its file system is full, and nothing was stored; free some space and try again"
        case .invalidIdentifier(let identifier):
            return
                "invalid voice identifier \"\(identifier)\"; expected a reverse-DNS name such as com.example.voice.en"
        case .invalidLanguage(let tag):
            return "invalid language tag \"\(tag)\"; expected a BCP 47 tag such as en-US or ja-JP"
        case .emptyName:
            return "empty voice name; expected a display name such as \"Otoya\""
        case .noLanguage:
            return "no language given; expected at least one language tag such as en-US"
        case .invalidNormalRate(let rate):
            return
                "invalid normal rate \(rate); expected a multiple of SSML's default rate from \(Voice.normalRates.lowerBound) to \(Voice.normalRates.upperBound), such as 4 (or 400%) for a voice that VoiceOver drives at rate=\"400.0%\""
        case .invalidSelectionWeight(let weight, let value):
            return "invalid \(weight) weight \(value); expected \(SelectionWeights.accepted)"
        case .invalidJoins(let joins):
            return
                "invalid joins (\(joins)); expected edge fades and a crossfade of 0 to \(Joins.maximumFrames) frames (0 to 500 ms)"
        case .invalidLoudnessTarget(let target):
            return
                "invalid loudness target (\(target)); expected a target from -70 to 0 LUFS such as -20, and a true-peak ceiling of at most 0 dBTP such as -1"
        case .duplicateVoice(let identifier, let path):
            return "voice \(identifier) is already in \(path); expected an identifier not yet in the pack"
        case .noVoice(let path):
            return
                "voice pack \(path) has no voice yet; expected a pack with a voice, such as one `voicebank create` adds"
        case .unknownVoice(let identifier, let available, let path):
            return
                "no voice \(identifier) in \(path); expected one of: \(available.isEmpty ? "(none)" : available.joined(separator: ", "))"
        case .ambiguousVoice(let available, let path):
            return
                "voice pack \(path) has several voices; expected the voice named, one of: \(available.joined(separator: ", "))"
        case .emptyPhrase(let file, let phrase):
            return
                "the phrase \"\(phrase)\" of \(file) has no words once normalised; expected a phrase that has letters, digits or CJK characters"
        case .audio(let error):
            return error.description
        case .fallbackLanguage(let voice, let language):
            return
                "espeak-ng has no voice for \(language), the language of voice \(voice); expected a language espeak-ng speaks (espeak-ng --voices lists them), or the fallback clip or spell"
        case .pitchMeasurement(let description):
            return description
        case .recognition(let description):
            return description
        case .unknownClip(let id, let path):
            return "no clip \(id) in \(path)"
        case .fileSystem(let path, let reason):
            return "cannot use \(path): \(reason)"
        case .transcript(let path, let line, let reason):
            return "transcript \(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
        case .labels(let path, let line, let reason):
            return "labels \(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
        case .position(let file, let reason):
            return "cannot import \(file): \(reason)"
        case .fallbackPosition(let clipID, let path):
            return
                "clip \(clipID) of \(path) is a fallback clip, which has no position; expected the id of a phrase clip (a take)"
        case .noAudioFiles(let folder):
            return
                "folder \(folder) holds no audio files; expected files ending in \(PreparedClip.fileExtensions.sorted().map { "." + $0 }.joined(separator: ", "))"
        case .unknownPhrase(let phrase, let voice, let path):
            return
                "no clip with the phrase \"\(phrase)\" in voice \(voice) of \(path); `voicebank list` shows the phrases"
        case .lastFallback(let voice, let path):
            return
                "that would remove the last fallback clip of voice \(voice) in \(path), and words no clip covers could not be spoken; expected another fallback clip imported first, or leaving the voice with none allowed"
        case .invalidManifestValue(let key, let value, let expected):
            return "invalid manifest \(key) \(Self.quoted(value)); expected \(expected)"
        case .emptyManifestValue(let key):
            return "invalid manifest \(key) \"\"; expected a value that is not empty (unsetting the key removes one)"
        case .unknownManifestKey(let key):
            return
                "unknown manifest key \(Self.quoted(key)); expected one of: \(PackManifest.Key.allCases.map(\.rawValue).joined(separator: ", "))"
        case .notShareable(let path, let reason):
            return "\(path): \(reason)"
        }
    }

    /// A name from a pack's schema, in quotes and on one line: a hostile pack may name an object with a newline or a
    /// megabyte of text.
    package static func quoted(_ name: String) -> String {
        let limit = 64
        var text = ""
        for scalar in name.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\"", "\\": text += "\\" + String(scalar)
            case _ where scalar.isUnprintable:
                text += scalar.escaped(asASCII: true)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return "\"" + text + (name.unicodeScalars.count > limit ? "…" : "") + "\""
    }
}

extension Unicode.Scalar {
    /// A control character or a Unicode line or paragraph separator: what must not reach a terminal or a one-line
    /// message from a pack someone else made.
    package var isUnprintable: Bool {
        properties.generalCategory == .control || self == "\u{2028}" || self == "\u{2029}"
    }
}
