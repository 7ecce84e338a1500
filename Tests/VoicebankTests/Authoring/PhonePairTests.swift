// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
import Units
import VoicebankAuthoring

@testable import Voicebank

/// Words to phones from a table, so that the pairs a test expects are known.
final class TableTranscriber: PhoneTranscriber {
    let table: [String: [String]]

    init(_ table: [String: String]) { self.table = table.mapValues { $0.split(separator: " ").map(String.init) } }

    func phoneLabels(for words: [String]) -> [[String]] { words.map { table[$0] ?? [] } }
}

/// Phone-pair coverage: the pairs texts need and a voice has, and the script chosen to cover them.
@Suite struct PhonePairTests {
    let transcriber = TableTranscriber([
        "bob": "B AA B", "says": "S EH Z", "hi": "HH AY", "sees": "S IY Z", "bees": "B IY Z", "hobby": "HH AA B IY",
    ])

    @Test("the pairs the runs need that the voice lacks, most needed first, with the words that have them")
    func missingPairs() throws {
        let coverage = try PhonePairCoverage(
            runs: [["bob", "says", "hi"], ["bob"]], have: [PhonePair("B", "AA"), PhonePair("S", "EH")],
            transcriber: transcriber)

        #expect(coverage.neededCount == 7)
        #expect(coverage.coveredCount == 2)
        #expect(coverage.missing.map(\.pair.description) == ["AA-B", "B-S", "EH-Z", "HH-AY", "Z-HH"])
        #expect(coverage.missing.first?.count == 2 && coverage.missing.first?.words == ["bob"])
        #expect(coverage.missing[1].words == ["bob says"])
        #expect(
            coverage.description.hasSuffix(
                "  1\tZ-HH\tsays hi\nphone-pairs: 2 of 7 the fallbacks need (28.6 %)"))
    }

    @Test("the script takes the sentence that adds the most common pairs first, and stops when none adds one")
    func greedyScript() throws {
        let sentences = ["Bob says hi.", "Bees.", "Sees bees.", "Hobby.", "Bob."]

        let chosen = try PhonePairScript.choose(from: sentences, have: [], transcriber: transcriber)
        let every = ["B AA B S EH Z HH AY", "B IY Z", "S IY Z B IY Z", "HH AA B IY"].flatMap {
            PhonePair.pairs($0.split(separator: " ").map(String.init))
        }
        let voiceHasAll = try PhonePairScript.choose(from: sentences, have: Set(every), transcriber: transcriber)

        // "Bob says hi" adds seven pairs; then "Sees bees" (B-IY and IY-Z, which others have too, S-IY, Z-B); then
        // "Hobby" adds HH-AA, and "Bees" and "Bob" add nothing.
        #expect(chosen == ["Bob says hi.", "Sees bees.", "Hobby."])
        #expect(voiceHasAll.isEmpty)
        #expect(try PhonePairScript.choose(from: sentences, have: [], transcriber: transcriber, limit: 1).count == 1)
    }

    @Test("a text's sentences end at . ! ? and lines; markup is left out")
    func sentences() {
        #expect(
            PhonePairScript.sentences(in: "Hello there. How are you?\nFine!\n<speak>no</speak>\n  last one  ")
                == ["Hello there.", "How are you?", "Fine!", "last one"])
    }

    @Test("a voice's pairs: an aligned take's touching phones, an unaligned take's phrase, none from a failed one")
    func packPairs() throws {
        let directory = TemporaryDirectory("phone-pairs")
        let path = directory.file("pack.sqlite")
        try makePack(version: Schema.currentVersion, at: path)
        var clips: [String] = []
        for (id, phrase) in ["bob says", "hi", "bees", "sees"].enumerated() {
            clips.append(
                """
                INSERT INTO clip (voice_id, phrase, phrase_key, token_count, source_name, source_container,
                    source_sample_format, source_sample_rate, source_channel_count, source_frame_count,
                    original_encoding, original_pcm, content_hash, converter, frame_count, pcm)
                    VALUES (1, '\(phrase)', '\(phrase)', 1, 'c.wav', 'WAV', 'Signed 16 bit PCM', 22050, 1, 1, 's16le',
                    x'0100', \(id), 'best', 1, x'0000803f');
                """)
        }
        // Clip 1 aligned with a pause between its words (no B-S); clip 3 aligned; clip 4 failed; clip 2 not aligned.
        try execute(
            clips.joined() + """
                UPDATE voice SET primary_languages = 'en-US';
                INSERT INTO alignment VALUES (1, 'test', -20, NULL), (3, 'test', -20, NULL), (4, 'test', NULL, 'no');
                INSERT INTO aligned_word VALUES (1, 0, 'bob', 0, 30), (1, 1, 'says', 40, 70), (3, 0, 'bees', 0, 30);
                INSERT INTO aligned_phone VALUES (1, 0, 0, 'B', 0, 10), (1, 1, 0, 'AA', 10, 20), (1, 2, 0, 'B', 20, 30),
                    (1, 3, 1, 'S', 40, 50), (1, 4, 1, 'EH', 50, 60), (1, 5, 1, 'Z', 60, 70),
                    (3, 0, 0, 'B', 0, 10), (3, 1, 0, 'IY', 10, 20), (3, 2, 0, 'Z', 20, 30);
                """, on: path)

        let pairs = try VoicePack(path: path, access: .readOnly).phonePairs(voice: nil, transcriber: transcriber)

        #expect(pairs.map(\.description).sorted() == ["AA-B", "B-AA", "B-IY", "EH-Z", "HH-AY", "IY-Z", "S-EH"])
    }

    @Test("the English front end's phones come out as the aligner labels them, without stress")
    func englishFrontEnd() throws {
        let phones = try EnglishFrontEnd().phoneLabels(for: ["hello", "world", "hello"])

        #expect(phones == [["HH", "AH", "L", "OW"], ["W", "ER", "L", "D"], ["HH", "AH", "L", "OW"]])
    }
}
