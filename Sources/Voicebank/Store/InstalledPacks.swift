// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The packs `voicebank install` put where every tool finds them: one folder for the user, one for the system.
/// A pack is installed as `NAME.sqlite`, NAME being its manifest's name.
public enum InstalledPacks {
    /// Whose packs a folder holds.
    public enum Scope: String, Sendable, CaseIterable {
        /// `$XDG_DATA_HOME/concat-synth/packs` (by default `~/.local/share/concat-synth/packs`).
        case user
        /// `PREFIX/share/concat-synth/packs`, PREFIX being the folder above the tools' `bin`.
        case system
    }

    /// One installed pack file.
    public struct Pack: Equatable, Sendable {
        /// The pack's name, its file name without `.sqlite`.
        public var name: String
        public var path: String
        public var scope: Scope
    }

    /// The folder `scope`'s packs are installed in.
    public static func folder(_ scope: Scope) -> String {
        switch scope {
        case .user: userFolder(environment: environmentValue)
        case .system: systemFolder(executableFolder: VoicePackLocation.executableFolder)
        }
    }

    /// The user's folder by the XDG Base Directory rules: `$XDG_DATA_HOME` when set to an absolute path, else
    /// `$HOME/.local/share`, with `concat-synth/packs` below it.
    static func userFolder(environment: (String) -> String?) -> String {
        if let data = environment("XDG_DATA_HOME"), data.hasPrefix("/") { return data + "/concat-synth/packs" }
        return (environment("HOME") ?? homeFromPasswordFile() ?? "/") + "/.local/share/concat-synth/packs"
    }

    /// `PREFIX/share/concat-synth/packs` for tools in `PREFIX/bin`, as the default pack is found beside them.
    static func systemFolder(executableFolder: String) -> String {
        VoicePackLocation.normalized(executableFolder + "/../share/concat-synth/packs")
    }

    /// The packs installed in `scopes`' folders, the user's first, each folder's by name. A folder that does not
    /// exist holds none; files whose names are not `NAME.sqlite` with a pack name are not packs.
    /// `tools/install --user` makes the system's folder the user's (both `~/.local/share/concat-synth/packs`): its
    /// packs are listed once, as the user's.
    ///
    /// - Parameter systemFolder: the system's folder, for a program installed outside its installation's prefix
    ///   (the speech-dispatcher module in the distribution's module folder); else `folder(.system)`.
    public static func list(_ scopes: [Scope] = Scope.allCases, systemFolder: String? = nil) -> [Pack] {
        list(scopes) { scope in scope == .system ? systemFolder ?? folder(.system) : folder(scope) }
    }

    /// The packs of `scopes`, each scope's folder as `folderOf` says.
    static func list(_ scopes: [Scope], folderOf: (Scope) -> String) -> [Pack] {
        var seen: Set<String> = []
        let distinct = scopes.filter { seen.insert(folderOf($0)).inserted }
        return distinct.flatMap { scope in
            (directoryEntries(folderOf(scope)) ?? []).compactMap { file -> Pack? in
                guard file.hasSuffix(".sqlite") else { return nil }
                let name = String(file.dropLast(7))
                guard PackManifest.isPackName(name) else { return nil }
                return Pack(name: name, path: folderOf(scope) + "/" + file, scope: scope)
            }.sorted { $0.name < $1.name }
        }
    }

    private static func environmentValue(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    private static func homeFromPasswordFile() -> String? {
        guard let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }
}
