// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Foundation
import NIOCore
import TestSupport
import Testing
import Voicebank

@testable import HTTPService
@testable import WyomingService

/// The servers' render jobs give their synthesizer back only once its renderer is gone: a renderer alive past the
/// `giveBack` would close the blob handle of a connection that another request, lent it meanwhile, reads on another
/// thread (a clip read as a garbage length under load). The pool lends no such synthesizer again but opens another,
/// so a job that gives back too early shows as a new connection per request.
@Suite struct SpeechJobTests {
    let directory = TemporaryDirectory("speech-job")
    var pack: String { directory.file("pack.sqlite") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
    }

    @Test("Wyoming requests one after another all render on the pool's first synthesizer")
    func wyomingJobs() throws {
        let pool = SynthesizerPool(bank: pack)
        var byteCounts: [Int] = []
        for _ in 0..<3 {
            let job = SpeechJob(
                request: SpeechRequest("Hello, good morning"), pool: pool, logPrefix: "test", log: { _ in })
            var byteCount = 0
            while true {
                let step = try job.step(allocator: ByteBufferAllocator())
                byteCount += step.audio.readableBytes
                if step.isComplete { break }
            }
            byteCounts.append(byteCount)
        }
        #expect(byteCounts[0] > 10_000)
        #expect(Set(byteCounts).count == 1)
        #expect(pool.openedCount == 1)
    }

    @Test(
        "HTTP requests one after another, pcm and wav, all render on the pool's first synthesizer",
        arguments: [
            AudioResponseFormat.pcm, .file(extension: "wav", encoding: nil, contentType: "audio/wav"),
        ])
    func httpJobs(format: AudioResponseFormat) throws {
        let pools = try SynthesizerPools(VoiceCatalog(bank: pack))
        let voice = try #require(pools.voice(named: "org.concatsynth.en"))
        let temporaryFolder = try TemporaryFolder(label: "speech-job-test")
        defer { temporaryFolder.remove() }
        var byteCounts: [Int] = []
        for _ in 0..<3 {
            let order = SpeechOrder(input: "Hello, good morning", isSSML: false, voice: voice, speed: 1, format: format)
            let job = HTTPSpeechJob(order: order, temporaryFolder: temporaryFolder, maximumFileSeconds: 60)
            var byteCount = 0
            while true {
                let step = try job.step(allocator: ByteBufferAllocator())
                byteCount += step.bytes.readableBytes
                if step.isComplete { break }
            }
            byteCounts.append(byteCount)
        }
        #expect(byteCounts[0] > 10_000)
        #expect(Set(byteCounts).count == 1)
        // SynthesizerPools opened the first to check the pack.
        #expect(voice.pool.openedCount == 1)
    }
}
