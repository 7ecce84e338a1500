// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// Docs that run: the `concat-synth` and `voicebank` commands of the shell examples in README.md and docs/*.md,
/// run against a temporary folder and a copy of the default pack, so that an example that stops working fails here.
///
/// What runs: the fenced blocks whose info string is `sh`, `shell` or `bash`. In them, a line (with the lines a
/// trailing `\` continues) runs when one of its commands is `concat-synth` or `voicebank`: its first word, or a word
/// after `|`, `&`, `;` or `(` outside quotes, such as `echo … | concat-synth render …`. The other lines do not run:
/// `tools/…` builds and installs, `swift build`, `spd-say`, `systemctl` need a system the test does not make, and
/// each has tests of its own. A block that holds a line `# docs-test: skip (reason)` does not run at all; use it
/// for a server that runs until stopped, or a command that needs files or devices no test has.
///
/// How it runs: each docs file gets a folder of its own (`DocsFolder`) holding the files its examples name, and its
/// blocks run in order in it, later blocks seeing what earlier ones made, as for a reader following the page. Each
/// command runs in `bash -e -o pipefail -c`, so pipes, globs and redirections work and a failure anywhere in a
/// pipeline counts, with the build's binaries first on `PATH`, `CONCAT_SYNTH_BANK` the copy of the default pack and
/// `HOME` the folder (whose `.asoundrc` makes ALSA's default device a file, so `say` plays without a sound card, and
/// whose `.local/share` holds the packs a page's `voicebank install` installs: no `XDG_DATA_HOME`).
/// One shell per command, rather than one per block, so that a failure names its command and line; the lines of a
/// block share no shell state anyway, since only the commands of the two tools run. After a command fails, the
/// rest of its block is skipped, as `bash -e` would.
@Suite struct DocsCommandTests {
    /// The repository: three folders up from this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// README.md and every page of docs/, as paths from the repository's root.
    static let files: [String] = {
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/docs")) ?? []
        return ["README.md"] + pages.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    @Test("every concat-synth and voicebank command in a docs file's shell blocks runs", arguments: files)
    func commandsRun(file: String) throws {
        let markdown = try String(contentsOfFile: "\(Self.root)/\(file)", encoding: .utf8)
        let folder = try DocsFolder(repository: Self.root)
        let binaries = URL(fileURLWithPath: Binary("concat-synth").path).deletingLastPathComponent().path
        let environment: [String: String?] = [
            "PATH": "\(binaries):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
            "CONCAT_SYNTH_BANK": folder.pack, "HOME": folder.directory.path, "XDG_DATA_HOME": nil,
        ]
        for block in DocsExtractor.blocks(in: markdown) where !block.isSkipped {
            for command in block.commands {
                // A command that hangs (a server nobody marked) fails after two minutes instead of stalling the suite.
                let result = try requireTool("timeout", package: "coreutils").run(
                    ["120", "bash", "-e", "-o", "pipefail", "-c", command.text], environment: environment,
                    directory: folder.directory.path)
                #expect(
                    result.status == 0,
                    "\(file):\(command.line): `\(command.text)` exited \(result.status):\n\(result.standardError)")
                if result.status != 0 { break }
            }
        }
    }

    @Test("the docs have commands to run, in README.md and in the pages a newcomer reads first")
    func docsHaveCommands() throws {
        var counts: [String: Int] = [:]
        for file in Self.files {
            let markdown = try String(contentsOfFile: "\(Self.root)/\(file)", encoding: .utf8)
            let blocks = DocsExtractor.blocks(in: markdown).filter { !$0.isSkipped }
            counts[file] = blocks.map(\.commands.count).reduce(0, +)
        }
        for file in ["README.md", "docs/speaking.md", "docs/voice-packs.md"] {
            #expect((counts[file] ?? 0) >= 5, "\(file) has \(counts[file] ?? 0) commands that run")
        }
    }

