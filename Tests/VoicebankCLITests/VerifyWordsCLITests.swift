// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// `voicebank verify --words`: takes spoken by espeak-ng's program (`espeak-ng -w`), heard by Debian's pocketsphinx.
@Suite struct VerifyWordsCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("verify-words")
    var bank: String { directory.file("pack.sqlite") }

    static let compass = ["east", "west", "north", "south", "good morning", "hello"]

    /// `text` spoken by espeak-ng into `name`.wav (`voice` an espeak-ng voice); the file's path.
    func spoken(_ text: String, as name: String, voice: String = "en-us") throws -> String {
        let path = directory.file("\(name).wav")
        let result = try requireTool("espeak-ng", package: "espeak-ng").run(["-v", voice, "-w", path, text])
        try #require(result.status == 0, "espeak-ng: \(result.standardError)")
        return path
    }

    /// A voice with a take of each compass phrase, named after its file, and a fallback clip.
    func compassVoice(_ identifier: String = "com.example.compass") throws {
        let created = try voicebank.run([
            "create", "--bank", bank, "--voice", identifier, "--name", "Compass", "--language", "en-US",
        ])
        try #require(created.status == 0, "\(created.standardError)")
        let takes = try Self.compass.map { try spoken($0, as: $0.replacingOccurrences(of: " ", with: "_")) }
        let beep = directory.file("beep.wav")
        try #require(
            try requireTool("sox", package: "sox").run(["-n", "-r", "22050", beep, "synth", "0.3", "sine", "660"])
                .status == 0
        )
        for arguments in [takes, ["--fallback", beep]] {
            let imported = try voicebank.run(["import", "--bank", bank, "--voice", identifier] + arguments)
            try #require(imported.status == 0, "\(imported.standardError)")
        }
    }

    @Test("a take whose audio says another word than its phrase is flagged, and only that take")
    func wrongWord() throws {
        try compassVoice()
        let clean = try voicebank.run(["verify", "--bank", bank, "--words"])
        #expect(clean.status == 0, "\(clean.standardOutput)")
        #expect(clean.standardOutput == "")
        #expect(clean.standardError == "\(bank): no problems found\n")

        // Black and Lenzo's fault: the speaker said "west" where the transcript says "east".
        let wrong = try spoken("west", as: "take2")
        #expect(try voicebank.run(["import", "--bank", bank, "--text", "east", wrong]).status == 0)
        let listed = try voicebank.run(["list", "--bank", bank, "--json"])
        let clips = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        let wrongID = try #require(clips.last?["id"] as? Int)

        let text = try voicebank.run(["verify", "--bank", bank, "--words"])
        let json = try voicebank.run(["verify", "--bank", bank, "--words", "--json"])

        #expect(text.status == 1)
        #expect(
            text.standardOutput
                == "words: clip #\(wrongID): \"east\" sounds like \"west\" to the recogniser; listen to it, and record it again or import it with the phrase \"west\"\n"
        )
        #expect(text.standardError == "\(bank): 1 problem found\n")
        #expect(json.status == 1)
        let problems = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(problems.map { $0["kind"] as? String } == ["words"])
        #expect(problems.map { $0["clip"] as? Int } == [wrongID])

        // Without --words, verify does not listen: the pack has no other problem.
        #expect(try voicebank.run(["verify", "--bank", bank]).status == 0)
    }

    @Test("a Japanese voice is skipped with a note, and a phrase with a word the dictionary lacks is a note per take")
    func skipped() throws {
        try compassVoice()
        let unknown = try spoken("zorbleflux", as: "zorbleflux")
        #expect(try voicebank.run(["import", "--bank", bank, unknown]).status == 0)
        let created = try voicebank.run([
            "create", "--bank", bank, "--voice", "com.example.ja", "--name", "Hana", "--language", "ja-JP",
        ])
        try #require(created.status == 0)
        let konnichiwa = try spoken("こんにちは", as: "konnichiwa", voice: "ja")
        let beep = directory.file("beep.wav")
        for arguments in [["--text", "こんにちは", konnichiwa], ["--fallback", beep]] {
            let imported = try voicebank.run(["import", "--bank", bank, "--voice", "com.example.ja"] + arguments)
            try #require(imported.status == 0, "\(imported.standardError)")
        }

        let result = try voicebank.run(["verify", "--bank", bank, "--words"])

        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput == "")
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 3, "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("note: clip #")
                    && $0.hasSuffix("\"zorbleflux\" not checked: the recogniser's dictionary has no \"zorbleflux\"")
            })
        #expect(
            lines.contains("note: voice com.example.ja (ja-JP) not checked: the recogniser hears English only"))
        #expect(lines.last == "\(bank): no problems found")
    }

    /// Runs `voicebank arguments` where `hidden` (a file or folder) reads as nothing: a private mount namespace
    /// (`unshare`, mapping the user to root where the kernel allows), with /dev/null bound over a file or an empty
    /// tmpfs over a folder. `nil`, with a notice, where no namespace can be made.
    func runHiding(_ hidden: String, _ arguments: [String]) throws -> Binary.Result? {
        let isFolder =
            (try? FileManager.default.attributesOfItem(atPath: hidden)[.type] as? FileAttributeType)
            == .typeDirectory
        let mount = isFolder ? "mount -t tmpfs none \"$1\"" : "mount --bind /dev/null \"$1\""
        let script = "\(mount) || exit 99; shift; exec \"$@\""
        let result = try requireTool("unshare", package: "util-linux").run(
            ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", script, "sh", hidden, voicebank.path]
                + arguments)
        if result.status == 99 || result.standardError.contains("unshare:") {
            print("notice: \(#function) skipped: no private mount namespace here (\(result.standardError))")
            return nil
        }
        return result
    }

    /// The file dlopen loads for libpocketsphinx.so.3, as the dynamic linker's cache names it.
    func pocketsphinxLibrary() throws -> String {
        let cache = try Binary(path: "/sbin/ldconfig").run(["-p"]).standardOutput
        let line = try #require(cache.split(separator: "\n").first { $0.contains("libpocketsphinx.so.3 ") })
        return try #require(line.split(separator: " ").last.map(String.init))
    }

    @Test("without libpocketsphinx, --words is a one-line error naming the packages; the rest of verify still runs")
    func missingLibrary() throws {
        try compassVoice()
        let library = try pocketsphinxLibrary()
        guard let words = try runHiding(library, ["verify", "--bank", bank, "--words"]),
            let plain = try runHiding(library, ["verify", "--bank", bank])
        else { return }

        #expect(words.status == 1)
        #expect(words.standardOutput == "")
        #expect(words.standardError.split(separator: "\n").count == 1, "\(words.standardError)")
        #expect(words.standardError.contains("libpocketsphinx.so.3"))
        #expect(words.standardError.contains("install Debian's libpocketsphinx3 and pocketsphinx-en-us"))
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardError == "\(bank): no problems found\n")
    }

    @Test("without the en-US model, --words is a one-line error naming pocketsphinx-en-us")
    func missingModel() throws {
        try compassVoice()
        guard let result = try runHiding("/usr/share/pocketsphinx", ["verify", "--bank", bank, "--words"]) else {
            return
        }
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("/usr/share/pocketsphinx/model/en-us/en-us/mdef is missing"))
        #expect(result.standardError.contains("install Debian's pocketsphinx-en-us"))
    }
}
