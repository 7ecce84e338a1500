// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CNettle
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension VoicePack {
    /// Sets the values of `setting` and removes the keys of `removing`, in one transaction; every value is checked
    /// first (`PackManifest.checked(_:for:)`), so one bad value changes nothing.
    ///
    /// - Returns: the manifest as it is now stored.
    /// - Throws: `SharingError.invalidManifestValue`, `.emptyManifestValue`, `.store`.
    @discardableResult
    public func changeManifest(setting: [(PackManifest.Key, String)], removing: [PackManifest.Key] = [])
        throws(SharingError) -> PackManifest
    {
        var checked: [(PackManifest.Key, String)] = []
        for (key, value) in setting { checked.append((key, try PackManifest.checked(value, for: key))) }
        if let (key, value) = checked.last(where: { $0.0 == .attributionVoices }),
            let (unknown, voices) = try unknownAttributionVoice(value)
        {
            throw .invalidManifestValue(
                key: key.rawValue, value: value,
                expected: "voices of the pack (\(voices.joined(separator: ", "))), which \(unknown) is not")
        }
        do throws(VoicebankError) {
            try database.transaction { () throws(VoicebankError) in
                for key in removing {
                    try database.prepare("DELETE FROM manifest WHERE key = ?").bind(.text(key.rawValue)).run()
                }
                for (key, value) in checked {
                    try database.prepare("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)")
                        .bind(.text(key.rawValue), .text(value)).run()
                }
            }
            return try manifest()
        } catch {
            throw .store(error)
        }
    }

    /// Writes a clean single-file copy of the pack to `output` for others to install: no WAL, vacuumed, in
    /// rollback-journal mode. It appears whole or not at all.
    ///
    /// - Parameter force: publish without a license or a consent statement (each is then a warning).
    /// - Throws: `SharingError.notShareable` for a pack with no name or version (which install needs), with no
    ///   license or consent statement unless `force`, or with a stored value that does not parse; `.fileSystem` when
    ///   `output` cannot be written; `.store`.
    public func publish(to output: String, force: Bool = false) throws(SharingError) -> SharedPack {
        let manifest: PackManifest
        do throws(VoicebankError) { manifest = try self.manifest() } catch { throw .store(error) }
        try manifest.check(path: path)
        if let value = manifest[.attributionVoices], let (unknown, voices) = try unknownAttributionVoice(value) {
            throw .notShareable(
                path: path,
                reason:
                    "the manifest's attribution-voices names \(unknown), which is not a voice of the pack; expected voices of the pack (\(voices.joined(separator: ", ")))"
            )
        }
        var warnings: [String] = []
        for (key, example) in [(PackManifest.Key.name, "my-voice"), (.version, "1.0.0")] where manifest[key] == nil {
            throw .notShareable(
                path: path,
                reason:
                    "the pack has no \(key.rawValue), which an install needs; expected a manifest with one, such as \(key.rawValue)=\(example)"
            )
        }
        let asked: [(PackManifest.Key, String)] = [
            (.license, "under which license others may use the voice (an SPDX expression such as CC-BY-4.0)"),
            (.consent, "the speaker's consent statement (that they agreed to this voice being made and shared)"),
        ]
        for (key, what) in asked where manifest[key] == nil {
            let message =
                "the pack has no \(key.rawValue): \(what); expected a manifest with one"
            guard force else { throw .notShareable(path: path, reason: message + ", or a forced publish") }
            warnings.append("\(path): \(message)")
        }
        let partial = PartialPath(for: output)
        defer { Self.removeDatabaseFiles(partial.temporaryPath) }
        Self.removeDatabaseFiles(partial.temporaryPath)
        do throws(VoicebankError) {
            try database.prepare("VACUUM INTO ?").bind(.text(partial.temporaryPath)).run()
            // VACUUM INTO keeps the source's WAL mode in the copy's header; a pack to hand on is one file, which a
            // reader on a read-only file system can open without making a -shm file beside it. A source of an older
            // schema, read as it is, is upgraded in the copy with its clips measured.
            try VoicePack.openForChanges(path: partial.temporaryPath).database.execute(
                "PRAGMA journal_mode = DELETE")
        } catch {
            throw .store(Self.renamed(error, from: partial.temporaryPath, to: output))
        }
        let (digest, byteCount) = try SHA256.file(partial.temporaryPath)
        guard rename(partial.temporaryPath, output) == 0 else {
            throw .fileSystem(path: output, reason: String(cString: strerror(errno)))
        }
        return SharedPack(path: output, manifest: manifest, sha256: digest, byteCount: byteCount, warnings: warnings)
    }

    /// The first voice `attribution-voices` names (`identifiers`, checked already for their form) that is not one of
    /// the pack's, with the pack's voices; `nil` when each is: an attribution for a voice that is not there credits
    /// nobody.
    ///
    /// - Throws: `.store`.
    private func unknownAttributionVoice(_ identifiers: String) throws(SharingError) -> (String, [String])? {
        let voices: [String]
        do throws(VoicebankError) { voices = try self.voices().map(\.identifier) } catch { throw .store(error) }
        let unknown = identifiers.split(separator: ",").map(String.init).first { !voices.contains($0) }
        return unknown.map { ($0, voices) }
    }

    /// Removes a database file and the journal files SQLite may have made beside it.
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// `error` as it would read had the file at `temporary` been at `path`: a check of a private copy reports the file
    /// the person named.
    static func renamed(_ error: SharingError, from temporary: String, to path: String) -> SharingError {
        let swap = { (value: String) in value == temporary ? path : value }
        switch error {
        case .store(let error): return .store(renamed(error, from: temporary, to: path))
        case .fileSystem(let p, let reason): return .fileSystem(path: swap(p), reason: reason)
        case .notShareable(let p, let reason): return .notShareable(path: swap(p), reason: reason)
        default: return error
        }
    }

    /// The store's `error`, renamed as `renamed(_:from:to:)` does.
    static func renamed(_ error: VoicebankError, from temporary: String, to path: String) -> VoicebankError {
        let swap = { (value: String) in value == temporary ? path : value }
        switch error {
        case .noPack(let p): return .noPack(path: swap(p))
        case .notAVoicePack(let p, let reason): return .notAVoicePack(path: swap(p), reason: reason)
        case .newerSchema(let p, let version, let supported):
            return .newerSchema(path: swap(p), version: version, supported: supported)
        case .sqlite(let p, let sql, let message): return .sqlite(path: swap(p), sql: sql, message: message)
        case .damagedPack(let p, let message): return .damagedPack(path: swap(p), message: message)
        case .foreignSchemaObject(let p, let kind, let name):
            return .foreignSchemaObject(path: swap(p), kind: kind, name: name)
        case .incompleteSchema(let p, let detail): return .incompleteSchema(path: swap(p), detail: detail)
        case .damagedClip(let p, let clipID, let phrase, let damage):
            return .damagedClip(path: swap(p), clipID: clipID, phrase: phrase, damage: damage)
        case .damagedVoice(let p, let voice, let field, let value, let expected):
            return .damagedVoice(path: swap(p), voice: voice, field: field, value: value, expected: expected)
        case .readOnlyPack(let p, let reason): return .readOnlyPack(path: swap(p), reason: reason)
        case .busy(let p): return .busy(path: swap(p))
        case .diskFull(let p): return .diskFull(path: swap(p))
        case .noVoice(let p): return .noVoice(path: swap(p))
        default: return error
        }
    }
}

