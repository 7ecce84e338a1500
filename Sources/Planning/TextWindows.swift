// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Tokens
import Verbalization

/// The second stage: starts each text run as a `TextCursor` that reads it into tokens a window of about
/// `windowBytes` at a time, in the voice and at the speed and pitch its context says; a `say-as` run is read whole,
/// as its characters, digits, or the words `Verbalization` gives for its number, date or time in the voice's
/// language.
///
/// Holds nothing across runs: each run's state is its cursor, which the pipeline holds until the run is matched.
struct TextWindows {
    /// How much of a run's text is read into tokens at a time (UTF-8 bytes; a cut waits for a space).
    let windowBytes: Int
    let voices: VoiceSwitching
    let warnings: PlanWarnings

    /// How much text a window holds unless a test says otherwise.
    static var standardWindowBytes: Int { 8_192 }

    /// A cursor at the start of `run`, spoken as its context says.
    func start(_ run: TextRun) -> TextCursor {
        let speaker = voices.voiceIndex(for: run.context)
        let voice = voices.voices[speaker]
        let tokens: [Token]?
        switch run.context.sayAs?.interpretAs {
        case .characters, .spellOut: tokens = Tokenizer.characterTokens(in: run.text)
        case .digits:
            tokens = Tokenizer.digitTokens(in: run.text)
        case .telephone:
            tokens = plusSign(in: run, language: voice) + Tokenizer.digitTokens(in: run.text)
        case .cardinal, .number: tokens = sayAsTokens(run, as: .cardinal, speaker: voice)
        case .ordinal: tokens = sayAsTokens(run, as: .ordinal, speaker: voice)
        case .date: tokens = sayAsTokens(run, as: .date, speaker: voice)
        case .time: tokens = sayAsTokens(run, as: .time, speaker: voice)
        case nil: tokens = nil
        }
        var cursor = TextCursor(spoken: voices.spoken(run.context, speaker: speaker), windowBytes: windowBytes)
        if let tokens {
            cursor.window = tokens.map { $0.inRequest(of: run) }
        } else {
            cursor.append(run)
        }
        return cursor
    }

    /// The word for a telephone number's leading `+` in the voice's language (`plus`, `プラス`), if it has one.
    private func plusSign(in run: TextRun, language voice: VoiceSettings) -> [Token] {
        let leading = run.text.utf16.prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }.count
        guard let first = run.text.utf16.dropFirst(leading).first, first == 0x2B || first == 0xFF0B,
            let verbalizer = Verbalizer.forLanguage(voice.primaryLanguages.first ?? "")
        else { return [] }
        return Tokenizer.tokens(in: verbalizer.plusSign).map {
            Token($0.text, $0.kind, sourceRange: leading..<leading + 1)
        }
    }

    /// The words of a `say-as` number, ordinal, date or time in the voice's language, as tokens that all point at
    /// the whole run; `nil`, with a warning, when the text is not one or the language has no words for it.
    private func sayAsTokens(_ run: TextRun, as interpretation: Interpretation, speaker voice: VoiceSettings)
        -> [Token]?
    {
        let sayAs = run.context.sayAs!
        let language = voice.primaryLanguages.first ?? ""
        do throws(VerbalizationError) {
            let words = try Verbalizer.words(
                for: run.text, as: interpretation, format: sayAs.format, language: language)
            return Tokenizer.tokens(inWords: words).map {
                Token($0.text, $0.kind, sourceRange: 0..<run.text.utf16.count)
            }
        } catch {
            warnings.warn("<say-as interpret-as=\"\(sayAs.interpretAs.rawValue)\"> read as plain text: \(error)")
            return nil
        }
    }
}

/// A text run being matched: the tokens read and not yet matched, and the text not yet read.
///
/// It holds one window of the run's tokens (those matched are dropped once they are most of it) and the run's text,
/// from the run's start until its last token is matched; the pipeline then lets it go.
struct TextCursor {
    var spoken: Spoken
    let windowBytes: Int
    /// Tokens read, with source ranges in the request; those before `head` are matched.
    var window: [Token] = []
    var head = 0
    /// The tokens since the last phrase that no phrase starts at.
    var unmatched: [Token] = []
    /// The run whose text is being read, and how far.
    private var run: TextRun?
    private var position = 0
    private var utf16Offset = 0
    /// Whether the next event goes on with this run's text.
    var isContinued = false

    init(spoken: Spoken, windowBytes: Int) {
        self.spoken = spoken
        self.windowBytes = windowBytes
    }

    var hasMoreText: Bool { run.map { position < $0.text.utf8.count } ?? false }

    /// Reads the next piece of a run: the first, or one that goes on from the last.
    mutating func append(_ next: TextRun) {
        run = next
        position = 0
        utf16Offset = 0
        isContinued = next.isContinued
    }

    /// Punctuation that a piece of text began with when no word of it was left to follow: it follows the phrase
    /// handed on last, which the take selection holds (`TakeChooser.follow(with:)`).
    var punctuationAfterPlaced: Token.Punctuation?

    /// Reads about `windowBytes` more of the run's text into tokens; `false` when it is all read.
    ///
    /// Cuts where `PlainTextStream.isCut` allows, as a long text read a piece at a time is cut.
    mutating func readMoreText() -> Bool {
        guard let run, position < run.text.utf8.count else { return false }
        let utf8 = run.text.utf8
        var end = min(position + windowBytes, utf8.count)
        var index = utf8.index(utf8.startIndex, offsetBy: end)
        while index < utf8.endIndex {
            if PlainTextStream.isCut(between: utf8[utf8.index(before: index)], and: utf8[index]) { break }
            index = utf8.index(after: index)
            end += 1
        }
        let start = utf8.index(utf8.startIndex, offsetBy: position)
        let piece = String(decoding: utf8[start..<index], as: UTF8.self)
        if let punctuation = Tokenizer.leadingPunctuation(in: piece) {
            if head < window.count {
                window[window.count - 1].follow(with: punctuation)
            } else if !unmatched.isEmpty {
                unmatched[unmatched.count - 1].follow(with: punctuation)
            } else {
                punctuationAfterPlaced = punctuation
            }
        }
        window += Tokenizer.tokens(in: piece, utf16Offset: utf16Offset).map { $0.inRequest(of: run) }
        utf16Offset += piece.utf16.count
        position = end
        return true
    }

    /// Forgets matched tokens once they are most of the window.
    mutating func dropMatchedTokens() {
        guard head > 1_024 && head * 2 > window.count else { return }
        window.removeFirst(head)
        head = 0
    }
}

extension Token {
    /// Notes punctuation after the token, the strongest of all that follow it.
    fileprivate mutating func follow(with punctuation: Punctuation) {
        punctuationAfter = max(punctuationAfter ?? punctuation, punctuation)
    }

    /// The token with its source range in the request rather than in `run`'s text.
    fileprivate func inRequest(of run: TextRun) -> Token {
        Token(text, kind, sourceRange: run.sourceRange(forTextRange: sourceRange), punctuationAfter: punctuationAfter)
    }
}
