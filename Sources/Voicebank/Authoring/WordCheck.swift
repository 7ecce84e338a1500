// SPDX-License-Identifier: GPL-3.0-or-later
import Recognition
import SpeechCore
import Tokens
import Voicebank

/// What listening to a take found.
public enum WordCheck: Equatable, Sendable {
    /// The recogniser heard the take's phrase.
    case matches
    /// It heard other words: another phrase of the voice, or nothing it could match (`heard` empty).
    case differs(heard: [String])
    /// It heard a phrase `WordChecker.closePhoneDistance` phones from the take's own: "m" for "n", "fifty" for
    /// "fifteen". Too close for it to be sure, which a listener decides.
    case close(heard: [String])
    /// A word of the phrase is not in the recogniser's dictionary (or the phrase has no words), so the take cannot
    /// be checked.
    case uncheckable(unknownWords: [String])
}

/// Listens to takes of one English voice: does each say its phrase? The recogniser hears a take against a grammar of
/// its own phrase and the voice's other phrases, so a take that says another phrase of the voice ("west" imported as
/// "east") is heard as that phrase.
///
/// The check of one take is a library call, for the studio's "keep" as for `voicebank verify --words`:
///
/// ```swift
/// let recognizer = try Recognizer()
/// if let checker = try pack.wordChecker(voice: "com.example.ann", recognizer: recognizer) {
///     let result = try checker.check(samples, sampleRate: 48_000, phrase: "good morning")   // .matches
/// }
/// ```
public struct WordChecker: Sendable {
    public let recognizer: Recognizer
    /// The phrase keys a take is heard against, besides its own.
    public var phrases: [String]

    /// Phrases this many phones apart or fewer are where pocketsphinx errs most (on the default pack's recordings:
    /// "m" heard as "n", "two" as "you", "off" as "on"), so a take heard as one is a note, not a problem. A take
    /// that says a word of the domain for another (Black and Lenzo's "west" for "east", two phones apart) is further.
    public static let closePhoneDistance = 1

    public init(recognizer: Recognizer, phrases: [String]) {
        self.recognizer = recognizer
        self.phrases = phrases
    }

    /// Listens to one take of `phrase` (as given; it is normalised as a phrase key is).
    ///
    /// - Throws: `RecognitionError` when the recogniser fails (`.failed`, `.unsupportedSampleRate`, `.audio`).
    public func check(_ samples: [Float], sampleRate: Int = RenderFormat.sampleRate, phrase: String)
        throws(RecognitionError) -> WordCheck
    {
        let key = Tokenizer.phraseKey(phrase)
        guard !key.isEmpty else { return .uncheckable(unknownWords: []) }
        let unknown = recognizer.unknownWords(in: key)
        guard unknown.isEmpty else { return .uncheckable(unknownWords: unknown) }
        let heard = try recognizer.hear(samples, sampleRate: sampleRate, grammar: [key] + phrases)
        guard !heard.isEmpty else { return .differs(heard: heard) }
        switch recognizer.phoneDistance(heard.joined(separator: " "), key) {
        // The phrase itself, or a homophone of it among the voice's ("u" for "you"), as far as anyone can hear.
        case 0: return .matches
        case let distance? where distance <= Self.closePhoneDistance: return .close(heard: heard)
        default: return .differs(heard: heard)
        }
    }
}

/// What `VoicePack.checkWords` found: each take it listened to, and the voices it could not.
public struct WordReport: Sendable {
    public struct Take: Sendable {
        public var clip: Clip
        public var check: WordCheck
    }

    public var takes: [Take]
    /// Voices whose language the recogniser does not hear.
    public var skippedVoices: [Voice]

    /// A `words` problem for each take that says other words than its phrase.
    public var problems: [PackProblem] {
        takes.compactMap { take in
            guard case .differs(let heard) = take.check else { return nil }
            let message =
                heard.isEmpty
                ? "\"\(take.clip.phrase)\" sounds like none of the voice's phrases to the recogniser; listen to it and record it again if it does not say its phrase"
                : "\"\(take.clip.phrase)\" sounds like \"\(heard.joined(separator: " "))\" to the recogniser; listen to it, and record it again or import it with the phrase \"\(heard.joined(separator: " "))\""
            return PackProblem(kind: .words, voice: take.clip.voice, clipID: take.clip.id, message: message)
        }
    }

