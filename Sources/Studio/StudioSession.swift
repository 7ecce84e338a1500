// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import HTTPService
import Synchronization
import Tokens
import Verbalization
import Voicebank
import VoicebankAuthoring

/// A studio's voice, script and texts, and its pack opened for writing: what the page reads and changes, and
/// `voicebank record` too. The pack is the only state: a prompt's takes are the voice's clips with the prompt's phrase
/// key, so a page that reloads, or a studio started again, finds what was kept.
///
/// It holds one part for each concern, each of its own type: the pack (`StudioPack`), the prompts and texts with their
/// coverage (`StudioPrompts`), the takes (`StudioTakes`), the take being recorded in pieces (`RecordingInProgress`),
/// the pages open on it (`StudioPages`), the fallback voice's settings chosen again as takes change
/// (`FallbackVoiceUpdates`) and the renders of its Listen panel (`StudioRenders`).
final class StudioSession: Sendable {
    let pack: StudioPack
    let prompts: StudioPrompts
    let takes: StudioTakes
    let recordings: RecordingInProgress
    let fallbackVoice: FallbackVoiceUpdates
    /// The pages opened on the studio, and which of them records.
    private let pages = Mutex(StudioPages())
    /// The last sentences rendered for the page's Listen panel.
    let renders = Mutex(StudioRenders())
    /// Where a take is written as a WAV file for the import to read, and a render for the page.
    let folder: TemporaryFolder

    var voice: Voice { pack.voice }
    var packPath: String { pack.path }

    /// - Parameters:
    ///   - pack: opened for writing; the session's from now on.
    ///   - voice: the voice of the pack whose takes the prompts get.
    ///   - isAligning: whether each English take kept is aligned.
    init(
        pack: sending VoicePack, voice: Voice, script: PromptScript, texts: [StudioPrompts.Text],
        folder: TemporaryFolder, isAligning: Bool
    ) {
        self.pack = StudioPack(pack, voice: voice)
        self.folder = folder
        prompts = StudioPrompts(script: script, texts: texts, packPath: self.pack.path, voice: voice.identifier)
        recordings = RecordingInProgress()
        fallbackVoice = FallbackVoiceUpdates(pack: self.pack, recordings: recordings)
        takes = StudioTakes(
            pack: self.pack, prompts: prompts, recordings: recordings, fallbackVoice: fallbackVoice, folder: folder,
            isAligning: isAligning)
    }

    /// Opens the pack for writing, reads the texts and makes the script: what the studio's page and
    /// `voicebank record` share.
    ///
    /// - Throws: `StudioError`: `.voicebank` (no pack, no such voice, a pack that cannot be written),
    ///   `.unreadableFile`, `.texts`, `.promptLine`, `.noPrompts`, `.server` (no folder for the takes' files).
    static func open(_ options: StudioOptions) throws(StudioError) -> StudioSession {
        let pack: VoicePack
        let voice: Voice
        do throws(VoicebankError) {
            pack = try VoicePack(path: options.bank, access: .readWrite)
            voice = try pack.resolveVoice(options.voice)
        } catch {
            throw .voicebank(error)
        }
        var texts: [StudioPrompts.Text] = []
        for path in options.textFiles {
            do throws(FileError) {
                texts.append(.init(name: path, text: String(decoding: try readFile(atPath: path), as: UTF8.self)))
            } catch {
                throw .unreadableFile(path: path, reason: error.reason)
            }
        }
        var script = PromptScript(prompts: [])
        if let promptFile = options.promptFile { script = try PromptScript.read(path: promptFile) }
        if !options.wordLists.isEmpty {
            let language = voice.primaryLanguages.first ?? ""
            guard let verbalizer = Verbalizer.forLanguage(language) else {
                throw .noWords(voice: voice.identifier, language: language)
            }
            // The words the voice has a take of already are not offered, as `voicebank words --missing` lists them.
            let clips: [Clip]
            do throws(VoicebankError) { clips = try pack.clips(voice: voice.identifier) } catch {
                throw .voicebank(error)
            }
            let recorded = Set(clips.filter { !$0.isFallback }.map(\.phraseKey))
            for kind in options.wordLists {
                script.append(verbalizer.vocabulary(for: kind).filter { !recorded.contains(Tokenizer.phraseKey($0)) })
            }
            if script.prompts.isEmpty {
                throw .noPrompts(
                    reason:
                        "voice \(voice.identifier) has a take of every word of --words \(options.wordLists.map(\.listName).joined(separator: ", ")) already"
                )
            }
        }
        if options.script == .phonePairs {
            script.append(try Self.phonePairPrompts(options, texts: texts, pack: pack, voice: voice))
            guard !script.prompts.isEmpty else {
                throw .noPrompts(reason: "no sentence adds a phone-pair voice \(voice.identifier) has not recorded")
            }
        } else if options.promptFile == nil && options.wordLists.isEmpty {
            script = PromptScript.missing(
                from: try StudioPrompts.coverage(of: texts, bank: options.bank, voice: voice.identifier))
            guard !script.prompts.isEmpty else {
                throw .noPrompts(
                    reason:
                        "voice \(voice.identifier) covers every word of \(options.textFiles.joined(separator: ", ")) already"
                )
            }
        }
        let folder: TemporaryFolder
        do throws(HTTPServiceError) { folder = try TemporaryFolder(label: "studio") } catch { throw .server(error) }
        return StudioSession(
            pack: pack, voice: voice, script: script, texts: texts, folder: folder, isAligning: options.isAligning)
    }

