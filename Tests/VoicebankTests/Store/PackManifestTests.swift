// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct PackManifestTests {
    @Test("semantic versions order as Semantic Versioning 2.0.0's own example does, builds ignored")
    func versionOrder() throws {
        let ordered = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0",
        ].map { SemanticVersion($0)! }
        for (earlier, later) in zip(ordered, ordered.dropFirst()) {
            #expect(earlier < later, "\(earlier) < \(later)")
            #expect(!(later < earlier))
        }
        #expect(SemanticVersion("1.0.0+build.1") == SemanticVersion("1.0.0+build.2"))
        #expect(SemanticVersion("2.1.0-rc.1+sha.5114f85")?.description == "2.1.0-rc.1+sha.5114f85")
    }

    @Test(
        "what is not a semantic version does not parse",
        arguments: [
            "1.0", "1", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0-01", "1.0.0+", "1.0.0-a..b", "1.0.0 ", "1.-1.0",
            "99999999999999999999.0.0",
        ])
    func invalidVersion(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test(
        "SPDX expressions are checked for form and written with single spaces",
        arguments: [
            ("MIT", "MIT"),
            ("CC-BY-4.0", "CC-BY-4.0"),
            ("GPL-2.0-or-later WITH Classpath-exception-2.0", "GPL-2.0-or-later WITH Classpath-exception-2.0"),
            ("( MIT  OR Apache-2.0 )AND LicenseRef-voice", "(MIT OR Apache-2.0) AND LicenseRef-voice"),
            ("Apache-1.0+", "Apache-1.0+"),
            ("DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2", "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2"),
        ])
    func validLicense(text: String, normalized: String) throws {
        #expect(try PackManifest.checked(text, for: .license) == normalized)
    }

    @Test(
        "what is not an SPDX expression is refused with the reason",
        arguments: [
            ("MIT license", #"unexpected "license" after "MIT""#),
            ("MIT or Apache-2.0", #"unexpected "or" after "MIT""#),
            ("MIT OR", #"it ends after "OR", expected a license"#),
            ("(MIT", #"a "(" is not closed"#),
            ("MIT)", #"unexpected ")" after "MIT""#),
            ("AND MIT", #"expected a license where "AND" is"#),
            ("NOASSERTION", #""NOASSERTION" says there is no license"#),
            ("GPL-2.0 WITH", #"it ends after "WITH""#),
            ("CC BY 4.0", #"unexpected "BY" after "CC""#),
            ("Apache_2.0", #""Apache_2.0" is not a license identifier"#),
        ])
    func invalidLicense(text: String, reason: String) {
        #expect {
            try PackManifest.checked(text, for: .license)
        } throws: { error in
            (error as? SharingError)?.description.contains("(\(reason)") == true
        }
    }

    @Test("other keys: names, languages, dates, addresses and text are checked and written the one way")
    func otherKeys() throws {
        #expect(try PackManifest.checked(" my-voice_2.1 ", for: .name) == "my-voice_2.1")
        for name in ["My-voice", "-voice", ".voice", "voice/1", String(repeating: "a", count: 65), "vöice"] {
            #expect(throws: SharingError.self) { try PackManifest.checked(name, for: .name) }
        }
        #expect(try PackManifest.checked("en-us, ja-jp,en-US", for: .languages) == "en-US,ja-JP")
        #expect(try PackManifest.checked("2024-02-29", for: .date) == "2024-02-29")
        for date in ["2023-02-29", "2026-13-01", "2026-1-01", "26-11-25", "2026-11-25T10:00"] {
            #expect(throws: SharingError.self) { try PackManifest.checked(date, for: .date) }
        }
        #expect(try PackManifest.checked("https://example.org/a", for: .url) == "https://example.org/a")
        for url in ["example.org", "https://", "https://example.org/a b", "javascript:alert(1)"] {
            #expect(throws: SharingError.self) { try PackManifest.checked(url, for: .url) }
        }
        #expect(try PackManifest.checked("First line\nsecond line", for: .consent) == "First line\nsecond line")
        #expect(throws: SharingError.self) { try PackManifest.checked("Ann\nBob", for: .speaker) }
        #expect(throws: SharingError.self) { try PackManifest.checked("Ann \u{1B}[31m", for: .author) }
        #expect(throws: SharingError.self) { try PackManifest.checked("   ", for: .description) }
        let long = String(repeating: "a", count: PackManifest.maximumValueLength + 1)
        #expect(throws: SharingError.self) { try PackManifest.checked(long, for: .description) }
    }

    @Test("installed packs are found in the XDG data folder, and only files named NAME.sqlite count")
    func installedFolders() throws {
        let environment = { (values: [String: String]) in { (name: String) in values[name] } }
        #expect(
            InstalledPacks.userFolder(environment: environment(["XDG_DATA_HOME": "/data", "HOME": "/home/a"]))
                == "/data/concat-synth/packs")
        // A relative XDG_DATA_HOME is to be ignored (XDG Base Directory Specification).
        #expect(
            InstalledPacks.userFolder(environment: environment(["XDG_DATA_HOME": "data", "HOME": "/home/a"]))
                == "/home/a/.local/share/concat-synth/packs")
        #expect(
            InstalledPacks.systemFolder(executableFolder: "/usr/local/bin") == "/usr/local/share/concat-synth/packs")

        let directory = TemporaryDirectory("installed-packs")
        let packs = directory.file("packs")
        try FileManager.default.createDirectory(atPath: packs, withIntermediateDirectories: true)
        for name in [
            "ann.sqlite", "Bob.sqlite", ".install.sqlite.partial-12", "notes.txt", "ann.sqlite-wal", "b.sqlite",
        ] {
            #expect(FileManager.default.createFile(atPath: packs + "/" + name, contents: Data()))
        }
        let listed = InstalledPacks.list([.user, .system]) { $0 == .user ? packs : directory.file("none") }
        #expect(listed.map(\.name) == ["ann", "b"])
        #expect(listed.map(\.path) == [packs + "/ann.sqlite", packs + "/b.sqlite"])
        #expect(listed.map(\.scope) == [.user, .user])
        // tools/install --user makes the installation's folder the user's: its packs are listed once.
        #expect(InstalledPacks.list([.user, .system]) { _ in packs }.map(\.name) == ["ann", "b"])
    }
}