/// A pack file as `publish` wrote it or `install` put it in place.
public struct SharedPack: Sendable {
    public var path: String
    public var manifest: PackManifest
    /// The file's SHA-256, 64 lowercase hexadecimal digits: what `voicebank install --sha256` checks.
    public var sha256: String
    public var byteCount: Int
    /// What the person should know but did not stop the step: one line each.
    public var warnings: [String]
}

/// Installing shared packs where every tool finds them (`InstalledPacks`), and removing them.
public enum PackInstaller {
    /// The most bytes one clip's render-ready audio may hold in an installed pack: 15 minutes at 22050 Hz (import
    /// makes far shorter clips; a larger one is a crafted file meant to exhaust memory on its first render).
    public static let maximumRenderReadyBytes = 15 * 60 * 22_050 * 4
    /// The most bytes one clip's original audio may hold: 15 minutes of 8 channels of 96 kHz 64-bit samples.
    public static let maximumOriginalBytes = 15 * 60 * 96_000 * 8 * 8

    /// What an installed pack replaced, if anything.
    public struct Installed: Sendable {
        public var pack: SharedPack
        /// The version of the pack of the same name that was there before, or `"(unreadable)"`.
        public var replacedVersion: String?
    }

    /// Checks `file` and copies it into `scope`'s folder as `NAME.sqlite`, NAME from its manifest. The checks run
    /// on the copy, so what is checked is what is installed: an SQLite file whose header fits its size, SQLite's
    /// `quick_check`, nothing but the store's own tables and indexes, a schema this version reads (an older one is
    /// upgraded in the copy), clips no larger than the caps, a manifest that parses with a name and a version, and at
    /// least one voice whose settings are sound. A pack of the same name is replaced only by a newer version, or
    /// with `force`; the replacement is one rename, so a reader sees the old pack or the new one.
    ///
    /// - Parameter sha256: the SHA-256 the file must have (64 hexadecimal digits), as `publish` printed it.
    /// - Throws: `SharingError.notShareable` naming `file` and what is wrong; `.store` with `.notAVoicePack`,
    ///   `.newerSchema`, `.foreignSchemaObject`, `.damagedPack` and the other open errors, naming `file`;
    ///   `.fileSystem`.
    public static func install(
        _ file: String, scope: InstalledPacks.Scope, sha256 expected: String? = nil, force: Bool = false
    ) throws(SharingError) -> Installed {
        try checkHeader(ofFileAt: file, reportedAs: file)
        let folder = InstalledPacks.folder(scope)
        try makeFolders(folder)
        let partial = PartialPath(for: folder + "/install.sqlite")
        defer { VoicePack.removeDatabaseFiles(partial.temporaryPath) }
        let (digest, byteCount) = try copy(file, to: partial.temporaryPath)
        if let expected, digest != expected.lowercased() {
            throw .notShareable(
                path: file,
                reason:
                    "its SHA-256 is \(digest), not \(expected.lowercased()) as the expected SHA-256 says; the file is not the one published (a damaged or changed download?), and nothing was installed"
            )
        }
        let manifest: PackManifest
        let voices: [String]
        do throws(SharingError) {
            try checkHeader(ofFileAt: partial.temporaryPath, reportedAs: partial.temporaryPath)
            (manifest, voices) = try checkedCopy(partial.temporaryPath)
        } catch {
            throw VoicePack.renamed(error, from: partial.temporaryPath, to: file)
        }
        // `checkedCopy` required both.
        let name = manifest.name!
        let version = manifest.version!
        let target = "\(folder)/\(name).sqlite"
        var replaced: String?
        if fileExists(target) {
            let installed = try? VoicePack(path: target, access: .readOnly).manifest().version
            replaced = installed?.description ?? "(unreadable)"
            if let installed, !(installed < version), !force {
                throw .notShareable(
                    path: file,
                    reason:
                        "pack \(name) \(installed) is already installed at \(target), and this one is version \(version); install a newer version, or force the install to replace it"
                )
            }
        }
        guard rename(partial.temporaryPath, target) == 0 else {
            throw .fileSystem(path: target, reason: String(cString: strerror(errno)))
        }
        // A journal of the pack this one replaced belongs to it, not to the new file.
        unlink(target + "-wal")
        unlink(target + "-shm")
        return Installed(
            pack: SharedPack(
                path: target, manifest: manifest, sha256: digest, byteCount: byteCount,
                warnings: sharedVoices(voices, besides: target)),
            replacedVersion: replaced)
    }

