// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Manifest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or change what a pack says of itself: name, version, license, the speaker's consent, ….",
            discussion: """
                Keys: name (also the installed file's name: lowercase letters, digits, '.', '_', '-'), version \
                (semantic: 1.0.0), description, languages (BCP 47 tags, comma-separated), author, speaker, consent \
                (the speaker's consent statement), license (an SPDX expression: CC-BY-4.0, MIT OR Apache-2.0, \
                LicenseRef-…), attribution, attribution-voices (the voices it concerns, comma-separated; all when \
                absent), url, date (YYYY-MM-DD), sample (a sentence the voice speaks well). \
                Every value is checked before any is stored. \
                Example: voicebank manifest --bank my.sqlite --set name=my-voice --set version=1.0.0 \
                --set license=CC-BY-4.0
                """)

        @OptionGroup var bank: BankOptions

        @Option(
            name: .customLong("set"),
            help: ArgumentHelp("Set a key: KEY=VALUE; repeat for several.", valueName: "key=value"))
        var assignments: [String] = []

        @Option(name: .customLong("unset"), help: ArgumentHelp("Remove a key; repeat for several.", valueName: "key"))
        var removals: [String] = []

        @Flag(help: "Print the manifest as a JSON object.")
        var json = false

        func validate() throws {
            for assignment in assignments where !assignment.contains("=") {
                throw ValidationError("--set \"\(assignment)\" has no '='; expected KEY=VALUE such as name=my-voice")
            }
        }

        func run() throws {
            let pack = try bank.open(assignments.isEmpty && removals.isEmpty ? .readOnly : .readWrite)
            var manifest = try pack.manifest()
            if !assignments.isEmpty || !removals.isEmpty {
                let setting = try assignments.map { assignment in
                    let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (try Self.key(String(parts[0])), String(parts[1]))
                }
                manifest = try pack.changeManifest(setting: setting, removing: try removals.map(Self.key))
            }
            if json {
                try printJSON(ManifestJSON(manifest))
                return
            }
            printManifest(manifest, indent: "")
        }

        static func key(_ text: String) throws(SharingError) -> PackManifest.Key {
            guard let key = PackManifest.Key(rawValue: text.trimmingSpaces) else {
                throw .unknownManifestKey(text)
            }
            return key
        }
    }

    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a clean single-file copy of a pack for others to install, and print its SHA-256.",
            discussion: """
                The copy is the pack format itself (no archive around it): vacuumed, with no -wal file. A pack with \
                no license or no consent statement in its manifest is refused (voicebank manifest sets them); \
                --force publishes it with a warning. It must have a name and a version, which an install needs. \
                Example: voicebank publish --bank my.sqlite -o my-voice-1.0.0.sqlite
                """)

        @OptionGroup var bank: BankOptions

        @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"))
        var output: String

        @Flag(help: "Publish a pack that has no license or no consent statement, with a warning.")
        var force = false

        func run() throws {
            let published = try bank.open(.readOnly).publish(to: output, force: force)
            var standardError = StandardError()
            for warning in published.warnings { print("warning: \(warning)", to: &standardError) }
            print("\(published.sha256)  \(published.path)")
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a published pack and install it where concat-synth and its servers find its voices.",
            discussion: """
                The file is copied to $XDG_DATA_HOME/concat-synth/packs/NAME.sqlite (by default \
                ~/.local/share/…), or with --system to the installation's share/concat-synth/packs/ (beside the \
                tools' bin folder), NAME from its manifest. The copy is checked before it is put \
                in place: an SQLite file whose size fits its header, SQLite's quick_check, only the tables and \
                indexes voicebank makes, a schema this version reads, no clip over the size caps, a manifest with a \
                name and a version, and voices with sound settings. A newer version replaces the installed one; an \
                older or equal one needs --force. Example: voicebank install my-voice-1.0.0.sqlite --sha256 HEX
                """)

        @Argument(help: ArgumentHelp("The pack file, as voicebank publish wrote it.", valueName: "file"))
        var file: String

        @Option(help: ArgumentHelp("The SHA-256 the file must have, as its publisher printed it.", valueName: "hex"))
        var sha256: String?

        @Flag(help: "Install for every user of this installation, not only for you.")
        var system = false

        @Flag(help: "Replace an installed pack of the same name whatever its version.")
        var force = false

        func validate() throws {
            if let sha256,
                sha256.count != 64 || !sha256.utf8.allSatisfy({ $0 < 128 && Character(UnicodeScalar($0)).isHexDigit })
            {
                throw ValidationError("--sha256 \"\(sha256)\" is not a SHA-256; expected 64 hexadecimal digits")
            }
        }

        func run() throws {
            let installed = try PackInstaller.install(
                file, scope: system ? .system : .user, sha256: sha256, force: force)
            let manifest = installed.pack.manifest
            let replaced = installed.replacedVersion.map { ", replacing version \($0)" } ?? ""
            print(
                "installed \(manifest.name ?? "") \(manifest[.version] ?? "") at \(installed.pack.path)\(replaced)")
            var standardError = StandardError()
            for warning in installed.pack.warnings { print("warning: \(warning)", to: &standardError) }
            if manifest[.license] == nil {
                print(
                    "warning: \(file) has no license in its manifest; ask its author under which terms you may use it",
                    to: &standardError)
            }
        }
    }

    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an installed pack by its name (voicebank packs lists them).")

        @Argument(help: ArgumentHelp("The pack's name.", valueName: "name"))
        var name: String

        @Flag(help: "Remove it from the installation's packs rather than yours.")
        var system = false

        func run() throws {
            print("removed \(try PackInstaller.uninstall(name, scope: system ? .system : .user))")
        }
    }

    struct Packs: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the installed packs: yours, then the installation's.",
            discussion: """
                Yours are in $XDG_DATA_HOME/concat-synth/packs (by default ~/.local/share/concat-synth/packs), the \
                installation's in share/concat-synth/packs beside the tools' bin folder. A file there that cannot be \
                read as a pack is listed with why.
                """)

        @Flag(help: "Print a JSON array of packs.")
        var json = false

        func run() throws {
            let packs = InstalledPacks.list().map(PackJSON.init)
            if json {
                try printJSON(packs)
                return
            }
            if packs.isEmpty {
                print("no packs installed; voicebank install FILE installs one")
                return
            }
            for pack in packs {
                let version = pack.version ?? "(no version)"
                let license = pack.license ?? "(no license)"
                if let problem = pack.problem {
                    print("\(pack.name)\t\(pack.scope)\t\(pack.path)\tcannot be read: \(problem)")
                } else {
                    print(
                        "\(pack.name)\t\(version)\t\(license)\t\(pack.voices.joined(separator: ","))\t\(pack.scope)\t\(pack.path)"
                    )
                }
            }
        }
    }
}

