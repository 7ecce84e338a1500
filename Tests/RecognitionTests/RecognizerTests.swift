// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import Recognition
import SpeechCore
import TestSupport
import Testing

/// pocketsphinx through Debian's library, listening to speech made in the test by espeak-ng (through its library)
/// and to the tests' screen-reader clips (flite's slt voice, `ScreenReaderPack`).
@Suite struct RecognizerTests {
    static let compass = ["east", "west", "north", "south", "good morning", "hello"]
    static var sources: String { ScreenReaderPack.englishSources + "/en" }

    @Test("hears which phrase of a grammar espeak-ng said", arguments: compass)
    func grammar(phrase: String) throws {
        let samples = try EspeakNG.shared.synthesize(phrase, language: "en-US")
        let heard = try Recognizer().hear(samples, sampleRate: 22_050, grammar: Self.compass)
        #expect(heard == phrase.split(separator: " ").map(String.init))
    }

    @Test("audio at any rate is converted to the model's 16 kHz", arguments: [8_000, 16_000, 48_000])
    func sampleRates(rate: Int) throws {
        let samples = try SampleRateConversion.convert(
            EspeakNG.shared.synthesize("west", language: "en-US"), from: 22_050, to: rate)
        #expect(try Recognizer().hear(samples, sampleRate: rate, grammar: Self.compass) == ["west"])
    }

    @Test("one recogniser listens for one grammar, then another, then the first again")
    func changingGrammars() throws {
        let recognizer = try Recognizer()
        let north = try EspeakNG.shared.synthesize("north", language: "en-US")
        #expect(try recognizer.hear(north, sampleRate: 22_050, grammar: Self.compass) == ["north"])
        // A grammar without the word said: the nearest phrase of it, never a word outside it.
        let heard = try recognizer.hear(north, sampleRate: 22_050, grammar: ["hello", "good morning"])
        #expect(heard.isEmpty || heard == ["hello"] || heard == ["good", "morning"])
        #expect(try recognizer.hear(north, sampleRate: 22_050, grammar: Self.compass) == ["north"])
    }

    @Test("silence is heard as nothing")
    func silence() throws {
        let samples = [Float](repeating: 0, count: 22_050)
        #expect(try Recognizer().hear(samples, sampleRate: 22_050, grammar: Self.compass) == [])
    }

    @Test("words not in the dictionary: named, and their phrases left out of a grammar")
    func unknownWords() throws {
        let recognizer = try Recognizer()
        #expect(recognizer.unknownWords(in: "east qzxv west") == ["qzxv"])
        #expect(recognizer.unknownWords(in: "good morning") == [])
        let samples = try EspeakNG.shared.synthesize("south", language: "en-US")
        #expect(try recognizer.hear(samples, sampleRate: 22_050, grammar: ["qzxv south", "south"]) == ["south"])
        #expect(throws: RecognitionError.noKnownPhrase(phrases: ["qzxv", "blorptang zz"])) {
            try recognizer.hear(samples, sampleRate: 22_050, grammar: ["qzxv", "blorptang zz"])
        }
    }

    @Test(
        "how many phones apart two phrases sound, each word's alternative pronunciations counted",
        arguments: [
            ("two", "to", 0), ("you", "u", 0), ("m", "n", 1), ("off", "on", 1), ("east", "west", 2),
            ("good morning", "good morning", 0), ("good morning", "good mourning", 0),
        ])
    func phoneDistance(phrase: String, other: String, distance: Int) throws {
        #expect(try Recognizer().phoneDistance(phrase, other) == distance)
    }

    @Test("no phone distance to a phrase with a word not in the dictionary")
    func phoneDistanceUnknown() throws {
        #expect(try Recognizer().phoneDistance("east", "qzxv") == nil)
    }

    @Test("a rate no recording has is refused")
    func badRate() throws {
        #expect(throws: RecognitionError.unsupportedSampleRate(0)) {
            try Recognizer().hear([0, 0], sampleRate: 0, grammar: Self.compass)
        }
    }

    @Test(
        "free-form: the screen-reader clips heard with the language model",
        arguments: [
            ("nice_to_meet_you.aiff", "nice to meet you", 0.0), ("good_morning.aiff", "good morning", 0.0),
            ("new_message.aiff", "new message", 0.0),
            // Free-form is not exact: "slide the bar down to select a custom action" in the run that set this bound.
            ("swipe_up_or_down_to_select_a_custom_action.aiff", "swipe up or down to select a custom action", 0.4),
        ])
    func freeForm(file: String, text: String, largestRate: Double) throws {
        let clip = try PreparedClip(path: "\(Self.sources)/\(file)")
        let heard = try Recognizer().hear(clip.renderReady, sampleRate: RenderFormat.sampleRate)
        let errors = WordErrors(reference: WordErrors.words(in: text), hypothesis: heard)
        #expect(errors.rate <= largestRate, "heard \(heard): \(errors)")
    }

    @Test("a model file that is missing is named, with the package that brings it")
    func missingModel() throws {
        var model = RecognitionModel.english
        model.dictionary = "/nonexistent/cmudict-en-us.dict"
        let error = try #require(throws: RecognitionError.self) { try Recognizer(model: model) }
        #expect(error == .modelMissing(path: "/nonexistent/cmudict-en-us.dict"))
        #expect(error.description.contains("pocketsphinx-en-us"))
    }
}

@Suite struct WordErrorsTests {
    @Test(
        "word-level edit distance: substitutions, deletions, insertions",
        arguments: [
            ("sunny and warm", "sunny and warm", 0, 0, 0),
            ("sunny and warm", "sunny warm", 0, 1, 0),
            ("sunny and warm", "sunny and very warm", 0, 0, 1),
            ("sunny and warm", "funny and worm", 2, 0, 0),
            ("sunny and warm", "", 0, 3, 0),
            ("", "hello", 0, 0, 1),
            ("the meeting starts at three", "meeting starts at three thirty", 0, 1, 1),
        ])
    func distance(reference: String, hypothesis: String, substitutions: Int, deletions: Int, insertions: Int) {
        let errors = WordErrors(
            reference: WordErrors.words(in: reference), hypothesis: WordErrors.words(in: hypothesis))
        #expect(
            errors
                == WordErrors(
                    referenceWordCount: WordErrors.words(in: reference).count, substitutions: substitutions,
                    deletions: deletions, insertions: insertions))
    }

    @Test("a corpus's rate is its errors over its reference words, not the mean of its sentences' rates")
    func corpus() {
        let total =
            WordErrors(reference: ["a"], hypothesis: ["b"])
            + WordErrors(reference: ["c", "d", "e"], hypothesis: ["c", "d", "e"])
        #expect(total.rate == 0.25)
        #expect(WordErrors().rate == 0)
    }

    @Test("texts compare as lower-case words; punctuation and hyphens split them")
    func words() {
        #expect(WordErrors.words(in: "Wi-Fi is ON, it's 3 p.m.") == ["wi", "fi", "is", "on", "it's", "3", "p", "m"])
    }
}