    /// A warning for each of `voices` that another installed pack has too: `--voice` alone cannot choose between
    /// them.
    private static func sharedVoices(_ voices: [String], besides path: String) -> [String] {
        var warnings: [String] = []
        for other in InstalledPacks.list() where other.path != path {
            guard let theirs = try? VoicePack(path: other.path, access: .readOnly).voices().map(\.identifier) else {
                continue
            }
            for voice in voices where theirs.contains(voice) {
                warnings.append(
                    "voice \(voice) is also in the installed pack \(other.name) (\(other.path)); name its pack to say which to use, or uninstall one"
                )
            }
        }
        return warnings
    }

    /// Removes the installed pack `name` from `scope`'s folder.
    ///
    /// - Returns: the path removed.
    /// - Throws: `SharingError.notShareable` when no pack of that name is installed there, `.fileSystem`.
    public static func uninstall(_ name: String, scope: InstalledPacks.Scope) throws(SharingError) -> String {
        let installed = InstalledPacks.list([scope])
        guard let pack = installed.first(where: { $0.name == name }) else {
            let names = installed.map(\.name)
            throw .notShareable(
                path: InstalledPacks.folder(scope),
                reason:
                    "no pack \(VoicebankError.quoted(name)) is installed here; installed: \(names.isEmpty ? "none" : names.joined(separator: ", "))"
            )
        }
        guard unlink(pack.path) == 0 else {
            throw .fileSystem(path: pack.path, reason: String(cString: strerror(errno)))
        }
        unlink(pack.path + "-wal")
        unlink(pack.path + "-shm")
        return pack.path
    }