/// Prints a manifest's keys as `key: value` lines, the lines of a multi-line value indented under the first.
func printManifest(_ manifest: PackManifest, indent: String) {
    for key in PackManifest.Key.allCases {
        guard let value = manifest[key] else { continue }
        let lines = value.split(separator: "\n", omittingEmptySubsequences: false).map { printable(String($0)) }
        print("\(indent)\(key.rawValue): " + lines.joined(separator: "\n\(indent)  "))
    }
}

/// `text` with control characters escaped: a pack from someone else may hold terminal escape sequences.
func printable(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        if scalar.isUnprintable {
            result += scalar.escaped(asASCII: true)
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// The fields of `voicebank manifest --json`: the keys that are set.
struct ManifestJSON: Encodable {
    var values: [PackManifest.Key: String]

    init(_ manifest: PackManifest) { values = manifest.values }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for key in PackManifest.Key.allCases {
            guard let value = values[key] else { continue }
            if key == .languages || key == .attributionVoices {
                try container.encode(value.split(separator: ",").map(String.init), forKey: CodingKeys(key))
            } else {
                try container.encode(value, forKey: CodingKeys(key))
            }
        }
    }

    struct CodingKeys: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ key: PackManifest.Key) { stringValue = key.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The fields of `voicebank packs --json`, one installed pack.
struct PackJSON: Encodable {
    var name: String
    var version: String?
    var license: String?
    var voices: [String]
    var path: String
    var scope: String
    /// Why the file cannot be read as a pack; absent for one that can.
    var problem: String?

    init(_ pack: InstalledPacks.Pack) {
        name = pack.name
        path = pack.path
        scope = pack.scope.rawValue
        voices = []
        do {
            let opened = try VoicePack(path: pack.path, access: .readOnly)
            let manifest = try opened.manifest()
            version = manifest[.version]
            license = manifest[.license]
            voices = try opened.voices().map(\.identifier)
        } catch {
            problem = "\(error)"
        }
    }
}
