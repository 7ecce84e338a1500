// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import Foundation
import SpeechCore
import TestSupport
import Testing

@testable import AudioIO

/// espeak-ng through its library, and the F0 tracker the fallback voice is matched with.
@Suite struct FallbackVoiceAudioTests {
    @Test("espeak-ng speaks to memory: 22050 Hz samples, the same ones every time")
    func speaks() throws {
        let first = try EspeakNG.shared.synthesize("sunny with a high of twenty four degrees", language: "en-US")
        let second = try EspeakNG.shared.synthesize("sunny with a high of twenty four degrees", language: "en-US")
        // About 2.5 s of speech at espeak-ng's normal rate.
        #expect((22_050 * 3 / 2...22_050 * 4).contains(first.count))
        #expect(first == second)
        #expect(first.contains { abs($0) > 0.1 } && first.allSatisfy { abs($0) <= 1 })
        #expect(try EspeakNG.shared.hasVoice(forLanguage: "ja-JP"))
    }

    @Test("the same words give the same samples whatever was spoken before, at once or after a pause")
    func sameSamplesAfterOthers() throws {
        let text = "zebra crossing ahead"
        let alone = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        // Other words at other settings, then the same words at once: the synthesis makes the library fresh itself.
        _ = try EspeakNG.shared.synthesize("the weather today", language: "en-US", variant: "f3", pitch: 80)
        let afterOthers = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        // Other words at the same settings, made fresh aside during a pause long enough for it.
        _ = try EspeakNG.shared.synthesize("double tap to open", language: "en-US", pitch: 40)
        EspeakNG.shared.makeFresh()
        waitUntilFresh()
        let afterPause = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        // Made fresh aside at other settings than the next synthesis asks for.
        EspeakNG.shared.makeFresh()
        _ = try EspeakNG.shared.synthesize("the weather today", language: "en-US", pitch: 60)
        EspeakNG.shared.makeFresh()
        waitUntilFresh()
        let afterOtherPreparation = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        // A language listed on a library made fresh aside.
        EspeakNG.shared.makeFresh()
        waitUntilFresh()
        #expect(try EspeakNG.shared.hasVoice(forLanguage: "de-DE"))
        let afterListing = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        // Asked for twice at once, back to back with the next synthesis.
        EspeakNG.shared.makeFresh()
        EspeakNG.shared.makeFresh()
        let racing = try EspeakNG.shared.synthesize(text, language: "en-US", pitch: 40)
        #expect(alone.count > 11_025)
        #expect(afterOthers == alone)
        #expect(afterPause == alone)
        #expect(afterOtherPreparation == alone)
        #expect(afterListing == alone)
        #expect(racing == alone)
    }

    @Test("a long series of syntheses, of other texts, voices and languages between, gives each text its own samples")
    func longSeries() throws {
        let requests: [(text: String, language: String, variant: String, pitch: Int)] = [
            ("zebra crossing ahead", "en-US", "", 40), ("the weather today", "en-US", "f3", 80),
            ("double tap to open", "en-GB", "", 50), ("guten Morgen", "de-DE", "m2", 60),
        ]
        func speak(_ index: Int) throws -> [Float] {
            let request = requests[index]
            return try EspeakNG.shared.synthesize(
                request.text, language: request.language, variant: request.variant, pitch: request.pitch)
        }
        let alone = try requests.indices.map(speak)
        // A seeded order, with phonemes asked and the next synthesis made ready aside now and then between.
        var generator = SeededGenerator(seed: 36)
        for step in 0..<40 {
            let index = Int.random(in: requests.indices, using: &generator)
            if step % 5 == 0 { _ = try EspeakNG.shared.phonemes("hello world \(step)", language: "en-US") }
            if step % 3 == 0 { EspeakNG.shared.makeFresh() }
            if step % 6 == 0 { waitUntilFresh() }
            #expect(try speak(index) == alone[index], "step \(step): \"\(requests[index].text)\"")
        }
    }

