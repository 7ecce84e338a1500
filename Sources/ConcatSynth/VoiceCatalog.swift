// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every voice the tools can speak with when no pack is named: those of the default pack (`$CONCAT_SYNTH_BANK`, else
/// the default pack, as `PackLocation.resolve(nil)` finds it) and of every installed pack (`voicebank install`), each
/// pack file once however many ways it is found.
///
/// `concat-synth voices` lists it, `--voice ID` with no `--bank` finds its pack in it, and the speech-dispatcher
/// module and the Wyoming server speak its voices (`SynthesizerPools`).
///
/// ```swift
/// let catalog = try VoiceCatalog()
/// for warning in catalog.warnings { print("warning: \(warning)") }   // packs that could not be opened
/// for entry in catalog.voices { print(entry.voice.identifier, entry.pack.name ?? "", entry.pack.path) }
/// let pack = try catalog.pack(ofVoice: "com.example.ann")
/// let synthesizer = try Synthesizer(bank: pack.path, voice: "com.example.ann")
/// ```
public struct VoiceCatalog: Sendable {
    /// A pack of the catalog: its file, and what its manifest says of it (`nil` where the manifest says nothing).
    public struct Pack: Equatable, Sendable {
        /// The pack file's path, as it was found.
        public var path: String
        /// The manifest's name, which an installed pack's file is named after: `my-voice`.
        public var name: String?
        /// The manifest's version, a semantic version: `1.2.0`.
        public var version: String?
        /// Whom to credit for its voices, or for those of them its manifest's `attribution-voices` names
        /// (`Entry.attribution` is each voice's).
        public var attribution: String?
        /// The pack's web page.
        public var url: String?
        /// The pack's license, an SPDX expression: `CC-BY-4.0`.
        public var license: String?
    }

    /// A voice, and the pack it is in.
    public struct Entry: Equatable, Sendable {
        /// The voice's identifier, name, languages and normal rate.
        public var voice: VoiceSettings
        /// The pack the voice is in.
        public var pack: Pack
        /// Whom to credit for this voice: the pack's attribution, unless the manifest says it concerns other voices of
        /// the pack only (`attribution-voices`).
        public var attribution: String?
    }

    /// The packs that could be opened, at least one: the default pack first, then the user's installed packs, then
    /// the system's.
    public let packs: [Pack]
    /// Every voice of every pack, in the order of `packs` and then each pack's own. A voice identifier in two packs
    /// is here twice.
    public let voices: [Entry]
    /// A sentence for each pack left out because it could not be opened, naming it and why.
    public let warnings: [String]

    /// The voices of the pack at `bank`; with no `bank`, those of the default pack and of every installed pack, where
    /// a pack that cannot be opened is left out with a warning, so that one bad file never takes down a listing or a
    /// server.
    ///
    /// - Parameters:
    ///   - bank: the one pack; with none, the default and the installed packs.
    ///   - systemPacks: the installation's packs folder (`PREFIX/share/concat-synth/packs`), for a program installed
    ///     outside its prefix, such as the speech-dispatcher module in the distribution's module folder: the default
    ///     pack is its `default.sqlite` (unless `$CONCAT_SYNTH_BANK` names another), and its packs are the system's.
    ///     Without it, both are found from the program's own folder.
    /// - Throws: `ConcatSynthError.noPack`, `.unusablePack` or `.newerPack` when `bank` cannot be opened, or, with no `bank`, when no pack can
    ///   (the default pack's error).
    public init(bank: String? = nil, systemPacks: String? = nil) throws(ConcatSynthError) {
        guard let bank else {
            try self.init(
                defaultPack: Self.defaultPack(systemPacks: systemPacks),
                installed: InstalledPacks.list(systemFolder: systemPacks).map(\.path))
            return
        }
        let read = try Self.read(bank)
        self.init(read: [read], warnings: [])
    }

