// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Planning
import SSML
import SpeechCore
import SpeechTestSupport
import Synchronization
import Testing

@testable import Rendering

/// Speaks each run as one second of a 220 Hz tone: the fallback voice's speech with a frequency to measure.
final class ToneVoice: FallbackSpeaker {
    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        SynthesizedSpeech(samples: ProsodyRenderingTests.toneThenSilence.prefix(22_050).map { $0 })
    }
}

/// Speaks each run as the same second of tone as `ToneVoice`, arriving: the first `arrivedFrameCount` samples are in
/// the stream when it is handed over, and the test adds the rest.
final class ArrivingToneVoice: FallbackSpeaker {
    let arrivedFrameCount: Int
    private(set) var streams: [SpeechStream] = []

    init(arrivedFrameCount: Int) { self.arrivedFrameCount = arrivedFrameCount }

    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        let stream = SpeechStream()
        stream.append(Array(ProsodyRenderingTests.toneThenSilence.prefix(arrivedFrameCount)))
        streams.append(stream)
        return SynthesizedSpeech(arriving: stream)
    }

    /// Adds the rest of each run and finishes it.
    func finish() {
        for stream in streams {
            stream.append(Array(ProsodyRenderingTests.toneThenSilence[arrivedFrameCount..<22_050]))
            stream.finish()
        }
    }
}

/// The fallback voice's speech in the timeline: stretched, shifted and faded like a clip, and stopped by a cancel.
@Suite struct FallbackVoiceRenderingTests {
    let lookup = DictionaryLookup(takes: ["hello": [ClipTake(clipID: 1, frameCount: 22_050)]])
    let clips = MemoryClips([1: Array(ProsodyRenderingTests.toneThenSilence[..<22_050])])