    @Test("syntheses leave the process's memory as it was")
    func memoryKept() async {
        // In a process of its own, so that no other test's memory comes and goes meanwhile.
        await #expect(processExitsWith: .success) {
            /// The process's own resident memory (the heap, not mapped files), in KB.
            func anonymousKilobytes() -> Int {
                let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
                let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
                return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? Int.max
            }
            func speak(_ count: Int) {
                for index in 0..<count {
                    _ = try? EspeakNG.shared.synthesize(
                        "zebra crossing", language: "en-US", variant: index % 2 == 0 ? "" : "f3", pitch: 40 + index % 2)
                    EspeakNG.shared.makeFresh()
                }
            }
            speak(20)
            let before = anonymousKilobytes()
            speak(500)
            // A library that kept 3 to 4 KB a synthesis would keep 1.5 to 2 MB here.
            exit(anonymousKilobytes() - before < 512 ? 0 : 1)
        }
    }

    @Test("a spawner that was killed is replaced, and the same words give the same samples")
    func spawnerKilled() async {
        // In a process of its own: the spawner killed is the process's, which the other tests share.
        await #expect(processExitsWith: .success) {
            /// Kills the spawner and waits until it has ended (a zombie, as nothing reaps it but EspeakNG).
            func killSpawner() {
                let spawner = EspeakNG.shared.spawnerProcess
                guard spawner > 0, kill(spawner, SIGKILL) == 0 else { exit(2) }
                while true {
                    let stat = (try? String(contentsOfFile: "/proc/\(spawner)/stat", encoding: .utf8)) ?? ""
                    // The state follows the command's closing parenthesis; no file once it is reaped.
                    if stat.isEmpty || stat.split(separator: ")").last?.dropFirst().first == "Z" { break }
                    usleep(1_000)
                }
            }
            func speak() -> [Float] {
                (try? EspeakNG.shared.synthesize("zebra crossing ahead", language: "en-US", pitch: 40)) ?? []
            }
            // As the suite's waitUntilFresh(), which the exit test cannot reach; without a spawner nothing waits.
            func waitUntilFresh() {
                var waitedMilliseconds = 0
                while !EspeakNG.shared.isFresh && waitedMilliseconds < 10_000 {
                    usleep(1_000)
                    waitedMilliseconds += 1
                }
            }
            let before = speak()
            // The library here phonemizes in another language before the new spawner is forked from it.
            _ = try? EspeakNG.shared.phonemes("guten Morgen", language: "de-DE")
            killSpawner()
            let afterKill = speak()
            guard before.count > 11_025, afterKill == before else { exit(1) }
            // Killed with a process made fresh aside waiting for its text, and killed before one is asked for.
            EspeakNG.shared.makeFresh()
            waitUntilFresh()
            killSpawner()
            let afterKillWithWaiting = speak()
            killSpawner()
            EspeakNG.shared.makeFresh()
            waitUntilFresh()
            let afterMadeFresh = speak()
            exit(afterKillWithWaiting == before && afterMadeFresh == before ? 0 : 1)
        }
    }

    /// Waits until a library made fresh aside is ready, as the pause between two requests lets it be. Another test's
    /// synthesis may use it meanwhile, so this waits a while at most and asserts nothing: the samples must be the same
    /// either way.
    func waitUntilFresh() {
        var waitedMilliseconds = 0
        while !EspeakNG.shared.isFresh && waitedMilliseconds < 10_000 {
            usleep(1_000)
            waitedMilliseconds += 1
        }
    }

    @Test("a language espeak-ng lacks is an error naming it")
    func unknownLanguage() throws {
        #expect(try !EspeakNG.shared.hasVoice(forLanguage: "tlh"))
        #expect(throws: AudioIOError.espeakLanguage(language: "tlh")) {
            try EspeakNG.shared.synthesize("nuqneH", language: "tlh")
        }
        let description = AudioIOError.espeakLanguage(language: "tlh").description
        #expect(description.contains("tlh") && !description.contains("\n"))
    }

    @Test("a cancelled synthesis stops at the first piece of audio")
    func cancelled() throws {
        let text = Array(repeating: "the weather today is sunny", count: 20).joined(separator: " ")
        let whole = try EspeakNG.shared.synthesize(text, language: "en-US")
        var asked = 0
        let stopped = try EspeakNG.shared.synthesize(text, language: "en-US") {
            asked += 1
            return true
        }
        #expect(asked == 1)
        #expect(stopped.count < whole.count / 20)
        #expect(stopped == Array(whole[..<stopped.count]))
    }

    @Test("espeak-ng's pitch and variant move its F0 as the fallback voice's matching expects")
    func pitch() throws {
        let text = "double tap to open the settings"
        let low = try PitchTracker.medianFrequency(
            of: EspeakNG.shared.synthesize(text, language: "en-US", pitch: 20))
        let high = try PitchTracker.medianFrequency(
            of: EspeakNG.shared.synthesize(text, language: "en-US", pitch: 80))
        let woman = try PitchTracker.medianFrequency(
            of: EspeakNG.shared.synthesize(text, language: "en-US", variant: "f3"))
        #expect(try #require(low) < #require(high))
        #expect(try #require(woman) > 150)
    }

    @Test("YIN measures a tone's frequency, and finds no F0 in silence", arguments: [100.0, 200, 440])
    func tone(frequency: Double) throws {
        let tone = Signal.sine(frequency: frequency, amplitude: 0.3, sampleRate: 22_050, frameCount: 11_025)
        let measured = try #require(try PitchTracker.medianFrequency(of: tone))
        #expect(abs(12 * log2(measured / frequency)) < 0.1, "\(measured) Hz")
        #expect(try PitchTracker.medianFrequency(of: [Float](repeating: 0, count: 11_025)) == nil)
        #expect(try PitchTracker.medianFrequency(of: Array(tone[..<100])) == nil)
    }
}
