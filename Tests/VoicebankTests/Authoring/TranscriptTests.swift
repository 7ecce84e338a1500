// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct TranscriptTests {
    typealias Line = Transcript.Line

    @Test("CSV: a header file,text, RFC 4180 quotes, commas and line breaks inside quotes, CRLF")
    func csv() throws {
        let content =
            "file,text\r\nhello.aiff,\"Hello, world\"\r\n\"say \"\"hi\"\".wav\",\"two\nlines\"\r\n\r\nbye,Goodbye\r\n"

        let transcript = try Transcript(parsing: content, path: "t.csv")

        #expect(transcript.format == .csv)
        #expect(
            transcript.lines == [
                Line(file: "hello.aiff", text: "Hello, world", lineNumber: 2),
                Line(file: "say \"hi\".wav", text: "two\nlines", lineNumber: 3),
                Line(file: "bye", text: "Goodbye", lineNumber: 6),
            ])
    }

    @Test("TSV: a header file<TAB>text, extra columns ignored, a role column marks the fallback clip")
    func tsv() throws {
        let content =
            "file\ttext\treading\trole\nen/hello.aiff\thello\thello\t\nen/fallback.aiff\t\ttwo-tone beep\tfallback\n"

        let transcript = try Transcript(parsing: content, path: "en.tsv")

        #expect(transcript.format == .tsv)
        #expect(
            transcript.lines == [
                Line(file: "en/hello.aiff", text: "hello", lineNumber: 2),
                Line(file: "en/fallback.aiff", text: "", isFallback: true, lineNumber: 3),
            ])
    }

    @Test(
        "the screen-reader transcripts read as TSV with one fallback line each",
        arguments: ["Tests/Fixtures/screen-reader/en.tsv", "voicebank/sources/ja.tsv"])
    func screenReaderTranscripts(name: String) throws {
        let transcript = try Transcript(path: "\(ScreenReaderPack.repository)/\(name)")
        #expect(transcript.format == .tsv)
        #expect(transcript.lines.filter(\.isFallback).count == 1)
        #expect(transcript.lines.count > 40)
    }

    @Test("a transcript that cannot be read is an error naming it: no such file, a folder")
    func unreadable() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("missing.tsv")
        #expect(throws: AuthoringError.fileSystem(path: missing, reason: "No such file or directory")) {
            try Transcript(path: missing)
        }
        #expect(throws: AuthoringError.fileSystem(path: directory.path, reason: "it is a folder, not a file")) {
            try Transcript(path: directory.path)
        }
    }

    @Test(
        "id|text lines as LJSpeech writes them, in metadata.csv or any other name; extra columns ignored",
        arguments: ["metadata.csv", "lines.txt"])
    func pipe(name: String) throws {
        let content =
            "LJ001-0001|Printing, in the only sense|Printing, in the only sense\nLJ001-0002|in being comparatively modern.|in being comparatively modern.\n"

        let transcript = try Transcript(parsing: content, path: name)

        #expect(transcript.format == .pipe)
        #expect(
            transcript.lines == [
                Line(file: "LJ001-0001", text: "Printing, in the only sense", lineNumber: 1),
                Line(file: "LJ001-0002", text: "in being comparatively modern.", lineNumber: 2),
            ])
    }

    @Test("name: text lines, with ; and # comments and blank lines")
    func colon() throws {
        let content = "; recorded 2024\n# session 1\n\nhello: Hello there\n  good_morning.aiff :  Good morning  \n"

        let transcript = try Transcript(parsing: content, path: "prompts.txt")

        #expect(transcript.format == .colon)
        #expect(
            transcript.lines == [
                Line(file: "hello", text: "Hello there", lineNumber: 4),
                Line(file: "good_morning.aiff", text: "Good morning", lineNumber: 5),
            ])
    }

    @Test(
        "an unreadable transcript is an error naming the file, the line and what would be accepted",
        arguments: [
            ("t.txt", "just some words\n", nil, "cannot tell its format"),
            ("t.csv", "name,phrase\na,b\n", 1, "expected a CSV header file,text"),
            ("t.tsv", "file\ttext\nonly-one-column\n", 2, "expected file<TAB>text"),
            ("t.csv", "file,text\na,\"open\n", 2, "a quote is never closed"),
            ("t.csv", "file,text\na,\"b\"c\n", 2, "text after a closing quote"),
            ("t.tsv", "file\ttext\trole\na\tb\tnarrator\n", 2, "unknown role \"narrator\""),
            ("t.txt", "a: one\nb two\n", 2, "is not name: text"),
            ("t.tsv", "file\ttext\nclips/a.wav\tone\nclips/a.wav\ttwo\n", 3, "listed again (first at line 2)"),
            ("t.txt", "", nil, "it has no lines"),
        ] as [(String, String, Int?, String)])
    func malformed(path: String, content: String, line: Int?, message: String) throws {
        #expect { try Transcript(parsing: content, path: path) } throws: { error in
            guard case .transcript(path, line, let reason) = error as? AuthoringError else { return false }
            return reason.contains(message) && "\(error)".hasPrefix("transcript \(path)")
        }
    }

    @Test(
        "a line names a file with or without its extension and folders",
        arguments: ["hello", "hello.aiff", "clips/hello.aiff", "clips/hello", "./clips/hello.aiff"])
    func names(name: String) throws {
        let transcript = try Transcript(parsing: "\(name): Hello there\n", path: "t.txt")

        let assignment = try transcript.requests(for: ["/data/clips/hello.aiff"])

        #expect(assignment.requests == [ImportRequest(path: "/data/clips/hello.aiff", phrase: "Hello there")])
        #expect(assignment.unlistedFiles.isEmpty)
        #expect(assignment.missingFiles.isEmpty)
    }

    @Test("requests follow the transcript's order; files without a line and lines without a file are reported")
    func assignment() throws {
        let transcript = try Transcript(
            parsing:
                "file\ttext\trole\nb.wav\tSecond take first\t\na.wav\tFirst\t\nbeep.wav\t\tfallback\nmissing.wav\tNobody\t\n",
            path: "t.tsv")

        let assignment = try transcript.requests(for: ["x/a.wav", "x/b.wav", "x/beep.wav", "x/stray.wav"])

        #expect(
            assignment.requests == [
                ImportRequest(path: "x/b.wav", phrase: "Second take first"),
                ImportRequest(path: "x/a.wav", phrase: "First"),
                ImportRequest(path: "x/beep.wav", phrase: nil, isFallback: true),
            ])
        #expect(assignment.unlistedFiles == ["x/stray.wav"])
        #expect(assignment.missingFiles.map(\.file) == ["missing.wav"])
    }

    @Test("a name that fits two files, two lines for one file, and a clip line without text are errors")
    func ambiguous() throws {
        let short = try Transcript(parsing: "hello: Hi\n", path: "t.txt")
        #expect { try short.requests(for: ["a/hello.wav", "b/hello.wav"]) } throws: { error in
            "\(error)".contains("names both a/hello.wav and b/hello.wav")
        }
        let twice = try Transcript(parsing: "hello: Hi\nhello.wav: Hello\n", path: "t.txt")
        #expect { try twice.requests(for: ["hello.wav"]) } throws: { error in
            "\(error)".contains("named by line 1 and by this one")
        }
        let empty = try Transcript(parsing: "file,text\nhello.wav,\n", path: "t.csv")
        #expect { try empty.requests(for: ["hello.wav"]) } throws: { error in
            "\(error)" == "transcript t.csv line 2: no text for the file hello.wav; expected the phrase the file speaks"
        }
        #expect(
            try empty.requests(for: ["hello.wav"], isFallback: true).requests == [
                ImportRequest(path: "hello.wav", isFallback: true)
            ])
    }

    /// Files found in a folder `/sounds/en`, by their paths below it.
    func found(_ relativePaths: [String]) -> [ImportRequest.AudioFile] {
        relativePaths.map { ImportRequest.AudioFile(path: "/sounds/en/\($0)", relativePath: $0) }
    }

    @Test(
        "prompt-set names: a line with a folder names that file, one without names the root file before a subfolder's")
    func promptSetNames() throws {
        let transcript = try Transcript(
            parsing:
                "; Core Asterisk Sounds in English\ndigits/1: one\ndigits/dollars: dollars\ndollars: dollars\n"
                + "followme/sorry.wav: I'm sorry, but I was unable to locate the person\nsilence/1: (1 second of silence)\n"
                + "sorry: I'm sorry.\nvm-goodbye: Goodbye\n",
            path: "core-sounds-en.txt")
        let files = found([
            "digits/1.wav", "digits/dollars.wav", "dollars.wav", "followme/sorry.wav", "silence/1.wav", "sorry.wav",
            "extra/vm-goodbye.wav", "extra/more/sorry.wav",
        ])

        let assignment = try transcript.requests(for: files)

        #expect(
            assignment.requests.map { "\($0.path.dropFirst("/sounds/en/".count)) \($0.phrase ?? "")" } == [
                "digits/1.wav one", "digits/dollars.wav dollars", "dollars.wav dollars",
                "followme/sorry.wav I'm sorry, but I was unable to locate the person",
                "silence/1.wav (1 second of silence)", "sorry.wav I'm sorry.",
                // No root file of that name: the one in the subfolder.
                "extra/vm-goodbye.wav Goodbye",
            ])
        #expect(assignment.unlistedFiles == ["/sounds/en/extra/more/sorry.wav"])
        #expect(assignment.missingFiles.isEmpty)
        #expect(assignment.skippedLines.isEmpty)
    }

    @Test("a folder-less line whose only file is taken by a line with its folder names no file")
    func moreFoldersWin() throws {
        let transcript = try Transcript(parsing: "sorry: Sorry.\nfollowme/sorry: I'm sorry, but\n", path: "t.txt")

        let assignment = try transcript.requests(for: found(["followme/sorry.wav"]))

        #expect(assignment.requests.map(\.phrase) == ["I'm sorry, but"])
        #expect(assignment.missingFiles.map(\.lineNumber) == [1])
        #expect(assignment.unlistedFiles.isEmpty)
    }

    @Test("a line that still names two files is thrown, or with keepGoing reported and skipped while the rest pairs")
    func stillAmbiguous() throws {
        let transcript = try Transcript(
            parsing: "digits/2: two\ngoodbye: Goodbye\ndigits/3: three\n", path: "core-sounds-en.txt")
        let files = found(["conf/goodbye.wav", "digits/2.wav", "digits/3.wav", "vm/goodbye.wav", "old/x/goodbye.wav"])
        let expected = AuthoringError.transcript(
            path: "core-sounds-en.txt", line: 2,
            reason:
                "\"goodbye\" names both /sounds/en/conf/goodbye.wav and /sounds/en/vm/goodbye.wav; expected a name with its folder, such as conf/goodbye.wav, that names one file"
        )

        #expect(throws: expected) { try transcript.requests(for: files) }
        let assignment = try transcript.requests(for: files, keepGoing: true)

        #expect(assignment.requests.map(\.phrase) == ["two", "three"])
        #expect(assignment.skippedLines == [expected])
        // The two it could have meant are in the report; the deeper one is a file without a line.
        #expect(assignment.unlistedFiles == ["/sounds/en/old/x/goodbye.wav"])
        #expect(assignment.missingFiles.isEmpty)
    }

    @Test("with keepGoing, a file two lines name alike goes to neither, and a clip line without text is skipped")
    func keepGoingLines() throws {
        let transcript = try Transcript(
            parsing: "file,text\nhello,Hi\nbye.wav,\nhello.wav,Hello\nthanks,Thank you\n", path: "t.csv")

        let assignment = try transcript.requests(for: ["a/hello.wav", "a/bye.wav", "a/thanks.wav"], keepGoing: true)

        #expect(assignment.requests == [ImportRequest(path: "a/thanks.wav", phrase: "Thank you")])
        #expect(
            assignment.skippedLines.map(\.description) == [
                "transcript t.csv line 3: no text for the file bye.wav; expected the phrase the file speaks",
                "transcript t.csv line 4: the file a/hello.wav is named by line 2 and by this one; expected one line per file",
            ])
        #expect(assignment.unlistedFiles.isEmpty)
        #expect(assignment.missingFiles.isEmpty)
    }

    @Test("a folder gives its audio files every level down, sorted, hidden and other files left out")
    func folders() throws {
        let directory = TemporaryDirectory("transcript-folders")
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory.file("clips/b"), withIntermediateDirectories: true)
        try manager.createDirectory(atPath: directory.file("clips/a-z"), withIntermediateDirectories: true)
        for name in [
            "clips/z.WAV", "clips/b/two.flac", "clips/a-z/one.aiff", "clips/._z.wav", "clips/notes.txt", "clips/a.aif",
        ] {
            _ = manager.createFile(atPath: directory.file(name), contents: Data())
        }
        try manager.createDirectory(atPath: directory.file("empty"), withIntermediateDirectories: true)

        let files = try ImportRequest.audioFiles([directory.file("clips"), "single.wav"])

        #expect(
            files.map(\.path)
                == ["clips/a-z/one.aiff", "clips/a.aif", "clips/b/two.flac", "clips/z.WAV"].map(directory.file) + [
                    "single.wav"
                ])
        #expect(files.map(\.relativePath) == ["a-z/one.aiff", "a.aif", "b/two.flac", "z.WAV", "single.wav"])
        #expect(files.map(\.depth) == [1, 0, 1, 0, 0])
        #expect(throws: AuthoringError.noAudioFiles(folder: directory.file("empty"))) {
            try ImportRequest.audioFiles([directory.file("empty")])
        }
    }
}