    /// Refuses what is not a single SQLite file, naming what it looks like, and a header whose page count does not
    /// fit the file's size (a truncated download, or a crafted header).
    static func checkHeader(ofFileAt path: String, reportedAs name: String) throws(SharingError) {
        let header: [UInt8]
        let size: Int
        do throws(FileError) {
            let file = try ReadableFile(path: path)
            header = try file.descriptor.read(upTo: 512)
            size = fileSize(path) ?? 0
        } catch {
            guard !error.isNoSuchFile else {
                throw .notShareable(
                    path: name, reason: "there is no such file; expected a pack file `voicebank publish` wrote")
            }
            throw .fileSystem(path: name, reason: error.reason)
        }
        let sqliteMagic = Array("SQLite format 3\0".utf8)
        guard header.count >= 100, Array(header.prefix(16)) == sqliteMagic else {
            throw .notShareable(
                path: name,
                reason:
                    "it is \(describe(header)), not a voice pack; expected the single .sqlite file that `voicebank publish` writes"
            )
        }
        let bigEndian = { (offset: Int, count: Int) in
            header[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            throw .notShareable(path: name, reason: "its header's page size \(rawPageSize) is not one SQLite writes")
        }
        // The header's page count is valid when the version-valid-for number matches the change counter; SQLite
        // versions before 3.7.0 left it unset, and then the size alone must be whole pages.
        let pageCount = bigEndian(28, 4)
        let isCountValid = pageCount > 0 && bigEndian(92, 4) == bigEndian(24, 4)
        guard size % pageSize == 0, !isCountValid || pageCount * pageSize == size else {
            throw .notShareable(
                path: name,
                reason:
                    "it is \(size) bytes, but its header says \(isCountValid ? "\(pageCount) pages of \(pageSize) bytes (\(pageCount * pageSize) bytes)" : "pages of \(pageSize) bytes"); it is truncated or damaged: download or copy it again"
            )
        }
    }

    /// What a file that is not SQLite looks like, from its first bytes.
    static func describe(_ header: [UInt8]) -> String {
        let starts = { (bytes: [UInt8]) in header.starts(with: bytes) }
        if header.isEmpty { return "empty" }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return "a zip archive" }
        if starts([0x1F, 0x8B]) { return "gzip-compressed (a .tar.gz?)" }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz-compressed" }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return "zstd-compressed" }
        if starts([0x42, 0x5A, 0x68]) { return "bzip2-compressed" }
        if header.count >= 262, Array(header[257..<262]) == Array("ustar".utf8) { return "a tar archive" }
        if starts(Array("SQLite format 3\0".utf8)) { return "an SQLite file too short to have a header" }
        if starts(Array("<".utf8)) || starts(Array("<!".utf8)) {
            return "an HTML or XML page (a download's error page?)"
        }
        return "not an SQLite file"
    }

    /// Opens the copy as a pack (refusing foreign objects and a newer schema, upgrading an older one), checks it,
    /// measures the take features of clips that lack them (a pack from before schema 8) once the checks have passed,
    /// and leaves it in rollback-journal mode, checkpointed, so that it can be read from a folder its reader cannot
    /// write.
    ///
    /// - Returns: its manifest and its voices' identifiers.
    static func checkedCopy(_ path: String) throws(SharingError) -> (PackManifest, [String]) {
        let pack: VoicePack
        let oversized: (Int, String, Int, Int)?
        do throws(VoicebankError) {
            pack = try VoicePack(path: path, access: .readWrite)
            let problems = try pack.quickCheck()
            guard problems == ["ok"] else {
                throw .damagedPack(path: path, message: problems.prefix(3).joined(separator: "; "))
            }
            oversized = try pack.oversizedClip()
        } catch {
            throw .store(error)
        }
        if let (clipID, column, bytes, limit) = oversized {
            throw .notShareable(
                path: path,
                reason:
                    "clip #\(clipID) holds \(bytes) bytes of \(column) audio, more than the \(limit) bytes an installed pack may hold (\(limit / (22_050 * 4 * 60)) minutes of render-ready audio); it is damaged or crafted"
            )
        }
        let manifest: PackManifest
        do throws(VoicebankError) { manifest = try pack.manifest() } catch { throw .store(error) }
        try manifest.check(path: path)
        for (key, example) in [(PackManifest.Key.name, "my-voice"), (.version, "1.0.0")] where manifest[key] == nil {
            throw .notShareable(
                path: path,
                reason:
                    "its manifest has no \(key.rawValue), which an installed pack needs; expected a manifest with one, such as \(key.rawValue)=\(example), which its author sets"
            )
        }
        do throws(VoicebankError) {
            let voices = try pack.voices()
            guard !voices.isEmpty else { throw .noVoice(path: path) }
            for voice in voices { _ = try pack.clipIndex(voice: voice.identifier) }
            _ = try pack.database.transaction { () throws(VoicebankError) in try pack.measureTakeFeatures(voice: nil) }
            try pack.database.execute("PRAGMA journal_mode = DELETE")
            return (manifest, voices.map(\.identifier))
        } catch {
            throw .store(error)
        }
    }

