// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// `tools/install --user` into a temporary home, with the binaries this test run built, and `--uninstall`.
@Suite struct InstallTests {
    let home = TemporaryDirectory("install-home")
    /// SwiftPM's and clang's caches (the install builds the man page tool), kept out of the home under comparison.
    let caches = TemporaryDirectory("install-caches")
    var environment: [String: String?] {
        [
            "HOME": home.path, "XDG_CONFIG_HOME": nil, "XDG_DATA_HOME": nil, "XDG_CACHE_HOME": caches.path,
            "PREFIX": nil, "SPEECHD_MODULE_DIR": nil, "SPEECHD_CONFIG_DIR": nil, "CONCAT_SYNTH_BANK": nil,
        ]
    }

    func install(_ arguments: [String]) throws -> RunResult {
        let binaries = URL(fileURLWithPath: Binary("sd_concat-synth").path).deletingLastPathComponent().path
        let arguments = arguments == ["--uninstall"] ? ["--user", "--uninstall"] : ["--user", "--binaries", binaries]
        // The first install builds swift-argument-parser's generate-manual tool (about a minute on a busy machine).
        return try PrivateSpeechDispatcher.run(
            "\(PrivateSpeechDispatcher.repository)/tools/install", arguments, environment, timeoutSeconds: 600)
    }

    /// A home that has run SwiftPM, which makes ~/.local/share/bin when it builds (the install builds the man page
    /// tool with it); the install neither writes nor removes it.
    func useSwiftPM() throws {
        try FileManager.default.createDirectory(
            atPath: home.file(".local/share/bin"), withIntermediateDirectories: true)
    }

    /// Every file and folder in the home, with each file's bytes.
    func tree() throws -> [String: Data] {
        var tree: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: home.path)!
        while let path = enumerator.nextObject() as? String {
            tree[path] = FileManager.default.contents(atPath: home.file(path)) ?? Data()
        }
        return tree
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (home.file(path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: home.file(path), atomically: true, encoding: .utf8)
    }

    @Test("--uninstall removes exactly the files the install wrote and the folders it made; the tools find the pack")
    func installAndUninstall() throws {
        try write("AudioOutputMethod \"pulse\"\n", to: ".config/speech-dispatcher/speechd.conf")
        try write("#!/bin/sh\n", to: ".local/bin/my-tool")
        try useSwiftPM()
        let before = try tree()

        let installed = try install([])
        #expect(installed.status == 0, "\(installed.standardError)")
        for path in [
            ".local/bin/concat-synth", ".local/bin/voicebank", ".local/share/concat-synth/packs/default.sqlite",
            ".local/libexec/speech-dispatcher-modules/sd_concat-synth",
            ".config/speech-dispatcher/modules/concat-synth.conf",
            ".local/share/bash-completion/completions/concat-synth",
            ".local/share/bash-completion/completions/voicebank",
            ".local/share/zsh/site-functions/_concat-synth", ".local/share/zsh/site-functions/_voicebank",
            ".local/share/fish/vendor_completions.d/concat-synth.fish",
            ".local/share/fish/vendor_completions.d/voicebank.fish", ".local/share/man/man1/concat-synth.1",
            ".local/share/man/man1/voicebank.1",
        ] {
            #expect(FileManager.default.fileExists(atPath: home.file(path)), "\(path)")
            let isProgram = path.contains("/bin/") || path.contains("/libexec/")
            #expect(FileManager.default.isExecutableFile(atPath: home.file(path)) == isProgram, "\(path)")
        }
        // The completion scripts complete the subcommands, and man reads the installed pages.
        for path in [
            ".local/share/bash-completion/completions/concat-synth", ".local/share/zsh/site-functions/_concat-synth",
            ".local/share/fish/vendor_completions.d/concat-synth.fish",
        ] {
            #expect(try String(contentsOfFile: home.file(path), encoding: .utf8).contains("render"), "\(path)")
        }
        for (tool, subcommand) in [("concat-synth", "render"), ("voicebank", "import")] {
            let man = try PrivateSpeechDispatcher.run(
                "/usr/bin/man", ["-l", home.file(".local/share/man/man1/\(tool).1")],
                ["MANPAGER": "cat", "MANWIDTH": "120", "LC_ALL": "C.UTF-8"])
            #expect(man.status == 0, "\(man.standardError)")
            #expect(man.standardOutput.contains("\(tool) —") && man.standardOutput.contains(subcommand))
        }
        // The installed tools find the installed pack from their own folder, not the clone's.
        let rendered = try PrivateSpeechDispatcher.run(
            home.file(".local/bin/concat-synth"), ["render", "-o", "-", "hello"], environment)
        #expect(
            rendered.status == 0 && rendered.standardOutputBytes.count > 4 * 22_050 / 10, "\(rendered.standardError)")
        let info = try PrivateSpeechDispatcher.run(home.file(".local/bin/voicebank"), ["info"], environment)
        #expect(info.standardOutput.hasPrefix(home.file(".local/share/concat-synth/packs/default.sqlite")))
        // The default pack is an installed pack like any other, in rollback-journal mode (header bytes 18 and 19 are
        // 1, not WAL's 2), which other users can read without writing its folder.
        let packs = try PrivateSpeechDispatcher.run(home.file(".local/bin/voicebank"), ["packs"], environment)
        #expect(packs.standardOutput.hasPrefix("default\t2.0.0\tCC-BY-SA-3.0\t"), "\(packs.standardOutput)")
        let header = try Data(
            contentsOf: URL(fileURLWithPath: home.file(".local/share/concat-synth/packs/default.sqlite")))
        #expect(header[18] == 1 && header[19] == 1)
        // The configuration names no one pack, so the module speaks every installed voice; the default pack, which
        // is also the user's installed pack "default", counts once.
        let configuration = home.file(".config/speech-dispatcher/modules/concat-synth.conf")
        let lines = try String(contentsOfFile: configuration, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains("# VoicePack \"/path/to/my-voice.sqlite\""))
        #expect(!lines.contains { $0.hasPrefix("VoicePack") })
        let module = try Binary(path: home.file(".local/libexec/speech-dispatcher-modules/sd_concat-synth")).run(
            [configuration], environment: environment, input: Data("INIT\nQUIT\n".utf8))
        #expect(
            module.standardOutput.hasPrefix(
                "299-concat-synth: voice pack \(home.file(".local/share/concat-synth/packs/default.sqlite")), 2 voices\n"
            ),
            "\(module.standardOutput)\(module.standardError)")

        let uninstalled = try install(["--uninstall"])
        #expect(uninstalled.status == 0, "\(uninstalled.standardError)")
        let after = try tree()
        #expect(
            after == before,
            "changed: \(Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted())")
    }

    @Test("a concat-synth.conf the install did not write is kept by the install and by --uninstall")
    func ownConfiguration() throws {
        let own = "VoicePack \"/srv/packs/mine.sqlite\"\n"
        try write(own, to: ".config/speech-dispatcher/modules/concat-synth.conf")
        try useSwiftPM()
        let before = try tree()
        #expect(try install([]).status == 0)
        #expect(
            try String(
                contentsOfFile: home.file(".config/speech-dispatcher/modules/concat-synth.conf"), encoding: .utf8)
                == own)
        #expect(try install(["--uninstall"]).status == 0)
        #expect(try tree() == before)
    }
}
