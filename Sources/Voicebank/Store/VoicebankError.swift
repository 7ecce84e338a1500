// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// What can go wrong with a voice pack itself: opening it, its schema and migrations, its clips and its voices; each
/// case names the pack, voice or clip it is about. Authoring (`AuthoringError`) and sharing (`SharingError`) have their
/// own errors, which carry this one where they call the store.
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
    /// A selection or units weight outside `SelectionWeights.weights`: `weight` is its name as `voicebank configure`
    /// takes it (position, pitch, energy or spectrum; unit-context, unit-stress, … for `UnitWeights`).
    case invalidSelectionWeight(weight: String, value: Double)
    case invalidLoudnessTarget(LoudnessTarget)
    case duplicateVoice(identifier: String, path: String)
    case noVoice(path: String)
    case unknownVoice(identifier: String, available: [String], path: String)
    case ambiguousVoice(available: [String], path: String)
    /// A clip's F0, loudness or take features, or how the fallback voice speaks, could not be measured: the
    /// measurements an import, a change of settings, a removal or an upgrade keeps current. The measuring code's own
    /// description.
    case measurement(String)
    case unknownClip(id: Int, path: String)

    public var description: String {
        switch self {
        case .noPack(let path):
            "no voice pack at \(path); expected the path of a voice pack, such as one `voicebank create` makes"
        case .notAVoicePack(let path, let reason):
            "\(path) is not a voice pack: \(reason); expected a file made by `voicebank create`"
        case .newerSchema(let path, let version, let supported):
            "voice pack \(path) has schema version \(version), newer than this voicebank reads (up to \(supported)); update concat-synth to open it"
        case .sqlite(let path, let sql, let message):
            "SQLite failed on \(path): \(message)" + (sql.map { " (in `\($0.prefix(80))`)" } ?? "")
        case .damagedPack(let path, let message):
            "voice pack \(path) is damaged (SQLite reports \"\(message)\"), perhaps truncated by a copy or sync; restore it from a copy, or rebuild it"
        case .foreignSchemaObject(let path, let kind, let name):
            "voice pack \(path) holds \(Self.article(kind)) \(kind) \(Self.quoted(name)) that concat-synth does not make; expected only its own tables and indexes (it may be damaged or hostile)"
        case .incompleteSchema(let path, let detail):
            "voice pack \(path) lacks part of its schema (\(detail)); expected the tables and columns of schema version \(Schema.currentVersion) that `voicebank create` makes: restore it from a copy, or rebuild it"
        case .damagedClip(let path, let clipID, let phrase, let damage):
            "voice pack \(path) has a damaged clip #\(clipID) \"\(phrase)\": \(damage); remove that clip and import it again, or restore the pack from a copy"
        case .damagedVoice(let path, let voice, let field, let value, let expected):
            "voice pack \(path) has a damaged voice \(voice): its \(field) is \(value), expected \(expected); configure that setting of the voice again, or restore the pack from a copy"
        case .readOnlyPack(let path, let reason):
            "cannot write voice pack \(path): \(reason); expected a pack in a place you can write (copy it there and change the copy)"
        case .busy(let path):
            "voice pack \(path) is busy: another program held its write lock for more than \(Database.busyTimeoutMilliseconds / 1000) s; try again when that import or edit has finished"
        case .diskFull(let path):
            "cannot write voice pack \(path): its file system is full, and nothing was stored; free some space and try again"
        case .invalidIdentifier(let identifier):
            "invalid voice identifier \"\(identifier)\"; expected a reverse-DNS name such as com.example.voice.en"
        case .invalidLanguage(let tag):
            "invalid language tag \"\(tag)\"; expected a BCP 47 tag such as en-US or ja-JP"
        case .emptyName:
            "empty voice name; expected a display name such as \"Otoya\""
        case .noLanguage:
            "no language given; expected at least one language tag such as en-US"
        case .invalidNormalRate(let rate):
            "invalid normal rate \(rate); expected a multiple of SSML's default rate from \(Voice.normalRates.lowerBound) to \(Voice.normalRates.upperBound), such as 4 (or 400%) for a voice that VoiceOver drives at rate=\"400.0%\""
        case .invalidSelectionWeight(let weight, let value):
            "invalid \(weight) weight \(value); expected \(SelectionWeights.accepted)"
        case .invalidJoins(let joins):
            "invalid joins (\(joins)); expected edge fades and a crossfade of 0 to \(Joins.maximumFrames) frames (0 to 500 ms)"
        case .invalidLoudnessTarget(let target):
            "invalid loudness target (\(target)); expected a target from -70 to 0 LUFS such as -20, and a true-peak ceiling of at most 0 dBTP such as -1"
        case .duplicateVoice(let identifier, let path):
            "voice \(identifier) is already in \(path); expected an identifier not yet in the pack"
        case .noVoice(let path):
            "voice pack \(path) has no voice yet; expected a pack with a voice, such as one `voicebank create` adds"
        case .unknownVoice(let identifier, let available, let path):
            "no voice \(identifier) in \(path); expected one of: \(available.isEmpty ? "(none)" : available.joined(separator: ", "))"
        case .ambiguousVoice(let available, let path):
            "voice pack \(path) has several voices; expected the voice named, one of: \(available.joined(separator: ", "))"
        case .measurement(let description):
            description
        case .unknownClip(let id, let path):
            "no clip \(id) in \(path)"
        }
    }

    /// "an" before a kind of schema object that starts with a vowel ("an index"), else "a".
    private static func article(_ kind: String) -> String {
        kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
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

/// An error of the layers above the store (authoring, sharing) that carries the store's errors as they are, so that
/// their work and the store's can share one transaction (`Database.transaction`).
public protocol CarryingStoreErrors: Error {
    static func store(_ error: VoicebankError) -> Self
}