    private static func makeFolders(_ folder: String) throws(SharingError) {
        var path = ""
        for component in folder.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw .fileSystem(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Copies `source` to a new file `destination`, returning the SHA-256 of what was copied and its size.
    private static func copy(_ source: String, to destination: String) throws(SharingError) -> (String, Int) {
        let input: ReadableFile
        do throws(FileError) { input = try ReadableFile(path: source) } catch {
            throw .fileSystem(path: source, reason: error.reason)
        }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw .fileSystem(path: destination, reason: String(cString: strerror(errno))) }
        defer { close(output) }
        var hash = SHA256()
        var total = 0
        while true {
            let chunk: [UInt8]
            do throws(FileError) { chunk = try input.descriptor.read(upTo: 1 << 20) } catch {
                throw .fileSystem(path: source, reason: error.reason)
            }
            if chunk.isEmpty { break }
            hash.update(chunk)
            total += chunk.count
            let failure = chunk.withUnsafeBytes { bytes -> FileError? in
                do throws(FileError) { try FileDescriptor(rawValue: output).write(bytes) } catch { return error }
                return nil
            }
            if let failure { throw .fileSystem(path: destination, reason: failure.reason) }
        }
        guard fsync(output) == 0 else { throw .fileSystem(path: destination, reason: String(cString: strerror(errno))) }
        return (hash.hexDigest(), total)
    }
}

extension PackManifest {
    /// `check()`, its error naming the pack at `path`.
    func check(path: String) throws(SharingError) {
        do throws(SharingError) { try check() } catch { throw .notShareable(path: path, reason: error.description) }
    }
}

extension VoicePack {
    /// SQLite's `quick_check`: the b-trees and their pages, without the index-to-table cross-check of
    /// `integrity_check`; `["ok"]` for a sound file.
    func quickCheck() throws(VoicebankError) -> [String] {
        let statement = try database.prepare("PRAGMA quick_check(10)")
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0)) }
        return lines
    }

    /// The first clip whose audio exceeds `PackInstaller`'s caps: its id, which audio, its size and the cap.
    func oversizedClip() throws(VoicebankError) -> (Int, String, Int, Int)? {
        let render = PackInstaller.maximumRenderReadyBytes
        let original = PackInstaller.maximumOriginalBytes
        let statement = try database.prepare(
            "SELECT id, length(pcm), length(original_pcm) FROM clip WHERE length(pcm) > ? OR length(original_pcm) > ? LIMIT 1"
        ).bind(.integer(render), .integer(original))
        guard try statement.step() else { return nil }
        if statement.int(1) > render { return (statement.int(0), "render-ready", statement.int(1), render) }
        return (statement.int(0), "original", statement.int(2), original)
    }
}

/// SHA-256 through Nettle.
struct SHA256 {
    private var context = sha256_ctx()

    init() { nettle_sha256_init(&context) }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { nettle_sha256_update(&context, $0.count, $0.baseAddress) }
    }

    /// The digest as 64 lowercase hexadecimal digits; the context starts over.
    mutating func hexDigest() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_sha256_digest(&context, digest.count, &digest)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of the file at `path`, and its size.
    static func file(_ path: String) throws(SharingError) -> (String, Int) {
        do throws(FileError) {
            let file = try ReadableFile(path: path)
            var hash = SHA256()
            var total = 0
            while true {
                let chunk = try file.descriptor.read(upTo: 1 << 20)
                if chunk.isEmpty { break }
                hash.update(chunk)
                total += chunk.count
            }
            return (hash.hexDigest(), total)
        } catch {
            throw .fileSystem(path: path, reason: error.reason)
        }
    }
}
