// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Recognition
import SpeechCore
import Synchronization
import VoicebankAuthoring

/// What listening to a kept take found: the check of `voicebank verify --words`, run behind the studio's keep.
struct TakeHearing: Encodable, Sendable, Equatable {
    enum Status: String, Encodable, Sendable {
        /// Not listened to yet: the listener is on an earlier take, or on this one.
        case pending
        /// The recogniser heard the take's phrase.
        case matches
        /// It heard another phrase of the voice or the script, or none (`heard` empty).
        case differs
        /// It heard a phrase one sound from the take's own: too close for it to be sure.
        case close
        /// A word of the phrase is not in the recogniser's dictionary.
        case uncheckable
        /// The voice's language is one the recogniser does not hear.
        case skipped
        /// The recogniser could not run (`message` says why).
        case failed
    }

    var status: Status
    /// The words heard, for `differs` and `close`.
    var heard: [String]?
    /// What to tell the user, a sentence or two; `nil` while pending.
    var message: String?
    /// How long the listening took, model loading included the first time.
    var milliseconds: Int?

    static let pending = TakeHearing(status: .pending)
}

/// Listens to each kept take, one at a time, on a thread of its own, so that keep does not wait for the recogniser
/// (pocketsphinx loads its model the first time, then listens to each take; docs/studio.md). A take
/// stays kept whatever is heard: the user decides whether to record it again or discard it.
final class TakeListener: Sendable {
    /// The voice's language is one the recogniser hears (English).
    let hearsLanguage: Bool
    private let voiceDescription: String
    private let worker = WorkerThread()
    private let hearings = Mutex<[Int: TakeHearing]>([:])
    /// Made by the first take listened to, on the listener's thread; the error it failed with, if it did.
    private let recognizer = Mutex<Result<Recognizer, RecognitionError>?>(nil)

    init(voice: String, languages: [String]) {
        hearsLanguage = languages.contains(where: RecognitionModel.english.hears(language:))
        voiceDescription = "\(voice) (\(languages.isEmpty ? "no language" : languages.joined(separator: ", ")))"
    }

    /// What was heard of take `id`: `pending` until it is done; `nil` for a take this studio did not keep.
    func hearing(take id: Int) -> TakeHearing? {
        hearings.withLock { $0[id] }
    }

    /// Listens to a take after the ones before it and calls `done` with what was heard, on the listener's thread.
    ///
    /// - Parameters:
    ///   - name: the take as sentences name it: `take 2 of “York.”`.
    ///   - samples: the take as it plays, at `sampleRate`.
    ///   - phrase: what it should say.
    ///   - grammar: the other phrases it could be heard as: the voice's and the script's.
    func listen(
        take id: Int, name: String, samples: [Float], sampleRate: Int, phrase: String, grammar: [String],
        done: @escaping @Sendable (TakeHearing) -> Void
    ) {
        guard hearsLanguage else {
            let hearing = TakeHearing(
                status: .skipped,
                message:
                    "Not checked by listening: the recogniser hears English only, and voice \(voiceDescription) is not."
            )
            hearings.withLock { $0[id] = hearing }
            done(hearing)
            return
        }
        hearings.withLock { $0[id] = .pending }
        worker.run { [self] in
            let start = ContinuousClock.now
            var hearing = hear(samples, sampleRate: sampleRate, phrase: phrase, grammar: grammar, name: name)
            let elapsed = ContinuousClock.now - start
            hearing.milliseconds = Int((elapsed / .milliseconds(1)).rounded())
            hearings.withLock { $0[id] = hearing }
            done(hearing)
        }
    }

    private func hear(_ samples: [Float], sampleRate: Int, phrase: String, grammar: [String], name: String)
        -> TakeHearing
    {
        let made = recognizer.withLock { made in
            if made == nil {
                do throws(RecognitionError) { made = .success(try Recognizer()) } catch { made = .failure(error) }
            }
            return made!
        }
        let check: WordCheck
        do throws(RecognitionError) {
            let checker = WordChecker(recognizer: try made.get(), phrases: grammar)
            check = try checker.check(samples, sampleRate: sampleRate, phrase: phrase)
        } catch {
            return TakeHearing(status: .failed, message: "Not checked by listening: \(error).")
        }
        let quotedHeard = { (heard: [String]) in "“\(heard.joined(separator: " "))”" }
        switch check {
        case .matches:
            return TakeHearing(status: .matches, heard: nil, message: "Heard \(name) as its phrase.")
        case .differs(let heard) where heard.isEmpty:
            return TakeHearing(
                status: .differs, heard: heard,
                message:
                    "Heard none of the voice's phrases in \(name). Listen to it and record it again if it does not say its phrase; it stays in the pack unless you discard it."
            )
        case .differs(let heard):
            return TakeHearing(
                status: .differs, heard: heard,
                message:
                    "Heard \(quotedHeard(heard)) in \(name), not its phrase. Record it again? It stays in the pack unless you discard it."
            )
        case .close(let heard):
            return TakeHearing(
                status: .close, heard: heard,
                message:
                    "Heard \(quotedHeard(heard)) in \(name), one sound from its phrase: too close for the recogniser to be sure; listen to it."
            )
        case .uncheckable(let unknown):
            let reason =
                unknown.isEmpty
                ? "its phrase has no words"
                : "the recogniser's dictionary has no \(unknown.map { "“\($0)”" }.joined(separator: ", "))"
            return TakeHearing(status: .uncheckable, message: "Not checked by listening: \(reason).")
        }
    }
}