    func planner(speaker: any FallbackSpeaker) -> Planner<DictionaryLookup> {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .voice)
        return Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [], fallbackSpeaker: speaker)])
    }

    @Test(
        "rate and pitch apply to the fallback voice's speech as to a clip",
        arguments: [(1.0, 0.0), (2, 0), (1, 2), (2, 2), (0.5, -3)])
    func prosody(speed: Double, semitones: Double) throws {
        let plan = try planner(speaker: ToneVoice()).plan(
            SSMLReader().read("Bob", prosody: Prosody(rate: speed, pitchSemitones: semitones)))
        let samples = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 1_000).samples
        #expect(samples.count == Int((22_050 / speed).rounded()))
        let frequency = ProsodyRenderingTests.frequency(samples[...])
        #expect(abs(12 * log2(frequency / 220) - semitones) < 0.2, "\(frequency) Hz")
    }

    @Test("speech arriving while it plays: its first frames come before it is whole, and are those of the whole")
    func arriving() throws {
        let request = #"<speak>hello Bob <mark name="end"/></speak>"#
        let whole = try pullAll(
            Renderer(plan: planner(speaker: ToneVoice()).plan(SSMLReader().read(request)), audio: clips),
            blockSize: 512)

        let voice = ArrivingToneVoice(arrivedFrameCount: 2_000)
        let stream = planner(speaker: voice).stream(try SSMLReader().read(request))
        let renderer = Renderer(source: stream, audio: clips, cancellation: stream.cancellation)
        var buffer = [Float](repeating: .nan, count: 512)
        var samples: [Float] = []
        var markers: [IndexedMarker] = []
        // The clip, then the run's first frames, with only 2,000 of its 22,050 made.
        while samples.count < 22_050 + 1_024 {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            #expect(pulled.frameCount == 512 && !pulled.isComplete)
            samples += buffer[..<pulled.frameCount]
            markers += renderer.reachedMarkers
        }
        // Its phrase marker waits for its length.
        #expect(markers.map(\.marker.text) == ["hello"])
        voice.finish()
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += buffer[..<pulled.frameCount]
            markers += renderer.reachedMarkers
            if pulled.isComplete { break }
        }
        #expect(samples == whole.samples)
        let bob = try #require(markers.first { $0.marker.text == "bob" }?.marker)
        #expect(bob.frame == 22_050 && bob.frameCount == 22_050)
        #expect(markers.first { $0.marker.kind == .mark }?.marker.frame == 44_100)
    }

    /// 275 words, about 100 s of speech: two runs, as a run is cut at 256 words; the first plays as espeak-ng speaks
    /// it.
    static let longText = Array(repeating: "the weather today is sunny with a high of twenty degrees", count: 25)
        .joined(separator: " ")

    @Test("a render given up inside a long fallback phrase, without a cancel, stops espeak-ng inside it too")
    func abandonedInsidePhrase() throws {
        let text = Self.longText
        let voice = FallbackVoice(language: "en-US", settings: .standard)
        let whole = try voice.speak(text, startsRequest: true, cancellation: Cancellation()).samples.count
        let speaker = KeepingSpeaker(voice)
        do {
            let stream = planner(speaker: speaker).stream(try SSMLReader().read(text))
            let renderer = Renderer(source: stream, audio: clips, cancellation: stream.cancellation)
            var buffer = [Float](repeating: 0, count: 4_096)
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            #expect(pulled.frameCount == 4_096)
        }
        let spoken = try #require(speaker.speeches.first).samples.count
        #expect(spoken < whole / 4, "\(spoken) of \(whole) frames made")
    }

    @Test(
        "a cancel from another thread while a long fallback phrase plays: the render stops within the block under way, espeak-ng inside the phrase"
    )
    func cancelWhilePlaying() throws {
        let text = Self.longText
        let voice = FallbackVoice(language: "en-US", settings: .standard)
        let whole = try voice.speak(text, startsRequest: true, cancellation: Cancellation()).samples.count

        let speaker = KeepingSpeaker(voice)
        let stream = planner(speaker: speaker).stream(try SSMLReader().read(text))
        let renderer = Renderer(source: stream, audio: clips, cancellation: stream.cancellation)
        let progress = CancelProgress()
        let cancellation = renderer.cancellation
        let go = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            go.wait()
            cancellation.cancel()
            progress.cancelledAt.store(
                progress.renderedFrames.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            progress.cancelled.signal()
        }
        let blockSize = 4_096
        var buffer = [Float](repeating: 0, count: blockSize)
        var blockCount = 0
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            progress.renderedFrames.add(pulled.frameCount, ordering: .sequentiallyConsistent)
            blockCount += 1
            // The first frames of the phrase are out: the cancel comes while the next blocks are pulled.
            if blockCount == 3 { go.signal() }
            if pulled.isComplete { break }
        }
        // The next synthesis follows once the cancelled one has stopped, and speaks as if nothing came before it.
        let next = try voice.speak("good morning", startsRequest: true, cancellation: Cancellation()).samples
        progress.cancelled.wait()

        let rendered = progress.renderedFrames.load(ordering: .sequentiallyConsistent)
        let cancelledAt = progress.cancelledAt.load(ordering: .sequentiallyConsistent)
        #expect(cancelledAt >= 3 * blockSize)
        #expect(rendered - cancelledAt <= blockSize, "\(rendered - cancelledAt) frames after the cancel")
        #expect(rendered < whole / 4, "\(rendered) of \(whole) frames rendered")
        let spoken = try #require(speaker.speeches.first).samples.count
        #expect(spoken < whole / 4, "\(spoken) of \(whole) frames made")
        #expect(next == (try voice.speak("good morning", startsRequest: true, cancellation: Cancellation()).samples))
    }

    @Test("its edges fade like a clip's, and an exact break beside it stays exact")
    func edges() throws {
        let plan = try planner(speaker: ToneVoice()).plan(
            SSMLReader().read(#"<speak>hello <break time="178ms"/> Bob</speak>"#))
        let samples = try pullAll(Renderer(plan: plan, audio: clips), blockSize: 1_000).samples
        #expect(samples.count == 22_050 + 3_925 + 22_050)
        #expect(samples[22_050..<(22_050 + 3_925)].allSatisfy { $0 == 0 })
        let speech = Array(samples[(22_050 + 3_925)...])
        let tone = ProsodyRenderingTests.toneThenSilence
        // 2 ms fades at both ends; between them the samples are the speech's, bit for bit.
        #expect(Array(speech[44..<(22_050 - 44)]) == Array(tone[44..<(22_050 - 44)]))
        #expect(abs(speech[1]) < abs(tone[1]) || tone[1] == 0)
        #expect(abs(speech[22_048]) < abs(tone[22_048]))
        #expect(plan.fallbackVoiceJoinFrames == [22_050 + 3_925])
    }

    @Test("a cancelled render stops inside a long fallback phrase: the phrase is cut short and nothing plays")
    func cancelInsidePhrase() throws {
        let text = Self.longText
        let voice = FallbackVoice(language: "en-US", settings: .standard)
        let whole = try voice.speak(text, startsRequest: true, cancellation: Cancellation())
        #expect(whole.samples.count > 22_050 * 60)

        let speaker = StartSignallingSpeaker(voice)
        let stream = planner(speaker: speaker).stream(try SSMLReader().read(text))
        let renderer = Renderer(source: stream, audio: clips, cancellation: stream.cancellation)
        // Cancelled as the first phrase starts, from the rendering thread itself: a cancel from another thread after
        // a sleep made the test depend on how busy the machine was.
        speaker.onStart = { renderer.cancel() }
        let samples = try pullAll(renderer, blockSize: 4_096).samples
        #expect(samples.isEmpty)
        let spoken = try #require(speaker.spokenFrameCounts.first)
        #expect(spoken < whole.samples.count / 4, "\(spoken) of \(whole.samples.count) frames made")
    }
}

/// A fallback voice that keeps the speech it hands over, to look at once the render is gone.
final class KeepingSpeaker: FallbackSpeaker {
    let voice: FallbackVoice
    private(set) var speeches: [SynthesizedSpeech] = []

    init(_ voice: FallbackVoice) { self.voice = voice }

    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        speeches.append(try voice.speak(words, startsRequest: startsRequest, cancellation: cancellation))
        return speeches.last!
    }
}

/// A fallback voice that says when a phrase starts, and remembers how much of each it made.
final class StartSignallingSpeaker: FallbackSpeaker, @unchecked Sendable {
    // @unchecked Sendable: `onStart` and the counts are used by the rendering thread, and read after it.
    let voice: FallbackVoice
    /// Called as each phrase starts, before any of it is made.
    var onStart: (() -> Void)?
    private(set) var spokenFrameCounts: [Int] = []

    init(_ voice: FallbackVoice) { self.voice = voice }

    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        onStart?()
        let speech = try voice.speak(words, startsRequest: startsRequest, cancellation: cancellation)
        spokenFrameCounts.append(speech.samples.count)
        return speech
    }
}

/// How far a render had come when another thread cancelled it.
final class CancelProgress: Sendable {
    /// Frames the render has written, counted after each pull.
    let renderedFrames = Atomic<Int>(0)
    /// `renderedFrames` just after the cancel.
    let cancelledAt = Atomic<Int>(-1)
    /// Signalled once the cancel is made and `cancelledAt` set.
    let cancelled = DispatchSemaphore(value: 0)
}
