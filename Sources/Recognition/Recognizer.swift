// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
internal import CPocketSphinx
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The files of a pocketsphinx model: an acoustic model, a pronunciation dictionary and a language model.
public struct RecognitionModel: Equatable, Sendable {
    /// The acoustic model's folder (`mdef`, `means`, …).
    public var acousticModel: String
    /// The pronunciation dictionary: the words the recogniser knows.
    public var dictionary: String
    /// The n-gram language model that free-form recognition uses.
    public var languageModel: String
    /// The language it hears (BCP 47): `en` hears every English voice (`en-US`, `en-GB`).
    public var language: String

    /// US English, as Debian's pocketsphinx-en-us installs it.
    public static let english = RecognitionModel(
        acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict",
        languageModel: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin", language: "en")

    /// Whether the model hears speech in `tag` (BCP 47): its language, or a region or variant of it.
    public func hears(language tag: String) -> Bool {
        let tag = tag.lowercased()
        return tag == language || tag.hasPrefix(language + "-")
    }

    /// The files pocketsphinx opens; it ends the process (sphinxbase's `E_FATAL`) on some it cannot read, so their
    /// presence is checked first.
    var requiredFiles: [String] {
        ["mdef", "means", "variances", "transition_matrices", "sendump", "feat.params", "noisedict"].map {
            "\(acousticModel)/\($0)"
        } + [dictionary, languageModel]
    }
}

/// An offline speech recogniser (pocketsphinx, through Debian's C library): the words heard in audio, either among
/// the phrases of a grammar ("did this take say its phrase?") or free-form, with the model's language model (for
/// word error rates).
///
/// libpocketsphinx is loaded (dlopen) when the first recogniser is made, so a program that never listens does not
/// need it. Every use of pocketsphinx in the process goes through one lock (its log, where it says why a call
/// failed, is the process's), so a recogniser may be called from any thread, one call at a time.
///
/// ```swift
/// let recognizer = try Recognizer()
/// let heard = try recognizer.hear(samples, sampleRate: 22_050, grammar: ["east", "west", "good morning"])
/// // ["west"]
/// ```
public final class Recognizer: @unchecked Sendable {
    /// The rate the model was trained at; audio is converted to it.
    public static let sampleRate = 16_000

    public let model: RecognitionModel
    private let library: UnsafePointer<concat_synth_pocketsphinx>
    /// The `ps_decoder_t`, freed in `deinit`.
    private let decoder: OpaquePointer
    /// The JSGF text of the decoder's grammar search, so that a grammar used again is not parsed again. Read and
    /// written under `lock` only, as is the decoder (hence `@unchecked Sendable`).
    private var grammarText: String?
    /// Whether the free-form search (the language model, 26 MB) is loaded.
    private var hasLanguageModel = false

    private static let lock = Mutex(())
    private static let grammarSearch = "phrases"
    private static let languageModelSearch = "free"

    /// Loads libpocketsphinx (on first use) and the model.
    ///
    /// - Throws: `RecognitionError.libraryUnavailable` (libpocketsphinx3 is not installed), `.modelMissing` (a model
    ///   file is missing), `.failed` (pocketsphinx refused the model).
    public init(model: RecognitionModel = .english) throws(RecognitionError) {
        self.model = model
        (library, decoder) = try Self.lock.withLock { _ throws(RecognitionError) in
            guard let library = concat_synth_pocketsphinx_load() else {
                throw .libraryUnavailable(reason: String(cString: concat_synth_pocketsphinx_load_error()))
            }
            if let missing = model.requiredFiles.first(where: { !fileExists($0) }) {
                throw .modelMissing(path: missing)
            }
            let arguments = ["-hmm", model.acousticModel, "-dict", model.dictionary]
            var cArguments = arguments.map { strdup($0) }
            defer { for argument in cArguments { free(argument) } }
            concat_synth_pocketsphinx_clear_error()
            guard
                let configuration = library.pointee.cmd_ln_parse_r(
                    nil, library.pointee.ps_args(), Int32(cArguments.count), &cArguments, 1)
            else { throw Self.failure("cmd_ln_parse_r(\(arguments.joined(separator: " ")))") }
            // The decoder keeps its own reference to the configuration.
            defer { _ = library.pointee.cmd_ln_free_r(configuration) }
            guard let decoder = library.pointee.ps_init(configuration) else {
                throw Self.failure("ps_init with the model \(model.acousticModel)")
            }
            return (library, decoder)
        }
    }