    /// The sentences that cover the phone-pairs the voice has no take of: the texts' own first, then the sentence
    /// files' (or the project's set).
    private static func phonePairPrompts(
        _ options: StudioOptions, texts: [StudioPrompts.Text], pack: VoicePack, voice: Voice
    ) throws(StudioError) -> [String] {
        var sentences = texts.flatMap { PhonePairScript.sentences(in: $0.text) }
        for path in options.sentenceFiles {
            do throws(FileError) {
                sentences += String(decoding: try readFile(atPath: path), as: UTF8.self)
                    .split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
            } catch {
                throw .unreadableFile(path: path, reason: error.reason)
            }
        }
        if options.sentenceFiles.isEmpty { sentences += RecordingSentences.english }
        do throws(AuthoringError) {
            return try PhonePairScript.choose(from: sentences, have: try pack.phonePairs(voice: voice.identifier))
        } catch {
            throw .authoring(error)
        }
    }

    /// Every prompt with its takes, and the coverage of the texts.
    func state() throws(StudioError) -> StudioState {
        let takesByPrompt = try takes.byPrompt()
        return StudioState(
            voice: .init(
                identifier: voice.identifier, name: voice.name, language: voice.primaryLanguages.first,
                trimThresholdDecibels: voice.trimming?.thresholdDecibels),
            pack: packPath,
            prompts: prompts.script.prompts.map { StudioState.PromptState($0, takes: takesByPrompt[$0.id] ?? []) },
            texts: prompts.texts.map(StudioState.TextState.init), coverage: try prompts.coverage(),
            maximumTakeBytes: StudioSite.limits.maximumBodyBytes, takeChecks: .standard)
    }

    // MARK: The page that records

    /// Registers a page that was loaded: it records from now on, and the pages opened before it may only read. The
    /// recording in progress, an older page's, is dropped, so that nothing of it is kept half-way.
    ///
    /// - Returns: the page, and the recording dropped, if there was one.
    func openPage() -> (page: StudioPage, dropped: Int?) {
        let page = pages.withLock { $0.open() }
        return (page, recordings.drop())
    }

    /// Checks that a change comes from the page that records, or from no page (a script).
    ///
    /// - Parameter page: the request's `X-Studio-Page`.
    /// - Throws: `StudioError.anotherPage`, `.unknownPage`.
    func checkPage(_ page: String?) throws(StudioError) {
        try pages.withLock { (pages) throws(StudioError) in try pages.check(page) }
    }

    /// Chooses the fallback voice's settings if takes changed since, and removes the folder of the takes' files.
    func close() {
        // Nothing is lost if it fails: the settings stay as they were, until the next import or configure.
        try? fallbackVoice.update()
        folder.remove()
    }
}
