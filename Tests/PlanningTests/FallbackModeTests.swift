// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

/// Speaks every run as a tone of 100 frames a character, and remembers what it was asked.
final class ToneSpeaker: FallbackSpeaker {
    private(set) var spoken: [String] = []
    /// Whether each run was the first thing its request plays.
    private(set) var startsRequest: [Bool] = []

    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        spoken.append(words)
        self.startsRequest.append(startsRequest)
        return SynthesizedSpeech(
            samples: [Float](repeating: 0.25, count: 100 * words.count), levelDecibels: -3, pitchSemitones: 1)
    }
}

/// Hands each run over as a stream the test fills and finishes, as the fallback voice does from espeak-ng's thread.
final class ArrivingSpeaker: FallbackSpeaker {
    private(set) var streams: [SpeechStream] = []
    /// How many samples each run has when it is handed over, finished; `nil` leaves it to the test.
    var wholeFrameCount: Int?

    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        streams.append(SpeechStream())
        if let wholeFrameCount {
            streams.last!.append([Float](repeating: 0.5, count: wholeFrameCount))
            streams.last!.finish()
        }
        return SynthesizedSpeech(arriving: streams.last!, levelDecibels: -3)
    }
}

/// Cannot speak, as a voice whose language espeak-ng lacks.
final class SilentSpeaker: FallbackSpeaker {
    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        throw FallbackVoiceUnavailable(reason: "espeak-ng has no voice for the language tlh")
    }
}

@Suite struct FallbackModeTests {
    let lookup = DictionaryLookup(["hello": [1], "b": [2], "o": [3], "good morning": [4]])
    let fallback = ClipTake(clipID: 99, frameCount: 50)