    /// One sentence for each take heard as a phrase too close to its own to be sure, each take that could not be
    /// checked, and each voice skipped.
    public var notes: [String] {
        takes.compactMap { take -> String? in
            switch take.check {
            case .close(let heard):
                return
                    "clip #\(take.clip.id) \"\(take.clip.phrase)\" sounds like \"\(heard.joined(separator: " "))\" to the recogniser, one sound apart, too close for it to be sure; listen to it"
            case .uncheckable(let unknown):
                let reason =
                    unknown.isEmpty
                    ? "its phrase has no words"
                    : "the recogniser's dictionary has no \(unknown.map { "\"\($0)\"" }.joined(separator: ", "))"
                return "clip #\(take.clip.id) \"\(take.clip.phrase)\" not checked: \(reason)"
            case .matches, .differs: return nil
            }
        }
            + skippedVoices.map { voice in
                "voice \(voice.identifier) (\(voice.primaryLanguages.joined(separator: ", "))) not checked: the recogniser hears English only"
            }
    }
}

extension VoicePack {
    /// A checker of `voice`'s takes, with the voice's phrases as the grammar; `nil` when the recogniser does not hear
    /// the voice's language.
    ///
    /// - Throws: `VoicebankError.unknownVoice`, `.sqlite`.
    public func wordChecker(voice identifier: String, recognizer: Recognizer) throws(VoicebankError) -> WordChecker? {
        let voice = try resolveVoice(identifier, isChecked: false)
        guard voice.primaryLanguages.contains(where: recognizer.model.hears(language:)) else { return nil }
        var phrases: [String] = []
        var seen = Set<String>()
        for clip in try clips(voice: voice.identifier) where !clip.isFallback && seen.insert(clip.phraseKey).inserted {
            phrases.append(clip.phraseKey)
        }
        return WordChecker(recognizer: recognizer, phrases: phrases)
    }

    /// Listens to every take of every voice whose language the recogniser hears (English): `voicebank verify
    /// --words`. Takes a word check cannot read (damaged: `verify` reports them) are left out.
    ///
    /// - Throws: `AuthoringError.recognition` when the recogniser fails; `.store` with `.sqlite`.
    public func checkWords(recognizer: Recognizer) throws(AuthoringError) -> WordReport {
        var report = WordReport(takes: [], skippedVoices: [])
        let voices: [Voice]
        do throws(VoicebankError) { voices = try self.voices() } catch { throw .store(error) }
        for voice in voices {
            let checker: WordChecker?
            let clips: [Clip]
            do throws(VoicebankError) {
                checker = try wordChecker(voice: voice.identifier, recognizer: recognizer)
                clips = checker == nil ? [] : try self.clips(voice: voice.identifier)
            } catch {
                throw .store(error)
            }
            guard let checker else {
                report.skippedVoices.append(voice)
                continue
            }
            for clip in clips where !clip.isFallback {
                let samples: [Float]?
                do throws(VoicebankError) { samples = try readableSamples(clipID: clip.id) } catch {
                    throw .store(error)
                }
                guard let samples else { continue }
                do throws(RecognitionError) {
                    report.takes.append(.init(clip: clip, check: try checker.check(samples, phrase: clip.phrase)))
                } catch {
                    throw .recognition("cannot check the words of clip #\(clip.id) \"\(clip.phrase)\": \(error)")
                }
            }
        }
        return report
    }

    /// The samples a take plays; `nil` for a damaged take, which `verify` reports.
    private func readableSamples(clipID: Int) throws(VoicebankError) -> [Float]? {
        guard try layoutDamage(clipID: clipID) == nil else { return nil }
        let samples = try playedSamples(clipID: clipID)
        guard samples.withUnsafeBufferPointer({ ClipDamage.samples($0) }) == nil else { return nil }
        return samples
    }
}
