// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// A render into files writes them unnamed (`O_TMPFILE`) until they are whole, so however it is stopped, SIGKILL too,
/// it leaves nothing. Where the file system refuses unnamed files (FUSE here) it writes them under hidden names:
/// a signal removes those, SIGKILL leaves them, and the next render of the same name removes those of dead processes.
@Suite(.serialized) struct InterruptedRenderTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("interrupted-render")

    /// The names in `folder`, hidden ones too.
    func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// A process that has exited, whose PID no process has any more.
    func deadProcessID() throws -> Int32 {
        let process = try Binary(path: "/bin/true").start([])
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// The files in `folder` that process `id` has open, as `/proc` names them: an unnamed file is `#INODE (deleted)`.
    func openFiles(of id: Int32, in folder: String) -> [String] {
        let descriptors = "/proc/\(id)/fd"
        let prefix = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/"
        return ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [])
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)") }
            .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    /// Starts a render into `folder` (audio, markers and picture) of 20 minutes of silence converted to 48 kHz, some
    /// seconds of work, and returns it once its three files are open, with their names as `/proc` shows them.
    func startLongRender(in folder: String) throws -> (process: Process, openFiles: [String]) {
        let request = directory.file("long.ssml")
        try "<speak><break time=\"600s\"/><break time=\"600s\"/></speak>".write(
            toFile: request, atomically: true, encoding: .utf8)
        let process = try concatSynth.start([
            "render", "--sample-rate", "48000", "-o", "\(folder)/out.wav", "--markers", "\(folder)/out.jsonl",
            "--picture", "\(folder)/out.svg", "--file", request,
        ])
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var open: [String] = []
        while open.count < 3 && Date() < deadline {
            usleep(5_000)
            open = openFiles(of: process.processIdentifier, in: folder)
        }
        return (process, open)
    }

    /// Ends a render a failed expectation left running (20 minutes of work).
    /// `startLongRender` into a bindfs view of a fresh folder, a file system that refuses unnamed files; `nil` where
    /// FUSE cannot mount here (`ScratchMount.fuseView` says so).
    func startLongRenderOnFUSE(label: String = #function) throws
        -> (fuse: ScratchMount, process: Process, openFiles: [String])?
    {
        let folder = directory.file("fuse-source")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let fuse = ScratchMount.fuseView(of: folder, in: directory, label: label) else { return nil }
        let (process, open) = try startLongRender(in: fuse.path)
        return (fuse, process, open)
    }

    func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether `name` is how `/proc` shows a file opened with `O_TMPFILE`: no name in its folder.
    func isUnnamed(_ name: String) -> Bool { name.hasPrefix("#") && name.hasSuffix(" (deleted)") }

    @Test(
        "a signal stops a render into files by that signal, and no file at all is left in their folder",
        arguments: [SIGINT, SIGTERM, SIGHUP, SIGPIPE])
    func signalLeavesNothing(signal: Int32) throws {
        let folder = directory.file("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (process, open) = try startLongRender(in: folder)
        defer { stop(process) }
        try #require(open.count == 3 && open.allSatisfy(isUnnamed), "\(open)")
        #expect(try names(in: folder) == [])

        kill(process.processIdentifier, signal)
        process.waitUntilExit()

        // Ended by the signal itself, which a shell reports as 128 + its number (143 for SIGTERM).
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(try names(in: folder) == [])
    }

    @Test("a render killed with SIGKILL part way leaves no file at all in its folder")
    func killLeavesNothing() throws {
        let folder = directory.file("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (process, open) = try startLongRender(in: folder)
        defer { stop(process) }
        try #require(open.count == 3, "\(open)")

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        #expect(open.allSatisfy(isUnnamed), "\(open)")
        #expect(try names(in: folder) == [])
    }

    @Test("where files can be unnamed, a render does not list its folder: older hidden files of dead processes stay")
    func noListingWhereUnnamed() throws {
        let folder = directory.file("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let left = ".out.wav.partial-\(try deadProcessID())"
        try Data("half".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(left)"))

        let result = try concatSynth.run(["render", "-o", "\(folder)/out.wav", "Hello"])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(try names(in: folder) == [left, "out.wav"])
    }

    @Test(
        "where the file system refuses unnamed files (FUSE), files are written under hidden names, which a signal removes"
    )
    func signalRemovesHiddenFiles() throws {
        guard let (fuse, process, open) = try startLongRenderOnFUSE() else { return }
        defer {
            stop(process)
            fuse.unmount()
        }
        let id = process.processIdentifier
        let hidden = [".out.jsonl.partial-\(id)", ".out.svg.partial-\(id)", ".out.wav.partial-\(id)"]
        try #require(open == hidden)
        #expect(try names(in: fuse.path) == hidden)

        kill(id, SIGTERM)
        process.waitUntilExit()

        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGTERM)
        #expect(try names(in: fuse.path) == [])
    }

    @Test(
        "where the file system refuses unnamed files (FUSE), SIGKILL leaves the hidden files, which the next render of the same names removes, keeping a live process's"
    )
    func abandonedHiddenFiles() throws {
        guard let (fuse, process, open) = try startLongRenderOnFUSE() else { return }
        defer {
            stop(process)
            fuse.unmount()
        }
        let killed = process.processIdentifier
        try #require(open.count == 3)
        kill(killed, SIGKILL)
        process.waitUntilExit()
        let hidden = [".out.jsonl.partial-\(killed)", ".out.svg.partial-\(killed)", ".out.wav.partial-\(killed)"]
        try #require(try names(in: fuse.path) == hidden)
        let dead = try deadProcessID()
        let live = getpid()
        let others = [
            ".out.wav.partial-\(live)", ".marks.jsonl.partial-\(dead)", ".other.wav.partial-\(dead)",
            ".out.wav.partial-draft",
        ]
        for name in others { try Data("half".utf8).write(to: URL(fileURLWithPath: "\(fuse.path)/\(name)")) }

        let result = try concatSynth.run([
            "render", "-o", "\(fuse.path)/out.wav", "--markers", "\(fuse.path)/out.jsonl", "--picture",
            "\(fuse.path)/out.svg", "Hello",
        ])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            try names(in: fuse.path)
                == ([".other.wav.partial-\(dead)", ".out.wav.partial-\(live)", ".out.wav.partial-draft"]
                + [".marks.jsonl.partial-\(dead)", "out.jsonl", "out.svg", "out.wav"]).sorted())
    }

    @Test("a render killed while it replaces an existing output leaves either the old file or the new one, whole")
    func replacingIsAtomic() throws {
        let folder = directory.file("out")
        let reference = directory.file("reference")
        for path in [folder, reference] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let output = "\(folder)/out.wav"
        let newText = "<speak>Hello world<break time=\"20s\"/>hello</speak>"
        #expect(try concatSynth.run(["render", "-o", "\(reference)/old.wav", "hello"]).status == 0)
        let started = Date()
        #expect(try concatSynth.run(["render", "-o", "\(reference)/new.wav", newText]).status == 0)
        let renderSeconds = Date().timeIntervalSince(started)
        let old = try Data(contentsOf: URL(fileURLWithPath: "\(reference)/old.wav"))
        let new = try Data(contentsOf: URL(fileURLWithPath: "\(reference)/new.wav"))
        try #require(old != new)

        var outcomes: [String: Int] = [:]
        for attempt in 0..<24 {
            try? FileManager.default.removeItem(atPath: output)
            try old.write(to: URL(fileURLWithPath: output))
            let process = try concatSynth.start(["render", "-o", output, newText])
            try process.run()
            // From just after the start to just after a whole render's time, so kills land before, during and after.
            usleep(useconds_t(renderSeconds * 1.2 * Double(attempt) / 23 * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let found = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(found == old || found == new, "attempt \(attempt): \(found.count) bytes")
            outcomes[found == new ? "new" : "old", default: 0] += 1
            // Only a kill in the instant between linking the file and renaming it over out.wav leaves its hidden name.
            let hidden = ".out.wav.partial-\(process.processIdentifier)"
            #expect(try names(in: folder).filter { $0 != hidden } == ["out.wav"])
            try? FileManager.default.removeItem(atPath: "\(folder)/\(hidden)")
        }
        #expect(outcomes["old", default: 0] > 0, "\(outcomes)")
    }

    @Test(
        "files get the permissions they always had: audio 0666 and markers and picture 0644, less the umask",
        arguments: [
            (umask: "0", audio: 0o666, other: 0o644), (umask: "022", audio: 0o644, other: 0o644),
            (umask: "077", audio: 0o600, other: 0o600),
        ])
    func permissions(umask: String, audio: Int, other: Int) throws {
        let folder = directory.file("umask-\(umask)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try Binary(path: "/bin/sh").run([
            "-c", "umask \(umask) && exec \"$@\"", "sh", concatSynth.path, "render", "-o", "\(folder)/out.wav",
            "--markers", "\(folder)/out.jsonl", "--picture", "\(folder)/out.svg", "hello",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        func mode(_ name: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")[.posixPermissions] as? Int)
        }
        #expect(try mode("out.wav") == audio)
        #expect(try mode("out.jsonl") == other)
        #expect(try mode("out.svg") == other)
    }
}