    @Test("every skipped block says why")
    func skipsSayWhy() throws {
        for file in Self.files {
            let markdown = try String(contentsOfFile: "\(Self.root)/\(file)", encoding: .utf8)
            for block in DocsExtractor.blocks(in: markdown) where block.isSkipped {
                #expect(block.skipReason?.isEmpty == false, "\(file):\(block.line): a docs-test skip without a reason")
            }
        }
    }

    @Test("the extractor takes the two tools' commands, with their lines, from sh, shell and bash blocks only")
    func extraction() {
        let markdown = """
            # Title

            ```sh
            tools/concat-synth render -o hello.wav "Hello"
            concat-synth render -o a.wav "Hello"   # a comment
            echo '<speak>Hi</speak>' | concat-synth render -o b.wav
            voicebank import --bank my.sqlite \\
                clips/*.aiff
            spd-say -o concat-synth "Hello"
            # concat-synth render in a comment
            echo "concat-synth render" && true
            ```

            ```swift
            concat-synth render -o c.wav "not shell"
            ```

            ```bash
            # docs-test: skip (a server runs until stopped)
            concat-synth serve
            ```

            ```json
            {"kind":"phrase"}
            ```
            """
        let blocks = DocsExtractor.blocks(in: markdown)
        #expect(blocks.count == 2)
        #expect(
            blocks[0].commands == [
                DocsCommand(line: 5, text: #"concat-synth render -o a.wav "Hello"   # a comment"#),
                DocsCommand(line: 6, text: #"echo '<speak>Hi</speak>' | concat-synth render -o b.wav"#),
                DocsCommand(line: 7, text: "voicebank import --bank my.sqlite \\\n    clips/*.aiff"),
            ])
        #expect(!blocks[0].isSkipped)
        #expect(blocks[1].isSkipped && blocks[1].skipReason == "(a server runs until stopped)")
    }

    @Test(
        "a command word is the first of a line or follows a pipe or a list operator, outside quotes",
        arguments: [
            ("concat-synth voices", true), ("voicebank list --json | head", true), ("true && voicebank list", true),
            ("CONCAT_SYNTH_BANK=my.sqlite concat-synth voices", true), ("(cd x; voicebank info)", true),
            ("tools/concat-synth render", false), ("spd-say -o concat-synth hi", false),
            ("echo 'a | concat-synth'", false), (#"echo "x; voicebank""#, false), ("# concat-synth voices", false),
        ])
    func commandWords(line: String, runs: Bool) {
        #expect(DocsExtractor.runs(line) == runs)
    }
}

/// One command to run: its text as the docs give it (continuation lines included) and the line it starts on.
struct DocsCommand: Equatable {
    var line: Int
    var text: String
}

/// A fenced shell block of a docs file.
struct DocsBlock {
    /// The line of its opening fence.
    var line: Int
    var commands: [DocsCommand]
    /// What follows `# docs-test: skip` in the block, if it has that line.
    var skipReason: String?
    var isSkipped: Bool { skipReason != nil }
}

/// Finds the runnable commands of a Markdown file's shell blocks (see `DocsCommandTests`).
enum DocsExtractor {
    static let tools: Set<String> = ["concat-synth", "voicebank"]
    static let shellLanguages: Set<String> = ["sh", "shell", "bash"]
    static let skipMarker = "# docs-test: skip"

    static func blocks(in markdown: String) -> [DocsBlock] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [DocsBlock] = []
        var index = 0
        while index < lines.count {
            let opening = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            let openingLine = index
            guard opening.hasPrefix("```") else { continue }
            let fence = String(opening.prefix { $0 == "`" })
            let language = opening.dropFirst(fence.count).split(separator: " ").first.map(String.init) ?? ""
            var body: [(line: Int, text: String)] = []
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix(fence) {
                body.append((index + 1, lines[index]))
                index += 1
            }
            index += 1  // the closing fence
            guard shellLanguages.contains(language) else { continue }
            blocks.append(block(openingLine: openingLine, body: body))
        }
        return blocks
    }

    private static func block(openingLine: Int, body: [(line: Int, text: String)]) -> DocsBlock {
        var result = DocsBlock(line: openingLine, commands: [])
        var pending: DocsCommand?
        for (line, text) in body {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(skipMarker) {
                result.skipReason = trimmed.dropFirst(skipMarker.count).trimmingCharacters(in: .whitespaces)
            }
            if var command = pending {
                command.text += "\n" + text
                pending = command
            } else {
                pending = DocsCommand(line: line, text: text)
            }
            // A trailing backslash continues the command on the next line.
            if text.hasSuffix("\\") { continue }
            if let command = pending, runs(command.text) { result.commands.append(command) }
            pending = nil
        }
        return result
    }

    /// Whether `command` runs one of the two tools: a word in command position (see `commandWords`) names it.
    static func runs(_ command: String) -> Bool {
        commandWords(command).contains { tools.contains($0) }
    }

    /// The words that start a simple command: the first word, and the first after `|`, `&`, `;` or `(`, skipping
    /// variable assignments (`NAME=value`). Quotes are honoured and a `#` that starts a word ends the line, so an
    /// argument or a comment that mentions a tool does not count.
    static func commandWords(_ command: String) -> [String] {
        var words: [String] = []
        var word = ""
        var isCommandPosition = true
        var quote: Character?
        var isEscaped = false
        func endWord() {
            if !word.isEmpty {
                let isAssignment = word.contains("=") && !word.hasPrefix("=")
                if isCommandPosition && !isAssignment {
                    words.append(word)
                    isCommandPosition = false
                }
            }
            word = ""
        }
        for character in command {
            if isEscaped {
                isEscaped = false
                if character != "\n" { word.append(character) }
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "\\": isEscaped = true
            case "'", "\"": quote = character
            case "#" where word.isEmpty: return words
            case " ", "\t", "\n": endWord()
            case "|", "&", ";", "(":
                endWord()
                isCommandPosition = true
            default: word.append(character)
            }
        }
        endWord()
        return words
    }
}

/// A temporary folder holding what the docs' examples name, beside a copy of the tests' screen-reader pack.
///
/// - `default.sqlite`: the screen-reader pack (`ScreenReaderPack`), copied (`$CONCAT_SYNTH_BANK`), so examples that
///   import or configure cannot change it; it stands for the default pack, which the tests do not build.
/// - `clips/*.aiff` (hello, good morning, nice to meet you, double tap to open) and `beep.aiff`: recordings named
///   after their phrases and a fallback clip, from the screen-reader pack's sources; `take2.wav`, one more take.
/// - `takes/` (`001.wav` … with `transcript.tsv`): numbered takes a transcript names.
/// - `sounds/en/` (with `core-sounds-en.txt`): a few files of an Asterisk-style prompt set, 8 kHz 16-bit WAV.
/// - `sounds/chime.wav`: a file `<audio src>` may play with `--allow-audio sounds`.
/// - `request.ssml`, `my-texts.txt`, `requests.txt`, `menu.ssml`: requests the examples read.
/// - `.asoundrc`: ALSA's default device writes to /dev/null, for `say`.
struct DocsFolder {
    let directory = TemporaryDirectory("concat-synth-docs")
    var pack: String { directory.file("default.sqlite") }

