// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechCore
import SpeechTestSupport
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

/// A synthesizer kept open between requests, as a server or a speech-dispatcher module keeps one.
@Suite struct LongLivedSynthesizerTests {
    @Test(
        "a synthesizer kept open speaks the clips imported after its last request, by another program or through its own connection",
        arguments: [false, true])
    func seesLaterImports(throughOwnConnection: Bool) throws {
        let temporary = TemporaryDirectory("long-lived")
        let path = temporary.file("pack.sqlite")
        let writer = try VoicePack(path: path, access: .create)
        try writer.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in ["hello", "sorry"].enumerated() {
            let clip = temporary.file("\(phrase).aiff")
            try Fixture.seedClip(at: clip, seconds: 0.1, frequency: 300 + 100 * Double(index))
            requests.append(ImportRequest(path: clip, isFallback: phrase == "sorry"))
        }
        _ = try writer.importFiles(requests, into: nil)

        let synthesizer = try Synthesizer(
            pack: throughOwnConnection ? writer : VoicePack(path: path, access: .readOnly))
        var fallbacks: [String] = []
        func render() throws {
            let renderer = try synthesizer.renderer(for: SpeechRequest("hello world")) { note in
                if case .fallback(let words, _) = note { fallbacks.append(words) }
            }
            _ = try pullAll(renderer, blockSize: 512)
        }
        try render()
        #expect(fallbacks == ["world"])

        let world = temporary.file("world.aiff")
        try Fixture.seedClip(at: world, seconds: 0.1, frequency: 700)
        _ = try writer.importFiles([ImportRequest(path: world)], into: nil)
        fallbacks = []
        try render()
        #expect(fallbacks.isEmpty)
    }

    @Test(
        "a clip replaced under its old id, through the synthesizer's own connection or another, plays anew, stretched or not",
        arguments: [false, true])
    func replacedClipPlaysAnew(throughOwnConnection: Bool) throws {
        let temporary = TemporaryDirectory("long-lived-stretch")
        let path = temporary.file("pack.sqlite")
        let writer = try VoicePack(path: path, access: .create)
        try writer.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        let sorry = temporary.file("sorry.aiff")
        let low = temporary.file("hello.aiff")
        let high = temporary.file("high/hello.aiff")
        try FileManager.default.createDirectory(atPath: temporary.file("high"), withIntermediateDirectories: true)
        try Fixture.seedClip(at: sorry, seconds: 0.1, frequency: 300)
        try Fixture.seedClip(at: low, seconds: 0.5, frequency: 200)
        try Fixture.seedClip(at: high, seconds: 0.5, frequency: 600)
        let first = try writer.importFiles(
            [ImportRequest(path: sorry, isFallback: true), ImportRequest(path: low)], into: nil
        ).imported

        let pack = throughOwnConnection ? writer : try VoicePack(path: path, access: .readOnly)
        let synthesizer = try Synthesizer(pack: pack)
        // As recorded, and stretched (which keeps the stretch in the synthesizer's cache).
        let requests = [SpeechRequest("hello"), SpeechRequest("hello", prosody: Prosody(rate: 2))]
        func render(_ synthesizer: Synthesizer) throws -> [[Float]] {
            try requests.map { try pullAll(try synthesizer.renderer(for: $0), blockSize: 512).samples }
        }
        let before = try render(synthesizer)
        #expect(synthesizer.stretchCache.sampleCount > 0)

        let removed = try writer.removeClips(phrases: ["hello"])
        let replaced = try writer.importFiles([ImportRequest(path: high)], into: nil).imported
        // Only a clip that comes back under the same id and length could be mistaken for the old one.
        try #require(replaced.map(\.id) == removed.map(\.id))
        try #require(replaced.map(\.frameCount) == first.filter { !$0.isFallback }.map(\.frameCount))
        let after = try render(synthesizer)
        let fresh = try render(Synthesizer(pack: VoicePack(path: path, access: .readOnly)))
        for index in requests.indices {
            #expect(after[index] != before[index], "\(requests[index].content), \(requests[index].prosody)")
            #expect(after[index] == fresh[index], "\(requests[index].content), \(requests[index].prosody)")
        }
    }
}
