// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the tools find a voice pack when they are not told.
public enum VoicePackLocation {
    /// The environment variable that names a pack for every command.
    public static let environmentVariable = "CONCAT_SYNTH_BANK"

    /// Where `tools/install` puts the default pack, relative to the folder of the installed executables: among the
    /// system's installed packs (`InstalledPacks`), so `PREFIX/bin/concat-synth` finds
    /// `PREFIX/share/concat-synth/packs/default.sqlite`.
    public static let installedPackRelativePath = "../share/concat-synth/packs/default.sqlite"

    /// The default pack, found from where the running executable is, so no path of the machine that built it is
    /// baked in: an installed tool uses the pack installed beside it (`../share/concat-synth/default.sqlite` from
    /// its folder; from speech-dispatcher's module folders, one level further up), and a build in a clone of the
    /// repository (`.build/…/concat-synth`, the test bundle) uses the repository's `voicebank/default.sqlite`.
    /// When neither exists, the installed location, so that the error names where the pack should be.
    public static let defaultPackPath: String = defaultPack(executableFolder: executableFolder)

    /// The default pack for an executable in `executableFolder`, by the rule of `defaultPackPath`.
    public static func defaultPack(executableFolder folder: String) -> String {
        let installed = [
            "\(folder)/\(installedPackRelativePath)",
            // PREFIX/lib/speech-dispatcher-modules/sd_concat-synth, PREFIX/libexec/speech-dispatcher-modules/…
            "\(folder)/../\(installedPackRelativePath)",
        ]
        if let found = installed.first(where: isReadableFile) { return normalized(found) }
        // A SwiftPM build: the repository is the folder above `.build` (or `.build-*`).
        var components = folder.split(separator: "/", omittingEmptySubsequences: false)
        while let last = components.last {
            components.removeLast()
            if last.hasPrefix(".build") {
                let pack = joinedPath(components + ["voicebank", "default.sqlite"])
                if isReadableFile(pack) { return pack }
                break
            }
        }
        return normalized(installed[0])
    }

    /// `explicit` if given, else `$CONCAT_SYNTH_BANK` if set and not empty, else `defaultPack`.
    public static func resolve(_ explicit: String?, defaultPack: String = defaultPackPath) -> String {
        if let explicit { return explicit }
        if let variable = getenv(environmentVariable), variable.pointee != 0 { return String(cString: variable) }
        return defaultPack
    }

    /// The folder of the running executable, symbolic links resolved.
    static let executableFolder: String = findExecutableFolder()

    private static func findExecutableFolder() -> String {
        var path: String?
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            if count > 0 { path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        #endif
        if path == nil, let first = CommandLine.arguments.first, let resolved = realpath(first, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        guard let path, let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    private static func isReadableFile(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// `path` with `.` and `..` components taken out, for messages and `--help`.
    static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = components.last, last != ".." {
                components.removeLast()
                continue
            }
            components.append(component)
        }
        return (path.hasPrefix("/") ? "/" : "") + joinedPath(components)
    }

    /// `components` joined by "/". Not `joined(separator:)`, whose generic code runs unspecialized in the standard
    /// library: its first call looks up a protocol conformance by scanning every one of the executable's, at every
    /// command's start.
    private static func joinedPath(_ components: [Substring]) -> String {
        var path = ""
        for (index, component) in components.enumerated() {
            if index > 0 { path.append("/") }
            path.append(contentsOf: component)
        }
        return path
    }
}
