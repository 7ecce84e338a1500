// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// tools/generate-shell-support: the completion scripts and man pages an installer puts in place.
@Suite struct ShellSupportTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let script = Binary(path: repository + "/tools/generate-shell-support")
    let directory = TemporaryDirectory("shell-support")
    /// The folder of the built tools, as the test bundle sees them.
    let binaries = (Binary("voicebank").path as NSString).deletingLastPathComponent
    var share: String { directory.file("share") }

    static let tools = ["voicebank", "concat-synth"]

    func generate() throws {
        let result = try script.run(["--bin", binaries, share])
        try #require(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasSuffix("completions and man pages of voicebank concat-synth in \(share)\n"))
    }

    /// What bash offers after `line`, from the generated completion script alone, in a fresh shell.
    func bashCompletions(_ tool: String, _ line: String) throws -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let program = """
            source "$1"
            COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}; read -r -a COMP_WORDS <<<"$2"
            [[ $2 == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _\(tool) "\(tool)" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Binary(path: "/bin/bash").run(
            ["-c", program, "bash", "\(share)/bash-completion/completions/\(tool)", words.joined(separator: " ")],
            environment: ["PATH": binaries + ":/usr/bin:/bin"])
        try #require(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test("completion scripts for bash, zsh and fish: bash parses them and completes subcommands and options")
    func completions() throws {
        try generate()

        for tool in Self.tools {
            let bash = "\(share)/bash-completion/completions/\(tool)"
            let parsed = try Binary(path: "/bin/bash").run(["-n", bash])
            #expect(parsed.status == 0 && parsed.standardError == "", "bash -n \(bash): \(parsed.standardError)")
            #expect(try String(contentsOfFile: bash, encoding: .utf8).hasSuffix("-F _\(tool) \(tool)\n"))
            let zsh = try String(contentsOfFile: "\(share)/zsh/site-functions/_\(tool)", encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef \(tool)\n"))
            let fish = try String(contentsOfFile: "\(share)/fish/vendor_completions.d/\(tool).fish", encoding: .utf8)
            #expect(fish.contains("complete -c '\(tool)' "))
        }
        #expect(try bashCompletions("voicebank", "voicebank im") == ["import"])
        #expect(try bashCompletions("concat-synth", "concat-synth ren") == ["render"])
        #expect(try bashCompletions("voicebank", "voicebank import --strict-t") == ["--strict-transcript"])
        #expect(try bashCompletions("concat-synth", "concat-synth render --mar") == ["--markers"])
    }

    @Test("man pages are roff that groff reads without a warning and man shows with each subcommand and option")
    func manPages() throws {
        try generate()

        for (tool, expected) in [
            ("voicebank", ["create", "import", "--transcript", "--keep-going", "words"]),
            ("concat-synth", ["render", "--markers", "--strict", "voices"]),
        ] {
            let page = "\(share)/man/man1/\(tool).1"
            let groff = try requireTool("groff", package: "groff-base").run(["-mdoc", "-Tutf8", "-ww", "-z", page])
            #expect(groff.status == 0)
            #expect(groff.standardError == "", "groff warns about \(page)")
            let man = try requireTool("man", package: "man-db").run(
                ["-l", page], environment: ["MANPAGER": "cat", "MANWIDTH": "120", "LC_ALL": "C.UTF-8"])
            #expect(man.status == 0, "\(man.standardError)")
            #expect(man.standardOutput.contains("NAME"))
            #expect(man.standardOutput.contains("\(tool) —"))
            for word in expected {
                #expect(man.standardOutput.contains(word), "\(tool).1 mentions \(word)")
            }
        }
    }

    @Test("no output folder is a usage error (64); a folder without the tools is a one-line error (1)")
    func errors() throws {
        let usage = try script.run([])
        #expect(usage.status == 64)
        #expect(usage.standardError.hasPrefix("usage: "))

        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let missing = try script.run(["--bin", empty, share])
        #expect(missing.status == 1)
        #expect(
            missing.standardError
                == "error: no voicebank in \(empty); expected the folder of the built tools\n")
        #expect(!FileManager.default.fileExists(atPath: share))
    }
}
