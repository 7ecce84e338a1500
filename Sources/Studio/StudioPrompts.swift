// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Synchronization

/// The prompts a studio offers and the texts whose coverage it shows: the script made at the start, and the texts
/// pasted into the page, which add their missing words to the end of it.
final class StudioPrompts: Sendable {
    /// A text whose coverage the page shows: a `--texts` file, named by its path, or a text pasted into the page.
    struct Text: Sendable {
        var name: String
        var text: String
        var isPasted = false
    }

    private struct Contents: Sendable {
        var script: PromptScript
        var texts: [Text]
        private(set) var promptsByID: [String: Prompt] = [:]
        /// The prompts of each phrase key, one for each position the script has it for.
        private(set) var promptsByPhraseKey: [String: [Prompt]] = [:]

        init(script: PromptScript, texts: [Text]) {
            self.script = script
            self.texts = texts
            index()
        }

        /// Brings the look-ups up to date with the script.
        mutating func index() {
            promptsByID = Dictionary(script.prompts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            promptsByPhraseKey = Dictionary(grouping: script.prompts, by: \.phraseKey)
        }
    }

    private let contents: Mutex<Contents>
    private let packPath: String
    private let voice: String

    init(script: PromptScript, texts: [Text], packPath: String, voice: String) {
        contents = Mutex(Contents(script: script, texts: texts))
        self.packPath = packPath
        self.voice = voice
    }

    /// The prompts as they are now.
    var script: PromptScript { contents.withLock { $0.script } }
    /// The texts as they are now: the `--texts` files, then the pasted texts.
    var texts: [Text] { contents.withLock { $0.texts } }

    /// - Throws: `StudioError.unknownPrompt`.
    func prompt(id: String) throws(StudioError) -> Prompt {
        let (prompt, count) = contents.withLock { ($0.promptsByID[id], $0.script.prompts.count) }
        guard let prompt else { throw .unknownPrompt(id: id, count: count) }
        return prompt
    }

    /// The prompts whose takes have this phrase key: none when the script has no prompt of it.
    func prompts(phraseKey: String) -> [Prompt] {
        contents.withLock { $0.promptsByPhraseKey[phraseKey] ?? [] }
    }

    /// The prompts of each phrase key.
    var promptsByPhraseKey: [String: [Prompt]] { contents.withLock { $0.promptsByPhraseKey } }

    // MARK: Texts pasted into the page

    /// The most bytes a pasted text may have: a long document, whose coverage is still worked out in a moment.
    static let largestPastedText = 1 << 20

    /// Adds a text pasted into the page to the texts whose coverage is shown, and the prompts it misses to the end of
    /// the script: what `--texts` with that text alone would offer, less the phrases the script has already. Kept in
    /// memory for as long as the studio runs: a reload of the page finds it, a new studio does not.
    ///
    /// - Throws: `StudioError.pastedText` for a text that is not UTF-8, too long or without words, `.sameText`,
    ///   `.texts` for SSML the planner refuses, `.coverage`.
    func addText(_ bytes: [UInt8]) throws(StudioError) -> (text: Text, added: [Prompt]) {
        guard bytes.count <= Self.largestPastedText else {
            throw .pastedText(
                reason: "it is \(bytes.count) bytes, more than the \(Self.largestPastedText) the studio takes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .pastedText(reason: "it is not UTF-8 text")
        }
        let (name, earlier) = contents.withLock { contents in
            (
                "pasted text \(contents.texts.count { $0.isPasted } + 1)",
                contents.texts.first { $0.isPasted && $0.text == text }
            )
        }
        if let earlier { throw .sameText(name: earlier.name) }
        let pasted = Text(name: name, text: text, isPasted: true)
        let report = try Self.coverage(of: [pasted], bank: packPath, voice: voice)
        guard report.tokenCount > 0 else { throw .pastedText(reason: "it has no words") }
        let missing = PromptScript.missing(from: report).prompts.map { (text: $0.text, position: $0.position) }
        let added = contents.withLock { contents in
            contents.texts.append(pasted)
            let added = contents.script.append(missing)
            contents.index()
            return added
        }
        return (pasted, added)
    }

    // MARK: Coverage

    /// The coverage of the texts by the pack as it is now, as `voicebank coverage --file …` works it out.
    func coverage() throws(StudioError) -> StudioState.Coverage? {
        let texts = self.texts
        guard !texts.isEmpty else { return nil }
        do throws(ConcatSynthError) {
            let report = try CoverageAnalyzer(bank: packPath, voice: voice).analyze(texts.map { ($0.name, $0.text) })
            return .init(report)
        } catch {
            throw .coverage(error)
        }
    }

    /// Plans each text on its own first, so that an error names its file, then all together.
    static func coverage(of texts: [Text], bank: String, voice: String) throws(StudioError) -> CoverageReport {
        let analyzer: CoverageAnalyzer
        do throws(ConcatSynthError) { analyzer = try CoverageAnalyzer(bank: bank, voice: voice) } catch {
            throw .coverage(error)
        }
        for text in texts {
            do throws(ConcatSynthError) { _ = try analyzer.analyze([(text.name, text.text)]) } catch {
                throw .texts(path: text.name, error: error)
            }
        }
        do throws(ConcatSynthError) { return try analyzer.analyze(texts.map { ($0.name, $0.text) }) } catch {
            throw .coverage(error)
        }
    }
}
