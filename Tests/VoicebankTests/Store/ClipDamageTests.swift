// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct ClipDamageTests {
    @Test(
        "a row's trim_start and frame_count checked against its blob",
        arguments: [
            // (trim_start, frame_count, blob bytes, damage)
            (0, 100, 400, nil),
            (10, 90, 400, nil),
            (100, 0, 400, nil),
            (0, 100, 401, ClipDamage.partialSample(byteCount: 401)),
            (0, 0, 1, .partialSample(byteCount: 1)),
            (-5, 10, 400, .impossibleFrames(firstFrame: -5, frameCount: 10)),
            (0, -1, 400, .impossibleFrames(firstFrame: 0, frameCount: -1)),
            (0, 2_000_000_000, 400, .impossibleFrames(firstFrame: 0, frameCount: 2_000_000_000)),
            (0, 101, 400, .pastEnd(firstFrame: 0, frameCount: 101, storedFrameCount: 100)),
            (60, 41, 400, .pastEnd(firstFrame: 60, frameCount: 41, storedFrameCount: 100)),
            // Added, these would overflow.
            (Int.max, 10, 400, .pastEnd(firstFrame: Int.max, frameCount: 10, storedFrameCount: 100)),
        ] as [(Int, Int, Int, ClipDamage?)])
    func layout(firstFrame: Int, frameCount: Int, byteCount: Int, damage: ClipDamage?) {
        #expect(ClipDamage.layout(firstFrame: firstFrame, frameCount: frameCount, blobByteCount: byteCount) == damage)
    }

    @Test("NaN and both infinities are found where they are; the largest finite values are not")
    func samples() {
        let finite: [Float] = [0, 1, -1, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude]
        #expect(finite.withUnsafeBufferPointer { ClipDamage.samples($0) } == nil)
        for bad in [Float.nan, .infinity, -.infinity, Float(bitPattern: 0xFFC0_0001)] {
            var samples = [Float](repeating: 0.5, count: 1_000)
            samples[637] = bad
            samples[900] = bad
            #expect(
                samples.withUnsafeBufferPointer { ClipDamage.samples($0, offset: 4_096) }
                    == .nonFiniteSample(frame: 4_733))
            var tail = [Float](repeating: -0.5, count: 1_001)
            tail[1_000] = bad
            #expect(tail.withUnsafeBufferPointer { ClipDamage.samples($0) } == .nonFiniteSample(frame: 1_000))
        }
    }

    @Test("import refuses a float file holding NaN, naming the file and frame, and stores nothing")
    func importRefusesNaN() throws {
        let temporary = try TemporaryPack()
        var samples = Signal.sine(frequency: 440, sampleRate: 24_000, frameCount: 4_800)
        samples[1_234] = .nan
        let path = try Fixture.write(
            samples, to: temporary.directory.file("nan.wav"), format: .init(.wav, .float32), sampleRate: 24_000)

        #expect(throws: AuthoringError.audio(.nonFiniteSample(path: path, frame: 1_234))) {
            try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        }
        #expect(try temporary.clipCount() == 0)
    }

    @Test("the first read of a take finds a NaN anywhere in what it plays")
    func clipIndexRefusesNaN() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("hello.aiff"))
        let clip = try #require(try temporary.pack.importFiles([ImportRequest(path: path)], into: nil).imported.first)
        try temporary.pack.database.execute(Self.nanAtFrame2000)
        let index = try temporary.pack.clipIndex(voice: nil)
        let take = try #require(try index.takes(forPhraseKey: "hello").first)
        var buffer = [Float](repeating: 0, count: 1_024)

        #expect(
            throws: VoicebankError.damagedClip(
                path: temporary.pack.path, clipID: clip.id, phrase: "hello", damage: .nonFiniteSample(frame: 2_000))
        ) {
            try buffer.withUnsafeMutableBufferPointer { try index.readRenderReadyPCM(take, from: 0, into: $0) }
        }
    }

    @Test("a take checked once is checked again after a change to the pack")
    func clipIndexRechecksAfterAChange() throws {
        let temporary = try TemporaryPack()
        let requests = try ["hello", "goodbye"].map { phrase in
            ImportRequest(path: try Fixture.seedClip(at: temporary.directory.file("\(phrase).aiff")))
        }
        let clips = try temporary.pack.importFiles(requests, into: nil).imported
        let index = try temporary.pack.clipIndex(voice: nil)
        let hello = try #require(try index.takes(forPhraseKey: "hello").first)
        let goodbye = try #require(try index.takes(forPhraseKey: "goodbye").first)
        var buffer = [Float](repeating: 0, count: 1_024)
        let read = { (take: ClipTake) throws -> Int in
            try buffer.withUnsafeMutableBufferPointer { try index.readRenderReadyPCM(take, from: 0, into: $0) }
        }
        #expect(try read(hello) == 1_024)
        #expect(try read(goodbye) == 1_024)

        try temporary.pack.database.execute(Self.nanAtFrame2000 + " WHERE id = \(clips[0].id)")

        #expect(
            throws: VoicebankError.damagedClip(
                path: temporary.pack.path, clipID: clips[0].id, phrase: "hello", damage: .nonFiniteSample(frame: 2_000))
        ) { try read(hello) }
    }

    /// Writes an infinity over the frame 2,000 frames past a clip's trimmed start.
    private static let nanAtFrame2000 =
        "UPDATE clip SET pcm = CAST(substr(pcm, 1, trim_start * 4 + 8000) || x'0000807F' || substr(pcm, trim_start * 4 + 8005) AS BLOB)"
}
