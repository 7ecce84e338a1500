// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Testing

@testable import ConcatSynthCLI

/// `render`'s own argument reader (`RenderArguments.parse`), which saves a short request's process most of its
/// start-up (docs/benchmarks.md), reads exactly what ArgumentParser's `Render` command reads: whatever it accepts, the command accepts with the same values
/// and the same validation; whatever else it hands to the command.
@Suite struct RenderParserTests {
    /// Words an argument list is made of: every option `render` has, values good and bad, forms the reader leaves to
    /// ArgumentParser (`--output=x`, `--help`, an unknown option).
    static let words = [
        "--strict", "--lenient", "--join-report", "--takes", "first", "rotate", "sometimes", "--bank", "b.sqlite",
        "--voice", "org.concatsynth.en", "-o", "--output", "out.wav", "out.ulaw", "out.flac", "-", "--file", "f.ssml",
        "--markers", "m.jsonl", "--allow-audio", "sounds", "--rate", "-20%", "2", "fast", "cute", "--pitch", "-2st",
        "+3st", "--sample-rate", "16000", "16001", "eight", "--encoding", "s16", "ulaw", "mp4", "--picture", "p.svg",
        "p.png", "Hello", "good morning", "--output=x.wav", "-x", "--help", "--bank=c.sqlite", "--", "-v",
    ]

    /// The same argument lists every run: a linear congruential generator, seeded.
    struct Lists: Sequence, IteratorProtocol {
        var state: UInt64 = 0x5EED
        var remaining: Int

        mutating func next() -> [String]? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            var list: [String] = []
            for _ in 0..<(random(9) + 1) { list.append(RenderParserTests.words[random(RenderParserTests.words.count)]) }
            // Most lists name an output, so that validation (a terminal on standard output) is not all they test.
            if random(4) > 0 { list += ["-o", "o.wav"] }
            return list
        }

        mutating func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// What a reader made of an argument list.
    enum Outcome: Equatable {
        case accepted(RenderArguments)
        /// The one-line message the command prints.
        case rejected(String)
    }

    /// What ArgumentParser makes of `list`: the values, or the message of its error.
    func command(_ list: [String]) -> Outcome {
        do {
            return .accepted(try ConcatSynthCommand.Render.parse(list).arguments)
        } catch {
            return .rejected(ConcatSynthCommand.Render.message(for: error))
        }
    }

    /// What the fast path makes of `list`: `nil` when it leaves it to ArgumentParser.
    func fastPath(_ list: [String]) -> Outcome? {
        guard let parsed = RenderArguments.parse(list[...]) else { return nil }
        do {
            try parsed.validate()
            return .accepted(parsed)
        } catch {
            return .rejected(ConcatSynthCommand.Render.message(for: error))
        }
    }

    @Test(
        "everyday forms are read without ArgumentParser, as ArgumentParser reads them",
        arguments: [
            ["-o", "out.wav", "Hello"],
            ["--bank", "b.sqlite", "--voice", "v", "--rate", "-20%", "--pitch", "-2st", "-o", "-", "Hello", "world"],
            ["--file", "f.ssml", "--markers", "m.jsonl", "--picture", "p.svg", "--strict", "-o", "out.ulaw"],
            [
                "--sample-rate", "16000", "--encoding", "s16", "--takes", "first", "--allow-audio", "a", "-o", "x.wav",
                "-",
            ],
        ])
    func everyday(list: [String]) throws {
        let fast = try #require(fastPath(list))
        #expect(fast == command(list))
    }

    @Test("over 1,000 generated argument lists, the fast path accepts and rejects exactly what the command does")
    func generated() {
        var readFast = 0
        for list in Lists(remaining: 1_000) {
            guard let fast = fastPath(list) else { continue }
            readFast += 1
            #expect(fast == command(list), "\(list)")
        }
        // The comparison means something only if the fast path read a good share of the lists.
        #expect(readFast > 100)
    }
}
