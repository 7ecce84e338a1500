// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// Imports killed, racing each other, and read while they run: processes, as people and scripts run them.
@Suite struct KillAndConcurrencyTests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("kill-concurrency")

    /// A pack with "hello" and a fallback clip, closed (its WAL checkpointed away), to copy.
    func basePack() throws -> String {
        let path = directory.file("base.sqlite")
        let pack = try VoicePack(path: path, access: .create)
        try pack.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        let hello = try Fixture.seedClip(at: directory.file("hello.aiff"), seconds: 0.3)
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.1, frequency: 1_000)
        _ = try pack.importFiles([ImportRequest(path: hello), ImportRequest(path: beep, isFallback: true)], into: nil)
        return path
    }

    /// `count` 48 kHz stereo files of `seconds` each, named `prefix0.wav`…: the sinc converter keeps an import busy.
    func files(_ prefix: String, count: Int, seconds: Double) throws -> [String] {
        try (0..<count).map { index in
            let tone = Signal.sine(
                frequency: 200 + 37 * Double(index), sampleRate: 48_000, frameCount: Int(seconds * 48_000))
            return try Fixture.write(
                Signal.interleave([tone, tone]), to: directory.file("\(prefix)\(index).wav"),
                format: .init(.wav, .pcm16), sampleRate: 48_000, channelCount: 2)
        }
    }

    func copy(_ pack: String, to name: String) throws -> String {
        let path = directory.file(name)
        try FileManager.default.copyItem(atPath: pack, toPath: path)
        return path
    }

    func clipCount(_ path: String) throws -> Int { try VoicePack(path: path, access: .readOnly).clips().count }

    @Test("an import killed with SIGKILL at 100 random moments: every pack sound, with the clips of before or all")
    func killedAtRandom() throws {
        let base = try basePack()
        let files = try files("clip", count: 8, seconds: 0.25)
        let before = try clipCount(base)
        // How long a whole run takes here, to spread the kills over it and a little past it.
        let timed = try copy(base, to: "timed.sqlite")
        let start = Date()
        #expect(try voicebank.run(["import", "--bank", timed] + files).status == 0)
        let runSeconds = Date().timeIntervalSince(start)
        let after = try clipCount(timed)
        #expect(after == before + files.count)

        // Seeded: the same moments, relative to the run, every time.
        var generator = SeededGenerator(seed: 100)
        var outcomes: [Int: Int] = [:]
        var killedRunning = 0
        for attempt in 0..<100 {
            let pack = try copy(base, to: "killed\(attempt).sqlite")
            let delay = Double.random(in: 0...(runSeconds * 1.1), using: &generator)
            let process = try voicebank.start(["import", "--bank", pack] + files)
            try process.run()
            usleep(useconds_t(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killedRunning += 1 }

            let opened = try VoicePack(path: pack, access: .readOnly)
            let integrity = try opened.integrityCheck()
            let count = try opened.clips().count
            #expect(integrity == ["ok"], "killed after \(delay) s")
            #expect(count == before || count == after, "killed after \(delay) s, the pack holds \(count) clips")
            outcomes[count, default: 0] += 1
        }
        // Kills must have landed inside runs, or the test proved little. On a loaded machine a run takes longer than
        // the timed one did, so more of them land inside; only runs ten times as fast as the timed one would leave
        // fewer than ten. What a run left when nothing stopped it, the timed run showed.
        #expect(killedRunning >= 10, "\(killedRunning) of 100 killed while running; outcomes \(outcomes)")
    }

    @Test("renders in other processes during an import never fail, and hear the pack from before or after it")
    func rendersDuringImport() throws {
        let base = try basePack()
        let world = try Fixture.seedClip(at: directory.file("world.aiff"), seconds: 0.2, frequency: 330)
        let files = [world] + (try self.files("more", count: 10, seconds: 0.5))
        let render = { (pack: String) throws -> Binary.Result in
            try concatSynth.run(["render", "--bank", pack, "-o", "-", "hello world"])
        }
        let beforeRender = try render(base)
        let afterPack = try copy(base, to: "after.sqlite")
        #expect(try voicebank.run(["import", "--bank", afterPack] + files).status == 0)
        let afterRender = try render(afterPack)
        try #require(beforeRender.status == 0 && afterRender.status == 0)
        #expect(beforeRender.standardOutputBytes != afterRender.standardOutputBytes, "the import changes the output")

        let pack = try copy(base, to: "pack.sqlite")
        let process = try voicebank.start(["import", "--bank", pack] + files)
        try process.run()
        var seen: [String: Int] = [:]
        while process.isRunning {
            let result = try render(pack)
            #expect(result.status == 0, "\(result.standardError)")
            let kind =
                result.standardOutputBytes == beforeRender.standardOutputBytes
                ? "before" : result.standardOutputBytes == afterRender.standardOutputBytes ? "after" : "other"
            seen[kind, default: 0] += 1
        }
        process.waitUntilExit()

        #expect(process.terminationStatus == 0)
        #expect(seen["other"] == nil, "\(seen)")
        #expect(seen["before", default: 0] >= 2, "renders ran during the import: \(seen)")
        #expect(try render(pack).standardOutputBytes == afterRender.standardOutputBytes)
    }

    @Test("two imports into one pack at once: the second waits for the first, and both are stored")
    func twoImports() throws {
        let base = try basePack()
        let first = try files("first", count: 6, seconds: 0.5)
        let second = try files("second", count: 6, seconds: 0.4)
        let pack = try copy(base, to: "pack.sqlite")

        let processes = try [first, second].map { files in
            let process = try voicebank.start(["import", "--bank", pack] + files)
            let error = Pipe()
            process.standardError = error
            try process.run()
            return (process, error)
        }
        var messages: [String] = []
        for (process, error) in processes {
            messages.append(String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
        }

        #expect(processes.map(\.0.terminationStatus) == [0, 0], "\(messages)")
        let opened = try VoicePack(path: pack, access: .readOnly)
        #expect(try opened.integrityCheck() == ["ok"])
        #expect(try opened.clips().count == 2 + first.count + second.count)
    }

    @Test("an import that cannot get the write lock in 5 s says the pack is busy, in one line, and stores nothing")
    func busyPack() throws {
        let pack = try copy(try basePack(), to: "pack.sqlite")
        let clip = try Fixture.seedClip(at: directory.file("late.aiff"))
        // Another program holding a write transaction open.
        let holder = try VoicePack(path: pack, access: .readWrite)
        try holder.database.execute("BEGIN IMMEDIATE")
        defer { try? holder.database.execute("ROLLBACK") }

        let result = try voicebank.run(["import", "--bank", pack, clip])

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: voice pack \(pack) is busy: another program held its write lock for more than 5 s; try again when that import or edit has finished\n"
        )
        try holder.database.execute("ROLLBACK")
        #expect(try clipCount(pack) == 2)
    }
}