    func plan(
        _ request: String, mode: FallbackMode, speaker: (any FallbackSpeaker)? = nil, fallbacks: [ClipTake]? = nil,
        asClips: Bool = false
    ) throws -> RenderPlan {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: mode)
        var planner = Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: fallbacks ?? [fallback], fallbackSpeaker: speaker)
        ])
        planner.plansFallbacksAsClips = asClips
        return try planner.plan(SSMLReader().read(request))
    }

    @Test("voice: each maximal run is spoken whole, once, placed like a clip with its level and pitch")
    func voiceRuns() throws {
        let speaker = ToneSpeaker()
        let plan = try plan(
            #"<speak>Hello Bob and Carol, good morning Dave <prosody pitch="+2st">Eve</prosody></speak>"#,
            mode: .voice, speaker: speaker)
        #expect(speaker.spoken == ["bob and carol", "dave", "eve"])
        let spoken = plan.segments.filter(\.isSynthesized)
        #expect(spoken.map(\.frameCount) == [1_300, 400, 300])
        #expect(spoken.map(\.pitchSemitones) == [1, 1, 3])
        #expect(spoken.map(\.gain) == [Float(Decibels.amplitude(-3))].repeated(3))
        #expect(plan.fallbacks.map(\.text) == ["bob and carol", "dave", "eve"])
        #expect(plan.fallbacks.allSatisfy { $0.fallback == .init(mode: .voice, words: $0.text) })
        #expect(plan.markers.filter { $0.fallback == .voice }.map(\.text) == ["bob and carol", "dave", "eve"])
        #expect(
            plan.markers.filter { $0.fallback == nil }.map(\.text) == [
                "hello bob and carol good morning dave eve", "hello", "good morning",
            ])
        #expect(plan.markers.first?.kind == .sentence)
        #expect(plan.markers[2].jsonLine.hasSuffix(#"],"fallback":"voice"}"#))
    }

    @Test(
        "voice: only a run that nothing sounding comes before is told it starts the request",
        arguments: [
            ("Bob hello Carol", [true, false]),
            ("Hello Bob", [false]),
            (#"<speak><mark name="m"/>Bob, <s>Carol</s></speak>"#, [true, false]),
            (#"<speak><break time="100ms"/>Bob</speak>"#, [false]),
            (#"<speak><break time="0ms"/>Bob</speak>"#, [true]),
        ])
    func startsRequest(request: String, expected: [Bool]) throws {
        let speaker = ToneSpeaker()
        _ = try plan(request, mode: .voice, speaker: speaker)
        #expect(speaker.startsRequest == expected, "\(speaker.spoken)")
    }

    @Test("voice: a run still arriving is placed at its start at once; its length and what follows settle at its end")
    func arrivingRun() throws {
        let speaker = ArrivingSpeaker()
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .voice)
        let planner = Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: [fallback], fallbackSpeaker: speaker)
        ])
        let stream = planner.stream(try SSMLReader().read(#"<speak>Hello Bob <mark name="m"/> hello</speak>"#))
        var first = try #require(try stream.nextSegment())
        while !first.segment.isSounding { first = try #require(try stream.nextSegment()) }
        let hello = first
        #expect(hello.text == "hello")
        // Handed out before a sample of it exists: the planner does not wait for the run.
        let bob = try #require(try stream.nextSegment())
        #expect(bob.segment.isArriving && bob.frame == hello.frameCount && bob.frameCount == 0)
        var reached: [IndexedMarker] = []
        while let marker = stream.nextMarker() { reached.append(marker) }
        // The phrase marker of the run waits for its length.
        #expect(reached.map(\.marker.text) == ["hello"])
        let run = try #require(speaker.streams.first)
        run.append([Float](repeating: 0.5, count: 250))
        run.finish()
        var after: [TimedSegment] = []
        while let segment = try stream.nextSegment() { after.append(segment) }
        #expect(after.prefix(2).map(\.frame) == [hello.frameCount + 250, hello.frameCount + 250])
        #expect(after.first?.segment.kind == .mark("m"))
        while let marker = stream.nextMarker() { reached.append(marker) }
        let phrases = reached.sorted { $0.index < $1.index }.map(\.marker).filter { $0.kind == .phrase }
        #expect(phrases.map(\.text) == ["hello", "bob", "hello"])
        #expect(phrases[1].frame == hello.frameCount && phrases[1].frameCount == 250)
        #expect(bob.settled().frameCount == 250 && !bob.settled().segment.isArriving)
    }

    @Test("voice: a run that is stretched or shifted in pitch is placed whole, with its length")
    func arrivingRunStretched() throws {
        let speaker = ArrivingSpeaker()
        speaker.wholeFrameCount = 300
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .voice)
        let planner = Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: [fallback], fallbackSpeaker: speaker)
        ])
        let stream = planner.stream(try SSMLReader().read(#"<speak><prosody rate="2">Bob</prosody></speak>"#))
        var bob = try #require(try stream.nextSegment())
        while !bob.segment.isSounding { bob = try #require(try stream.nextSegment()) }
        #expect(!bob.segment.isArriving && bob.frameCount == 150 && bob.segment.frameCount == 300)
    }

    @Test("voice: a voice whose fallback voice cannot speak falls back to its clip, with one warning")
    func voiceUnavailable() throws {
        let plan = try plan("Hello Bob, good morning Carol", mode: .voice, speaker: SilentSpeaker())
        #expect(plan.fallbacks.map(\.kind) == [.fallback(fallback), .fallback(fallback)])
        #expect(plan.fallbacks.map(\.fallback?.mode) == [.clip, .clip])
        #expect(
            plan.warnings == [
                "the fallback voice cannot speak for com.example.ann (espeak-ng has no voice for the language tlh); "
                    + "its fallback clip speaks the words no clip covers"
            ])
    }

    @Test("planning only to find the fallbacks speaks nothing and plans the clip")
    func asClips() throws {
        let speaker = ToneSpeaker()
        let plan = try plan("Hello Bob", mode: .voice, speaker: speaker, asClips: true)
        #expect(speaker.spoken.isEmpty)
        #expect(plan.fallbacks.map(\.kind) == [.fallback(fallback)])
    }

    @Test("spell: each word letter by letter from the letter clips, a pause between words, one run")
    func spellWithLetters() throws {
        let plan = try plan("Hello Bob Bo", mode: .spell)
        let sounding = plan.segments.filter(\.isSounding)
        #expect(
            sounding.map(\.kind) == [
                .phrase(ClipTake(clipID: 1, frameCount: 100)), .phrase(ClipTake(clipID: 2, frameCount: 200)),
                .phrase(ClipTake(clipID: 3, frameCount: 300)), .phrase(ClipTake(clipID: 2, frameCount: 200)), .silence,
                .phrase(ClipTake(clipID: 2, frameCount: 200)), .phrase(ClipTake(clipID: 3, frameCount: 300)),
            ])
        #expect(sounding.filter { $0.kind == .silence }.map(\.frameCount) == [5_513])
        #expect(plan.fallbacks.map(\.fallback) == [.init(mode: .spell, words: "bob bo")])
        let letters = plan.markers.filter { $0.fallback == .spell }
        #expect(letters.map(\.text) == ["b", "o", "b", "b", "o"])
        #expect(letters.map(\.textRange) == [6..<7, 7..<8, 8..<9, 10..<11, 11..<12])
        #expect(letters.allSatisfy { $0.frameCount > 0 })
    }

    @Test("spell: a character with no clip is the fallback clip; with no fallback clip either, an error")
    func spellWithoutLetters() throws {
        let plan = try plan("box", mode: .spell)
        #expect(
            plan.segments.filter(\.isSounding).map(\.kind) == [
                .phrase(ClipTake(clipID: 2, frameCount: 200)), .phrase(ClipTake(clipID: 3, frameCount: 300)),
                .fallback(fallback),
            ])
        #expect(plan.fallbacks.count == 1)
        #expect(throws: PlanningError.noFallbackClip(voice: "com.example.ann", words: "box")) {
            try self.plan("box", mode: .spell, fallbacks: [])
        }
    }
}

extension Array {
    fileprivate func repeated(_ count: Int) -> [Element] { (0..<count).flatMap { _ in self } }
}
