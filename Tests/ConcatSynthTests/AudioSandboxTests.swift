// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import Rendering
import SSML
import SpeechCore
import SpeechTestSupport
import TestSupport
import Testing
import Voicebank

@testable import ConcatSynth
@testable import Planning

@Suite struct AudioSandboxTests {
    let directory = TemporaryDirectory("audio-sandbox")
    var allowed: String { directory.file("allowed") }
    var secret: String { directory.file("secret") }

    init() throws {
        for folder in [directory.file("allowed"), directory.file("secret")] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Fixture.seedClip(at: directory.file("allowed/chime.aiff"), seconds: 0.1)
        try Fixture.seedClip(at: directory.file("secret/private.aiff"), seconds: 0.1)
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("allowed/link.aiff"), withDestinationPath: directory.file("secret/private.aiff"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("allowed/inner.aiff"), withDestinationPath: directory.file("allowed/chime.aiff"))
    }

    @Test("a file inside an allowed directory plays, converted like an import")
    func allowedFile() throws {
        let sandbox = try ConcatSynth.AudioSandbox(allowing: [allowed]).planning
        let frameCount = try PreparedClip(path: directory.file("allowed/chime.aiff")).renderReady.count
        let expected = Planning.AudioSandbox.AllowedFile(
            path: try #require(Planning.AudioSandbox.realPath(directory.file("allowed/chime.aiff"))),
            frameCount: frameCount)
        #expect(try sandbox.resolve("chime.aiff").get() == expected)
        #expect(try sandbox.resolve(directory.file("allowed/chime.aiff")).get() == expected)
        #expect(try sandbox.resolve("inner.aiff").get() == expected)
        #expect(try sandbox.resolve("file://" + directory.file("allowed/chime.aiff")).get() == expected)
    }

    @Test("escapes, symlinks out, missing files and URLs are refused with the reason")
    func refusals() throws {
        let sandbox = try ConcatSynth.AudioSandbox(allowing: [allowed]).planning
        let realSecret = try #require(Planning.AudioSandbox.realPath(directory.file("secret/private.aiff")))
        #expect(
            sandbox.resolve("../secret/private.aiff")
                == .failure(.outside(source: "../secret/private.aiff", resolved: realSecret)))
        #expect(sandbox.resolve("link.aiff") == .failure(.outside(source: "link.aiff", resolved: realSecret)))
        #expect(
            sandbox.resolve(directory.file("secret/private.aiff"))
                == .failure(.outside(source: directory.file("secret/private.aiff"), resolved: realSecret)))
        #expect(sandbox.resolve("nothing.aiff") == .failure(.missing(source: "nothing.aiff")))
        #expect(sandbox.resolve("https://example.com/a.wav") == .failure(.url(source: "https://example.com/a.wav")))
        #expect(
            Planning.AudioSandbox.closed.resolve("chime.aiff") == .failure(.noDirectoryAllowed(source: "chime.aiff")))
        // A sibling whose name starts like the allowed directory is not inside it.
        try FileManager.default.createDirectory(
            atPath: directory.file("allowed-not"), withIntermediateDirectories: true)
        try Fixture.seedClip(at: directory.file("allowed-not/x.aiff"), seconds: 0.1)
        guard case .failure(.outside) = sandbox.resolve("../allowed-not/x.aiff") else {
            Issue.record("a sibling directory was allowed")
            return
        }
    }

    @Test("a FIFO or a folder in an allowed directory is refused before it is opened")
    func notRegularFiles() throws {
        let sandbox = try ConcatSynth.AudioSandbox(allowing: [allowed]).planning
        let fifo = directory.file("allowed/fifo.aiff")
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createDirectory(
            atPath: directory.file("allowed/folder.aiff"), withIntermediateDirectories: true)
        // Opening the FIFO to read it would block until a writer comes. This writer opens it and closes it at once,
        // so a sandbox that reads it fails the test instead of hanging it; one that refuses it leaves the writer
        // waiting, released by the reader opened at the end.
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            if descriptor >= 0 { close(descriptor) }
        }
        writer.start()
        defer {
            let descriptor = open(fifo, O_RDONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        for name in ["fifo.aiff", "folder.aiff"] {
            let real = try #require(Planning.AudioSandbox.realPath(directory.file("allowed/\(name)")))
            #expect(
                sandbox.resolve(name) == .failure(.unreadable(source: name, reason: "\(real) is not a regular file")))
        }
    }

    @Test("only existing directories can be allowed")
    func badDirectory() {
        #expect(throws: ConcatSynthError.audioDirectory(directory.file("none"))) {
            try ConcatSynth.AudioSandbox(allowing: [directory.file("none")])
        }
    }

    @Test("the planner plays an allowed file and speaks the fallback content of a refused one, reporting why")
    func planning() throws {
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en"])
        let lookup = DictionaryLookup(["ding": [1]])
        let planner = Planner(
            voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])],
            audioSandbox: try ConcatSynth.AudioSandbox(allowing: [allowed]).planning)
        let plan = try planner.plan(
            SSMLReader().read(
                #"<speak><audio src="chime.aiff">ding</audio><audio src="../secret/private.aiff">ding</audio></speak>"#)
        )
        let chime = try #require(Planning.AudioSandbox.realPath(directory.file("allowed/chime.aiff")))
        let sounding = plan.segments.filter(\.segment.isSounding)
        #expect(sounding.map(\.kind) == [.audio(path: chime), .phrase(ClipTake(clipID: 1, frameCount: 100))])
        #expect(sounding.map(\.frameCount) == [2_205, 100])
        #expect(plan.frameCount == 2_205 + 100)
        #expect(plan.warnings.count == 1 && plan.warnings[0].contains("outside the allowed directories"))

        let clips = MemoryClips([1: .init(repeating: 0, count: 100)])
        let rendered = try pullAll(Rendering.Renderer(plan: plan, audio: clips), blockSize: 512)
        #expect(Array(rendered.samples[..<2_205]) == (try PreparedClip(path: chime).renderReady))

        // The file is decoded when the output reaches it, not while planning: gone by then, it is an error.
        try FileManager.default.removeItem(atPath: chime)
        #expect(throws: AudioIOError.self) { try pullAll(Rendering.Renderer(plan: plan, audio: clips), blockSize: 512) }
    }
}
