import Foundation
import TestSupport
import Testing

/// A render into a file that a signal stops leaves no hidden partial file; one that SIGKILL stopped, the next render
/// of the same name removes.
@Suite(.serialized) struct InterruptedRenderTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("interrupted-render")

    /// The names in the folder, hidden ones too.
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() }

    /// A process that has exited, whose PID no process has any more.
    func deadProcessID() throws -> Int32 {
        let process = try Binary(path: "/bin/true").start([])
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test(
        "a signal stops a render into a file by that signal, and neither the output nor the markers' partial file stays",
        arguments: [SIGINT, SIGTERM, SIGHUP, SIGPIPE])
    func signalRemovesPartialFiles(signal: Int32) throws {
        // 20 minutes of silence converted to 48 kHz: some seconds of work, its files open all the while.
        let request = directory.file("long.ssml")
        try "<speak><break time=\"600s\"/><break time=\"600s\"/></speak>".write(
            toFile: request, atomically: true, encoding: .utf8)
        let process = try concatSynth.start([
            "render", "--sample-rate", "48000", "-o", directory.file("out.wav"), "--markers",
            directory.file("out.jsonl"), "--file", request,
        ])
        try process.run()
        let partials = [
            ".out.jsonl.partial-\(process.processIdentifier)", ".out.wav.partial-\(process.processIdentifier)",
        ]
        let deadline = Date().addingTimeInterval(30)
        while try names() != partials + ["long.ssml"] && Date() < deadline { usleep(10_000) }
        try #require(try names() == partials + ["long.ssml"])

        kill(process.processIdentifier, signal)
        process.waitUntilExit()

        // Ended by the signal itself, which a shell reports as 128 + its number (143 for SIGTERM).
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(try names() == ["long.ssml"])
    }

    @Test("a render removes the partial files of its output's name left by dead processes, and keeps a live one's")
    func abandonedPartialFiles() throws {
        let dead = try deadProcessID()
        let live = getpid()
        let left = [
            ".out.wav.partial-\(dead)", ".out.wav.partial-\(live)", ".marks.jsonl.partial-\(dead)",
            ".other.wav.partial-\(dead)", ".out.wav.partial-draft",
        ]
        for name in left { try Data("half".utf8).write(to: URL(fileURLWithPath: directory.file(name))) }

        let result = try concatSynth.run([
            "render", "-o", directory.file("out.wav"), "--markers", directory.file("marks.jsonl"), "Hello",
        ])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            try names()
                == [
                    ".other.wav.partial-\(dead)", ".out.wav.partial-\(live)", ".out.wav.partial-draft", "marks.jsonl",
                    "out.wav",
                ]
                .sorted())
    }
}
