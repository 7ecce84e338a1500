// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import ConcatSynth
import Foundation
import SpeechCore
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@Suite struct ConcurrentRenderTests {
    let directory = TemporaryDirectory("concurrent-render")

    /// A pack of six tones and a fallback clip.
    func makePack() throws -> String {
        let path = directory.file("pack.sqlite")
        let pack = try VoicePack(path: path, access: .create)
        try pack.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in ["hello", "world", "good morning", "good", "morning", "double tap to open"].enumerated()
        {
            let file = try Fixture.seedClip(
                at: directory.file("\(index).aiff"), seconds: 0.2 + 0.05 * Double(index),
                frequency: 300 + 70 * Double(index))
            requests.append(ImportRequest(path: file, phrase: phrase))
        }
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.1, frequency: 1_000)
        requests.append(ImportRequest(path: beep, isFallback: true))
        _ = try pack.importFiles(requests, into: nil)
        return path
    }

    static var requests: [SpeechRequest] {
        [
            SpeechRequest("hello world"),
            SpeechRequest("good morning, double tap to open"),
            SpeechRequest(#"<speak>hello <break time="120ms"/> good <mark name="m"/> morning bob</speak>"#),
            SpeechRequest("world hello world hello", prosody: Prosody(rate: 2)),
            SpeechRequest("double tap to open, good", prosody: Prosody(pitchSemitones: -3)),
            SpeechRequest(#"<speak><prosody volume="-6dB">morning</prosody> unknown words</speak>"#),
        ]
    }

    static func render(_ request: SpeechRequest, with synthesizer: Synthesizer) throws -> [Float] {
        let renderer = try synthesizer.renderer(for: request)
        var samples: [Float] = []
        var buffer = [Float](repeating: 0, count: 777)
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += buffer[..<pulled.frameCount]
            if pulled.isComplete { return samples }
        }
    }

    @Test("SQLite is built thread-safe, so separate connections may work on separate threads at once")
    func threadSafeBuild() {
        // 1 (serialized) or 2 (multi-thread) both allow a connection per thread; 0 would not.
        #expect(sqlite3_threadsafe() != 0)
    }

    @Test("8 threads rendering from one pool give, bit for bit, what one thread does")
    func manyThreads() throws {
        let path = try makePack()
        let single = try Synthesizer(pack: VoicePack(path: path, access: .readOnly))
        let expected = try Self.requests.map { try Self.render($0, with: single) }
        #expect(expected.allSatisfy { $0.count > 4_000 })
        #expect(Set(expected.map(\.count)).count == Self.requests.count, "the requests differ, so a mix-up shows")

        let threadCount = 8
        // Room for every thread's connection when idle, so that none is closed and opened again.
        let pool = VoicePackPool(path: path, maximumIdleCount: threadCount) { pack in try Synthesizer(pack: pack) }
        let rendersPerThread = 30
        let failures = Failures()
        let ends = (0..<threadCount).map { _ in Completion() }
        for thread in 0..<threadCount {
            startThread {
                defer { ends[thread].complete() }
                for round in 0..<rendersPerThread {
                    let index = (thread + round) % Self.requests.count
                    do {
                        let samples = try pool.borrow { try Self.render(Self.requests[index], with: $0) }
                        if samples != expected[index] {
                            failures.add("thread \(thread), round \(round): request \(index) differs")
                        }
                    } catch {
                        failures.add("thread \(thread), round \(round): \(error)")
                    }
                }
            }
        }
        for end in ends { end.wait() }

        #expect(failures.all == [])
        // A connection per thread at most; reused across renders.
        #expect((1...threadCount).contains(pool.openedCount))
    }

    @Test("the synthesizers of many requests in flight at once are all kept for the next, none opened again")
    func keepsManyInFlight() throws {
        let pool = SynthesizerPool(bank: try makePack())
        let inFlight = 3 * ProcessorCount.online + 2
        for _ in 0..<2 {
            let lent = try (0..<inFlight).map { _ in try pool.take() }
            for synthesizer in lent { pool.giveBack(synthesizer) }
        }
        #expect(pool.openedCount == inFlight)
    }

    @Test("a synthesizer given back while a renderer of it is alive is not lent again; once none is, it is")
    func givenBackWhileRendering() throws {
        let pool = SynthesizerPool(bank: try makePack())
        let first = try pool.take()
        var renderer: Renderer? = try first.renderer(for: Self.requests[1])
        var buffer = [Float](repeating: 0, count: 777)
        // A pull opens the blob handle on a clip, which the renderer's end closes.
        let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer!.render(into: $0) }
        #expect(pulled.frameCount > 0 && !pulled.isComplete)
        pool.giveBack(first)
        let second = try pool.take()
        #expect(second !== first, "lent again while its renderer, on another thread in a server, still reads it")
        #expect(pool.openedCount == 2)
        renderer = nil

        pool.giveBack(second)
        let third = try pool.take()
        #expect(third === second)
        _ = try Self.render(Self.requests[0], with: third)
        pool.giveBack(third)
        #expect(try pool.take() === third)
        #expect(pool.openedCount == 2)
    }
}

/// What went wrong on other threads, collected for one expectation.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