    init(repository: String) throws {
        let manager = FileManager.default
        let sources = "\(ScreenReaderPack.englishSources)/en"
        try manager.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
        try manager.createDirectory(atPath: directory.file("clips"), withIntermediateDirectories: true)
        for name in ["hello", "good_morning", "nice_to_meet_you", "double_tap_to_open"] {
            try manager.copyItem(atPath: "\(sources)/\(name).aiff", toPath: directory.file("clips/\(name).aiff"))
        }
        try manager.copyItem(atPath: "\(sources)/fallback.aiff", toPath: directory.file("beep.aiff"))
        try write(tone(hertz: 220, sampleRate: 24_000), to: "take2.wav")

        try write(tone(hertz: 330, sampleRate: 24_000), to: "takes/001.wav")
        try write(tone(hertz: 440, sampleRate: 24_000), to: "takes/002.wav")
        try write(tone(hertz: 880, sampleRate: 24_000, seconds: 0.2), to: "takes/003.wav")
        try write(
            "file\ttext\trole\n001.wav\thello\t\n002.wav\tgood morning\t\n003.wav\t\tfallback\n",
            to: "takes/transcript.tsv")

        let prompts = ["digits/1": 300.0, "digits/2": 350, "letters/a": 400, "sorry": 450, "followme/sorry": 500]
        for (name, hertz) in prompts { try write(tone(hertz: hertz, sampleRate: 8_000), to: "sounds/en/\(name).wav") }
        try write(tone(hertz: 1_000, sampleRate: 8_000, seconds: 0.2), to: "sounds/en/beep.wav")
        // `digits/mon-10` has no file, as in a partial download: a warning, not an error.
        let transcript = """
            digits/1: one
            digits/2: two
            digits/mon-10: November
            letters/a: a
            sorry: I'm sorry
            followme/sorry.wav: Sorry, they cannot be reached
            """
        try write(transcript + "\n", to: "sounds/en/core-sounds-en.txt")
        try write(tone(hertz: 660, sampleRate: 22_050, seconds: 0.3), to: "sounds/chime.wav")

        try write(
            "<speak><p><s>Good morning.</s><s>Double tap to open <mark name=\"open\"/>settings.</s></p></speak>\n",
            to: "request.ssml")
        try write("Hello, good morning. Double tap to open.\n", to: "my-texts.txt")
        try write("Hello Bob, good morning.\nOpen the settings.\n", to: "requests.txt")
        try write("<speak>Settings <break time=\"300ms\"/> double tap to open</speak>\n", to: "menu.ssml")
        try write(
            "pcm.!default { type file; slave.pcm \"null\"; file \"/dev/null\"; format \"raw\" }\n", to: ".asoundrc")

        // Takes of "hello" named with their positions, and a recording of three takes with its Audacity labels.
        for (prefix, hertz) in [("s", 240.0), ("e", 260), ("q", 280)] {
            try write(tone(hertz: hertz, sampleRate: 24_000), to: "positions/\(prefix).hello.wav")
        }
        try write(tone(hertz: 300, sampleRate: 24_000, seconds: 1.5), to: "session.wav")
        try write(
            "0.000000\t0.500000\ts.hello\n0.500000\t1.000000\tgood morning\n1.000000\t1.500000\te.goodbye\n",
            to: "session.txt")
    }

    private func write(_ text: String, to name: String) throws {
        try write(Data(text.utf8), to: name)
    }

    private func write(_ data: Data, to name: String) throws {
        let path = directory.file(name)
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A 16-bit mono WAV of a sine at half scale: a stand-in recording, distinct per frequency so that no two
    /// files are duplicate takes.
    private func tone(hertz: Double, sampleRate: Int, seconds: Double = 0.5) -> Data {
        let frameCount = Int(Double(sampleRate) * seconds)
        var samples = Data(capacity: frameCount * 2)
        for frame in 0..<frameCount {
            let value = Int16(16_383 * sin(2 * Double.pi * hertz * Double(frame) / Double(sampleRate)))
            withUnsafeBytes(of: value.littleEndian) { samples.append(contentsOf: $0) }
        }
        var header = Data()
        func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) }
        }
        header.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + samples.count))
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 2))  // bytes per second
        append(UInt16(2))  // bytes per frame
        append(UInt16(16))
        header.append(contentsOf: Array("data".utf8))
        append(UInt32(samples.count))
        return header + samples
    }
}
