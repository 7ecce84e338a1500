// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Rendering

/// Stretched clips kept between segments and requests: the same samples as stretching afresh, bounded, and
/// never from a source as it was.
@Suite struct StretchCacheTests {
    /// Half a second of a 220 Hz tone with a slow tremolo, so that any difference in the stretch shows.
    static let hum: [Float] = (0..<11_025).map { (frame: Int) -> Float in
        let time = Double(frame) / Double(RenderFormat.sampleRate)
        let tremolo: Double = 0.75 + 0.25 * sin(2 * Double.pi * 3 * time)
        return Float(0.4 * sin(2 * Double.pi * 220 * time) * tremolo)
    }

    let lookup = DictionaryLookup(takes: ["hum": [ClipTake(clipID: 1, frameCount: 11_025)]])

    func plan(_ request: String) throws -> RenderPlan {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en"])
        return try Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])]).plan(
            SSMLReader().read(request))
    }

    func clips(version: UInt64? = 1) -> MemoryClips {
        let clips = MemoryClips([1: Self.hum])
        clips.samplesVersion = version
        return clips
    }

    func render(_ request: String, clips: MemoryClips, cache: StretchCache?) throws -> [Float] {
        try pullAll(Renderer(plan: plan(request), audio: clips, stretchCache: cache), blockSize: 700).samples
    }

    static func atRate(_ rate: Double, times: Int = 1) -> String {
        "<speak><prosody rate=\"\(rate)\">\(Array(repeating: "hum", count: times).joined(separator: " "))</prosody></speak>"
    }

    @Test("a kept stretch is bit for bit what stretching again gives, and plays without reading the clip")
    func sameSamples() throws {
        let request = Self.atRate(2, times: 3)
        let fresh = try render(request, clips: clips(), cache: nil)
        let cache = StretchCache()
        let source = clips()
        let first = try render(request, clips: source, cache: cache)
        #expect(first == fresh)
        // One entry for the three segments: the first was stretched, the two after it played what it kept.
        #expect(cache.sampleCount == 5_513)
        let reads = source.readCount
        let again = try render(request, clips: source, cache: cache)
        #expect(again == fresh)
        #expect(source.readCount == reads)
    }

    @Test("another speed or pitch is another entry; unstretched clips are never kept")
    func keys() throws {
        let cache = StretchCache()
        let source = clips()
        _ = try render(Self.atRate(2), clips: source, cache: cache)
        _ = try render(Self.atRate(4), clips: source, cache: cache)
        #expect(cache.sampleCount == 5_513 + 2_756)
        let raised = try render("<speak><prosody pitch=\"+2st\">hum</prosody></speak>", clips: source, cache: cache)
        #expect(raised.count == 11_025)
        #expect(cache.sampleCount == 5_513 + 2_756 + 11_025)
        _ = try render("hum", clips: source, cache: cache)
        #expect(cache.sampleCount == 5_513 + 2_756 + 11_025)
    }

    @Test("a new samples version empties the cache: changed clips are stretched again")
    func version() throws {
        let cache = StretchCache()
        let source = clips(version: 1)
        _ = try render(Self.atRate(2), clips: source, cache: cache)
        source.samples[1] = Self.hum.map { -$0 }
        source.samplesVersion = 2
        let changed = try render(Self.atRate(2), clips: source, cache: cache)
        let fresh = try render(Self.atRate(2), clips: MemoryClips([1: Self.hum.map { -$0 }]), cache: nil)
        #expect(changed == fresh)
        #expect(cache.sampleCount == 5_513)
    }

    @Test("a source that cannot tell its version keeps nothing")
    func noVersion() throws {
        let cache = StretchCache()
        _ = try render(Self.atRate(2, times: 2), clips: clips(version: nil), cache: cache)
        #expect(cache.sampleCount == 0)
    }

    @Test("when full, the least recently used stretch goes first")
    func leastRecentlyUsed() throws {
        // Room for the 2x (5513 frames) and 4x (2756) stretches, not for the 3x (3675) as well.
        let cache = StretchCache(sampleCapacity: 10_000)
        let source = clips()
        /// Renders at `rate` and says whether the clip was read, that is stretched rather than kept.
        func stretches(_ rate: Double) throws -> Bool {
            let before = source.readCount
            _ = try render(Self.atRate(rate), clips: source, cache: cache)
            return source.readCount > before
        }
        #expect(try stretches(2))
        #expect(try stretches(3))
        #expect(try !stretches(2))
        #expect(try stretches(4))
        #expect(cache.sampleCount == 5_513 + 2_756)
        #expect(try !stretches(2), "the 2x stretch, used last, stayed")
        #expect(try stretches(3), "the 3x stretch, used least recently, went")
    }

    @Test("a segment cancelled halfway is not kept")
    func cancelled() throws {
        let cache = StretchCache()
        let renderer = Renderer(plan: try plan(Self.atRate(0.5)), audio: clips(), stretchCache: cache)
        var buffer = [Float](repeating: 0, count: 1_000)
        _ = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
        renderer.cancel()
        _ = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
        #expect(cache.sampleCount == 0)
    }
}
