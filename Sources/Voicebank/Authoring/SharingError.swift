// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

/// What can go wrong sharing a pack: its manifest's values, publishing it and installing or uninstalling it. Each
/// case names the key, file or folder it is about; what the pack itself refuses is `.store`.
public enum SharingError: Error, Equatable, Sendable, CustomStringConvertible, CarryingStoreErrors {
    /// The pack refused a read or a change, naming the file the person gave (not the private copy install checks).
    case store(VoicebankError)
    /// A manifest value that does not parse as its key asks: `expected` says what would.
    case invalidManifestValue(key: String, value: String, expected: String)
    /// An empty manifest value: unsetting the key is how one is removed.
    case emptyManifestValue(key: String)
    case unknownManifestKey(String)
    /// A pack that `publish` or `install` cannot take as it is: `reason` says why and what to do.
    case notShareable(path: String, reason: String)
    /// A file or folder that publishing or installing could not read or write.
    case fileSystem(path: String, reason: String)

    public var description: String {
        switch self {
        case .store(let error): error.description
        case .invalidManifestValue(let key, let value, let expected):
            "invalid manifest \(key) \(VoicebankError.quoted(value)); expected \(expected)"
        case .emptyManifestValue(let key):
            "invalid manifest \(key) \"\"; expected a value that is not empty (unsetting the key removes one)"
        case .unknownManifestKey(let key):
            "unknown manifest key \(VoicebankError.quoted(key)); expected one of: \(PackManifest.Key.allCases.map(\.rawValue).joined(separator: ", "))"
        case .notShareable(let path, let reason): "\(path): \(reason)"
        case .fileSystem(let path, let reason): "cannot use \(path): \(reason)"
        }
    }
}