    deinit {
        Self.lock.withLock { _ in _ = library.pointee.ps_free(decoder) }
    }

    /// The words of `phrase` (words separated by spaces, in lower case, as a phrase key has them) that are not in the
    /// recogniser's dictionary: a phrase with any cannot be listened for.
    public func unknownWords(in phrase: String) -> [String] {
        Self.lock.withLock { _ in unknownWordsLocked(in: phrase) }
    }

    /// How many phones apart two phrases (words separated by spaces) sound: the fewest phones substituted, deleted
    /// or inserted between a pronunciation of one and one of the other, each word's alternatives counted (the
    /// dictionary's `to(2)`). 0 for homophones ("two" and "to", "you" and "u"), which no recogniser can tell apart;
    /// `nil` when a word is not in the dictionary.
    public func phoneDistance(_ phrase: String, _ other: String) -> Int? {
        Self.lock.withLock { _ in
            let first = pronunciationsLocked(of: phrase)
            let second = pronunciationsLocked(of: other)
            return first.flatMap { one in
                second.map { WordErrors(reference: one, hypothesis: $0).errorCount }
            }.min()
        }
    }

    /// The words heard in `samples`, which must be one of `phrases` (or nothing, when no phrase fits): the
    /// recogniser picks the phrase that sounds most like the audio. Phrases with a word not in the dictionary
    /// (`unknownWords(in:)`) are left out.
    ///
    /// - Parameters:
    ///   - samples: mono audio, full scale ±1.
    ///   - sampleRate: its rate in Hz; it is converted to the model's 16 kHz.
    ///   - phrases: words separated by spaces, in lower case.
    /// - Throws: `RecognitionError.noKnownPhrase` when no phrase is left, `.unsupportedSampleRate`, `.audio` (the
    ///   conversion), `.failed`.
    public func hear(_ samples: [Float], sampleRate: Int, grammar phrases: [String]) throws(RecognitionError)
        -> [String]
    {
        let pcm = try Self.modelPCM(samples, sampleRate: sampleRate)
        return try Self.lock.withLock { _ throws(RecognitionError) in
            var known: [String] = []
            var seen = Set<String>()
            for phrase in phrases {
                let words = phrase.split(separator: " ").joined(separator: " ")
                if !words.isEmpty, unknownWordsLocked(in: words).isEmpty, seen.insert(words).inserted {
                    known.append(words)
                }
            }
            guard !known.isEmpty else { throw .noKnownPhrase(phrases: phrases) }
            let grammar = "#JSGF V1.0;\ngrammar phrases;\npublic <phrase> = \(known.joined(separator: " | "));\n"
            if grammar != grammarText {
                concat_synth_pocketsphinx_clear_error()
                guard library.pointee.ps_set_jsgf_string(decoder, Self.grammarSearch, grammar) == 0 else {
                    grammarText = nil
                    throw Self.failure("ps_set_jsgf_string for \(known.count) phrases")
                }
                grammarText = grammar
            }
            return try decodeLocked(pcm, search: Self.grammarSearch)
        }
    }

    /// The words heard in `samples`, free-form: any words of the dictionary, as the language model finds them
    /// likely. For word error rates; the first call loads the language model.
    ///
    /// - Throws: `RecognitionError.unsupportedSampleRate`, `.audio` (the conversion), `.failed`.
    public func hear(_ samples: [Float], sampleRate: Int) throws(RecognitionError) -> [String] {
        let pcm = try Self.modelPCM(samples, sampleRate: sampleRate)
        return try Self.lock.withLock { _ throws(RecognitionError) in
            if !hasLanguageModel {
                concat_synth_pocketsphinx_clear_error()
                guard
                    library.pointee.ps_set_lm_file(decoder, Self.languageModelSearch, model.languageModel) == 0
                else { throw Self.failure("ps_set_lm_file(\(model.languageModel))") }
                hasLanguageModel = true
            }
            return try decodeLocked(pcm, search: Self.languageModelSearch)
        }
    }