    /// The default pack of `init(systemPacks:)`: `$CONCAT_SYNTH_BANK` if set, else `default.sqlite` in
    /// `systemPacks`, else the default pack found from the program's own folder (`PackLocation.resolve(nil)`).
    public static func defaultPack(systemPacks: String?) -> String {
        VoicePackLocation.resolve(
            nil, defaultPack: systemPacks.map { "\($0)/default.sqlite" } ?? PackLocation.defaultPackPath)
    }

    /// The catalog of `defaultPack` and the `installed` packs, as `init()` makes it from where the tools find them.
    package init(defaultPack: String, installed: [String]) throws(ConcatSynthError) {
        var files: Set<String> = []
        var read: [(Pack, [(VoiceSettings, attribution: String?)])] = []
        var warnings: [String] = []
        var firstError: ConcatSynthError?
        // tools/install puts the default pack among the system's installed packs; `--user` makes that folder the
        // user's own, and a pack may be reached through a link: the same file counts once.
        for path in [defaultPack] + installed where files.insert(Self.realPath(path)).inserted {
            do throws(ConcatSynthError) {
                let pack = try Self.read(path)
                // One release of a pack in two places (a clone's default pack and the copy `tools/install --user`
                // made, a pack installed for the user and for the system) is one pack: the first found speaks.
                if pack.pack.name != nil, pack.pack.version != nil,
                    read.contains(where: { $0.0.name == pack.pack.name && $0.0.version == pack.pack.version })
                {
                    continue
                }
                read.append(pack)
            } catch {
                firstError = firstError ?? error
                let which = path == defaultPack ? "the default pack" : "an installed pack"
                warnings.append("\(which) is left out: \(error)")
            }
        }
        if read.isEmpty, let firstError { throw firstError }
        self.init(read: read, warnings: warnings)
    }

    private init(read: [(pack: Pack, voices: [(VoiceSettings, attribution: String?)])], warnings: [String]) {
        packs = read.map(\.pack)
        voices = read.flatMap { pack, voices in voices.map { Entry(voice: $0, pack: pack, attribution: $1) } }
        self.warnings = warnings
    }

    /// The pack that has the voice `identifier`.
    ///
    /// - Throws: `ConcatSynthError.voiceInSeveralPacks` naming each pack that has it (a `--bank` says which is
    ///   meant); `.voiceNotInCatalog` naming the voices there are.
    public func pack(ofVoice identifier: String) throws(ConcatSynthError) -> Pack {
        let holders = voices.filter { $0.voice.identifier == identifier }.map(\.pack)
        guard holders.count < 2 else {
            throw .voiceInSeveralPacks(identifier: identifier, packPaths: holders.map(\.path))
        }
        guard let pack = holders.first else {
            throw .voiceNotInCatalog(
                identifier: identifier, available: voices.map(\.voice.identifier).uniqued, packPaths: packs.map(\.path))
        }
        return pack
    }

    /// The pack at `path`, opened read-only just long enough to read its manifest and its voices.
    private static func read(_ path: String) throws(ConcatSynthError) -> (
        pack: Pack, voices: [(VoiceSettings, attribution: String?)]
    ) {
        let opened = try PackLocation.openForReading(path)
        do throws(VoicebankError) {
            let manifest = try opened.manifest()
            // Only values that parse, printed as they parse: a pack nobody checked may hold anything, even terminal
            // escapes, and these are printed in a table.
            let pack = Pack(
                path: path, name: manifest.name.flatMap { PackManifest.isPackName($0) ? $0 : nil },
                version: manifest.version?.description, attribution: manifest[.attribution], url: manifest[.url],
                license: manifest[.license])
            return (
                pack, try opened.voices().map { ($0.settings, manifest.attribution(ofVoice: $0.identifier)) }
            )
        } catch {
            throw ConcatSynthError(store: error)
        }
    }

    /// `path` with its links and `.` and `..` resolved; as given when it cannot be (a file that is not there).
    private static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