    private func unknownWordsLocked(in phrase: String) -> [String] {
        phrase.split(separator: " ").map(String.init).filter { phonesLocked(of: $0) == nil }
    }

    /// The dictionary's phones of `entry` (`two`, or an alternative, `to(2)`), separated by spaces; `nil` when it has
    /// no such entry.
    private func phonesLocked(of entry: String) -> String? {
        guard let phones = library.pointee.ps_lookup_word(decoder, entry) else { return nil }
        defer { library.pointee.ckd_free(phones) }
        return String(cString: phones)
    }

    /// Every pronunciation of a phrase as phones, its words' phones joined: each combination of the words'
    /// alternatives, up to `largestPronunciationCount`; none when a word is not in the dictionary.
    private func pronunciationsLocked(of phrase: String) -> [[String]] {
        var pronunciations: [[String]] = [[]]
        for word in phrase.split(separator: " ") {
            var alternatives: [[String]] = []
            // The dictionary numbers a word's alternatives from 2, without gaps.
            while let phones = phonesLocked(
                of: alternatives.isEmpty ? String(word) : "\(word)(\(alternatives.count + 1))")
            {
                alternatives.append(phones.split(separator: " ").map(String.init))
            }
            guard !alternatives.isEmpty else { return [] }
            pronunciations = Array(
                pronunciations.lazy.flatMap { start in alternatives.map { start + $0 } }
                    .prefix(Self.largestPronunciationCount))
        }
        return pronunciations
    }

    /// Enough for any phrase of a few words with two or three pronunciations each.
    private static let largestPronunciationCount = 256

    /// One utterance through the search named `search`: its best hypothesis's words, without fillers and silences.
    private func decodeLocked(_ pcm: [Int16], search: String) throws(RecognitionError) -> [String] {
        concat_synth_pocketsphinx_clear_error()
        guard library.pointee.ps_set_search(decoder, search) == 0 else { throw Self.failure("ps_set_search") }
        guard library.pointee.ps_start_utt(decoder) >= 0 else { throw Self.failure("ps_start_utt") }
        // One block marked as the whole utterance: the cepstral mean is taken over all of it, as for a file.
        let processed = pcm.withUnsafeBufferPointer {
            library.pointee.ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1)
        }
        let ended = library.pointee.ps_end_utt(decoder)
        guard processed >= 0 else { throw Self.failure("ps_process_raw") }
        guard ended >= 0 else { throw Self.failure("ps_end_utt") }
        guard let hypothesis = library.pointee.ps_get_hyp(decoder, nil) else { return [] }
        return String(cString: hypothesis).split(separator: " ").map(String.init)
    }

    /// `samples` as the model hears them: 16 kHz, 16-bit, with `paddingSeconds` of silence at each end.
    private static func modelPCM(_ samples: [Float], sampleRate: Int) throws(RecognitionError) -> [Int16] {
        guard AudioLimits.sampleRates.contains(sampleRate) else { throw .unsupportedSampleRate(sampleRate) }
        let converted: [Float]
        do throws(AudioIOError) {
            converted = try SampleRateConversion.convert(samples, from: sampleRate, to: Self.sampleRate)
        } catch {
            throw .audio(error)
        }
        let padding = [Int16](repeating: 0, count: Int(paddingSeconds * Double(Self.sampleRate)))
        return padding + PCM16.samples(converted) + padding
    }

    /// Silence added at both ends: a clip trimmed to its speech starts on its first word, before the recogniser's
    /// silence model has anything to match.
    private static let paddingSeconds = 0.2

    /// `.failed` for `call`, with the error pocketsphinx logged.
    private static func failure(_ call: String) -> RecognitionError {
        let logged = String(cString: concat_synth_pocketsphinx_last_error())
        return .failed(call: call, message: logged.split(separator: "\n").first.map(String.init) ?? "")
    }
}
