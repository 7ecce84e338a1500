import AudioIO
import ConcatSynth
import HTTPService
import SpeechCore
import Synchronization
import Tokens
import Verbalization
import Voicebank
import VoicebankAuthoring

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A studio's voice, script and texts, and its pack opened for writing: what the page reads and changes. The pack is
/// the only state: a prompt's takes are the voice's clips with the prompt's phrase key, so a page that reloads, or a
/// studio started again, finds what was kept.
final class StudioSession: Sendable {
    let packPath: String
    let voice: Voice
    private let pack: Mutex<VoicePack>
    /// The script and the texts, which a pasted text adds to.
    private let contents: Mutex<Contents>
    /// Where a take is written as a WAV file for the import to read, and a render for the page.
    let folder: TemporaryFolder
    /// The last sentences rendered for the page's Listen panel.
    let renders = Mutex(StudioRenders())
    /// Listens to each take kept, behind keep.
    let listener: TakeListener
    /// How many times takes were kept or discarded, and after how many of those the fallback voice's settings were
    /// last chosen: keep and discard leave that choice to `updateFallbackVoice()`, a moment after the last change.
    private let changes = Mutex((made: 0, chosen: 0))
    private let fallbackVoiceUpdates = WorkerThread()
    /// The take the page is sending in pieces, until it is kept, discarded or replaced: one at a time, and the number
    /// of the last one started.
    private let recording = Mutex<(current: TakeRecording?, number: Int)>((nil, 0))
    /// The pages opened on the studio, and which of them records.
    private let pages = Mutex(StudioPages())

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

    /// - Parameters:
    ///   - pack: opened for writing; the session's from now on.
    ///   - voice: the voice of the pack whose takes the prompts get.
    init(pack: sending VoicePack, voice: Voice, script: PromptScript, texts: [Text], folder: TemporaryFolder) {
        packPath = pack.path
        self.voice = voice
        self.folder = folder
        self.pack = Mutex(pack)
        contents = Mutex(Contents(script: script, texts: texts))
        listener = TakeListener(voice: voice.identifier, languages: voice.primaryLanguages)
    }

    /// The prompts as they are now.
    var script: PromptScript { contents.withLock { $0.script } }
    /// The texts as they are now: the `--texts` files, then the pasted texts.
    var texts: [Text] { contents.withLock { $0.texts } }

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
        var texts: [Text] = []
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
        if options.promptFile == nil && options.wordLists.isEmpty {
            script = PromptScript.missing(from: try coverage(of: texts, bank: options.bank, voice: voice.identifier))
            guard !script.prompts.isEmpty else {
                throw .noPrompts(
                    reason:
                        "voice \(voice.identifier) covers every word of \(options.textFiles.joined(separator: ", ")) already"
                )
            }
        }
        let folder: TemporaryFolder
        do throws(HTTPServiceError) { folder = try TemporaryFolder(label: "studio") } catch { throw .server(error) }
        return StudioSession(pack: pack, voice: voice, script: script, texts: texts, folder: folder)
    }

    /// Plans each text on its own first, so that an error names its file, then all together.
    private static func coverage(of texts: [Text], bank: String, voice: String) throws(StudioError) -> CoverageReport {
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

    /// Chooses the fallback voice's settings from the takes as they are now, unless they were chosen after the last
    /// change: before the page listens, a moment after the last change, and at the end.
    ///
    /// - Throws: `StudioError.voicebank` when espeak-ng cannot speak the voice's language any more.
    func updateFallbackVoice() throws(StudioError) {
        guard voice.fallbackMode == .voice else { return }
        try withPack { (pack) throws(VoicebankError) in
            let made = changes.withLock { $0.made }
            guard changes.withLock({ $0.chosen }) < made else { return }
            try pack.updateFallbackVoice(voice: voice.identifier)
            changes.withLock { $0.chosen = made }
        }
    }

    /// Notes that takes changed, and chooses the fallback voice's settings again once no other change has come for
    /// `fallbackVoiceDelaySeconds`, and no recording has started since. Choosing them is slow for a voice whose fallback
    /// voice is espeak-ng (it speaks sample phrases in each variant and pitch), which each keep would otherwise wait
    /// for; a recording started meanwhile is kept soon, and its keep would wait for them too.
    private func takesChanged() {
        guard voice.fallbackMode == .voice else { return }
        let change = changes.withLock { changes in
            changes.made += 1
            return changes.made
        }
        let recordings = recording.withLock { $0.number }
        fallbackVoiceUpdates.run(afterSeconds: Self.fallbackVoiceDelaySeconds) { [self] in
            guard changes.withLock({ $0.made == change }), recording.withLock({ $0.number }) == recordings else {
                return
            }
            // A failure here changes nothing in the pack; the next Listen chooses again and reports it.
            try? updateFallbackVoice()
        }
    }

    /// How long after the last keep or discard the fallback voice's settings are chosen again.
    static let fallbackVoiceDelaySeconds = 2.0

    /// Chooses the fallback voice's settings if takes changed since, and removes the folder of the takes' files.
    func close() {
        // Nothing is lost if it fails: the settings stay as they were, until the next import or configure.
        try? updateFallbackVoice()
        folder.remove()
    }

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
        let report = try Self.coverage(of: [pasted], bank: packPath, voice: voice.identifier)
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

    // MARK: What the page reads

    /// Every prompt with its takes, and the coverage of the texts.
    func state() throws(StudioError) -> StudioState {
        let takes = try takesByPrompt()
        return StudioState(
            voice: .init(
                identifier: voice.identifier, name: voice.name, language: voice.primaryLanguages.first,
                trimThresholdDecibels: voice.trimming?.thresholdDecibels),
            pack: packPath,
            prompts: script.prompts.map { StudioState.PromptState($0, takes: takes[$0.id] ?? []) },
            texts: texts.map(StudioState.TextState.init), coverage: try coverage(),
            maximumTakeBytes: StudioSite.limits.maximumBodyBytes, takeChecks: .standard)
    }

    /// The coverage of the texts by the pack as it is now, as `voicebank coverage --file …` works it out.
    func coverage() throws(StudioError) -> StudioState.Coverage? {
        let texts = self.texts
        guard !texts.isEmpty else { return nil }
        do throws(ConcatSynthError) {
            let report = try CoverageAnalyzer(bank: packPath, voice: voice.identifier)
                .analyze(texts.map { ($0.name, $0.text) })
            return .init(report)
        } catch {
            throw .coverage(error)
        }
    }

    /// The takes of each prompt, by prompt id, in the order they were kept: every take of its phrase, whatever its
    /// position (`PromptState.isDone` tells whether one has the prompt's).
    private func takesByPrompt() throws(StudioError) -> [String: [StudioState.Take]] {
        let clips = try withPack { (pack) throws(VoicebankError) in try pack.clips(voice: voice.identifier) }
        let promptsByPhraseKey = contents.withLock { $0.promptsByPhraseKey }
        var takes: [String: [StudioState.Take]] = [:]
        for clip in clips where !clip.isFallback {
            for prompt in promptsByPhraseKey[clip.phraseKey] ?? [] {
                takes[prompt.id, default: []].append(StudioState.Take(clip, hearing: listener.hearing(take: clip.id)))
            }
        }
        return takes
    }

    func prompt(id: String) throws(StudioError) -> Prompt {
        let (prompt, count) = contents.withLock { ($0.promptsByID[id], $0.script.prompts.count) }
        guard let prompt else { throw .unknownPrompt(id: id, count: count) }
        return prompt
    }

    /// The prompts whose takes have this phrase key: none when the script has no prompt of it.
    private func prompts(phraseKey: String) -> [Prompt] {
        contents.withLock { $0.promptsByPhraseKey[phraseKey] ?? [] }
    }

    /// A take of one of the script's prompts.
    ///
    /// - Throws: `StudioError.unknownTake` for an id that is no clip, or a clip of another voice or phrase.
    func take(id text: String) throws(StudioError) -> Clip {
        guard let id = Int(text) else { throw .unknownTake(id: text) }
        do throws(StudioError) {
            let clip = try withPack { (pack) throws(VoicebankError) in try pack.clip(id: id) }
            guard clip.voice == voice.identifier, !clip.isFallback, !prompts(phraseKey: clip.phraseKey).isEmpty else {
                throw StudioError.unknownTake(id: text)
            }
            return clip
        } catch .voicebank(.unknownClip) {
            throw .unknownTake(id: text)
        }
    }

    /// A take's samples as they play: trimmed, mono, 22050 Hz.
    func audio(takeID: String) throws(StudioError) -> [Float] {
        let clip = try take(id: takeID)
        return try withPack { (pack) throws(VoicebankError) in try pack.renderReadyPCM(clipID: clip.id) }
    }

    // MARK: What the page changes

    /// Imports a take as a clip of the prompt's phrase, tagged with `position`, in its own transaction, through the
    /// import `voicebank import` runs: the samples are written as a Float32 WAV file at their own rate and imported
    /// from it, so the take is converted, trimmed and measured as any imported file is, and its original samples are
    /// kept.
    ///
    /// - Throws: `StudioError.sameTake`, `.audio` (the file could not be written), `.voicebank`.
    func keep(_ upload: TakeUpload, prompt: Prompt, position: TakePosition?) throws(StudioError) -> Clip {
        let path = folder.newPath(extension: "wav")
        defer { unlink(path) }
        do throws(AudioIOError) {
            let writer = try AudioFileWriter(path: path, format: .init(.wav, .float32), sampleRate: upload.sampleRate)
            try writer.write(upload.samples)
            try writer.commit()
        } catch {
            throw .audio(error)
        }
        let request = ImportRequest(
            path: path, phrase: prompt.text, sourceName: Self.sourceName(prompt.text, position: position),
            position: position)
        return try kept(
            withPack { (pack) throws(VoicebankError) in
                try pack.importFiles([request], into: voice.identifier, parallelism: 1, choosesFallbackVoice: false)
            })
    }

    /// Imports the recording sent in pieces as `keep(_:prompt:position:)` imports a take sent whole, with the same
    /// result in the pack: its conversion is done, so what is left is its trim, its measurements and the commit. The
    /// recording is gone once kept; one that is not (the same audio is kept already) stays, to be checked or
    /// discarded.
    ///
    /// - Throws: `StudioError.unknownRecording`, `.recordingInProgress`, `.sameTake`, `.voicebank`.
    func keep(recordingID: String, prompt: Prompt, position: TakePosition?) throws(StudioError) -> Clip {
        let (id, clip) = try withRecording(id: recordingID) { (recording) throws(StudioError) in
            (recording.id, try recording.preparedClip())
        }
        let request = ImportRequest(
            path: "recording \(id)", phrase: prompt.text, sourceName: Self.sourceName(prompt.text, position: position),
            position: position)
        let take = try kept(
            withPack { (pack) throws(VoicebankError) in
                try pack.importClip(clip, as: request, into: voice.identifier, choosesFallbackVoice: false)
            })
        recording.withLock { if $0.current?.id == id { $0.current = nil } }
        return take
    }

    /// The take an import of one take stored, or the clip it has the same audio as.
    private func kept(_ report: ImportReport) throws(StudioError) -> Clip {
        if let skipped = report.skipped.first {
            throw .sameTake(clipID: skipped.existing.id, phrase: skipped.existing.phrase)
        }
        takesChanged()
        return report.imported[0]
    }

    // MARK: The page that records

    /// Registers a page that was loaded: it records from now on, and the pages opened before it may only read. The
    /// recording in progress, an older page's, is dropped, so that nothing of it is kept half-way.
    ///
    /// - Returns: the page, and the recording dropped, if there was one.
    func openPage() -> (page: StudioPage, dropped: Int?) {
        let page = pages.withLock { $0.open() }
        let dropped = recording.withLock { recording in
            defer { recording.current = nil }
            return recording.current?.id
        }
        return (page, dropped)
    }

    /// Checks that a change comes from the page that records, or from no page (a script).
    ///
    /// - Parameter page: the request's `X-Studio-Page`.
    /// - Throws: `StudioError.anotherPage`, `.unknownPage`.
    func checkPage(_ page: String?) throws(StudioError) {
        try pages.withLock { (pages) throws(StudioError) in try pages.check(page) }
    }

    // MARK: A take sent in pieces

    /// Starts a recording with its first piece, which may hold no samples; the recording in progress, if any, is
    /// dropped (a page records one take at a time, and a reloaded page knows no recording of its own).
    ///
    /// - Throws: `StudioError.recordingTooLong`, `.audio`.
    func startRecording(_ piece: TakeUpload) throws(StudioError) -> TakeRecording.State {
        try recording.withLock { (recording) throws(StudioError) in
            recording.current = nil
            recording.number += 1
            let started = try TakeRecording(id: recording.number, sampleRate: piece.sampleRate)
            try started.append(piece, frame: 0, isLast: false)
            recording.current = started
            return started.state
        }
    }

    /// Adds a piece to the recording in progress and converts it; `isLast` ends it.
    ///
    /// - Throws: `StudioError.unknownRecording`, and what `TakeRecording.append` throws: `.recordingEnded`,
    ///   `.recordingFormat`, `.recordingOrder`, `.recordingTooLong`, `.audio`.
    func appendToRecording(id: String, _ piece: TakeUpload, frame: Int, isLast: Bool) throws(StudioError)
        -> TakeRecording.State
    {
        try withRecording(id: id) { (recording) throws(StudioError) in
            try recording.append(piece, frame: frame, isLast: isLast)
            return recording.state
        }
    }

    /// Drops the recording in progress: nothing of it was in the pack.
    ///
    /// - Throws: `StudioError.unknownRecording`.
    func discardRecording(id: String) throws(StudioError) -> TakeRecording.State {
        let state = try withRecording(id: id) { (recording) throws(StudioError) in recording.state }
        recording.withLock { if $0.current?.id == state.id { $0.current = nil } }
        return state
    }

    /// The samples of a recording that has ended, as a take sent whole would bring them: what its loudness check
    /// measures.
    ///
    /// - Throws: `StudioError.unknownRecording`, `.recordingInProgress`.
    func recordedTake(id: String) throws(StudioError) -> TakeUpload {
        try withRecording(id: id) { (recording) throws(StudioError) in
            guard recording.isEnded else { throw .recordingInProgress(id: recording.id) }
            return TakeUpload(samples: recording.samples, sampleRate: recording.sampleRate)
        }
    }

    /// Runs `body` on the recording in progress if `id` names it.
    private func withRecording<T: Sendable>(id text: String, _ body: (TakeRecording) throws(StudioError) -> T)
        throws(StudioError) -> T
    {
        try recording.withLock { (recording) throws(StudioError) -> T in
            guard let current = recording.current, Int(text) == current.id else { throw .unknownRecording(id: text) }
            return try body(current)
        }
    }

    /// What `voicebank verify` would say of a take's loudness were it kept: more than `VerifyLimits.loudnessToleranceLU`
    /// from the voice's median clip loudness stands out when spoken. Measured on what would play (`playedRange`), at
    /// the take's own rate, before anything is converted or stored.
    ///
    /// - Throws: `StudioError.audio` when the meter fails, `.voicebank`.
    func loudnessCheck(_ upload: TakeUpload) throws(StudioError) -> TakeLoudness {
        let median = try withPack { (pack) throws(VoicebankError) in
            try pack.voices().first { $0.identifier == voice.identifier }?.medianLoudnessLUFS
        }
        let played = playedRange(of: upload)
        let loudness: Double?
        do throws(AudioIOError) {
            loudness = try Loudness(
                Array(upload.samples[played]), sampleRate: upload.sampleRate, measuringTruePeak: false
            )
            .clipLUFS
        } catch {
            throw .audio(error)
        }
        return TakeLoudness(loudnessLUFS: loudness, voiceMedianLUFS: median, playedFrames: played)
    }

    /// The frames of a take that would play were it kept, at its own rate: trimmed as the voice trims an import, the
    /// pad counted at the take's rate rather than 22050 Hz.
    func playedRange(of upload: TakeUpload) -> Range<Int> {
        let trimming = voice.trimming.map { trimming in
            var scaled = trimming
            scaled.padFrames = trimming.padFrames * upload.sampleRate / RenderFormat.sampleRate
            return scaled
        }
        return ClipConditioning.playedRange(upload.samples, trimming: trimming)
    }

    /// Listens to a kept take behind keep (`TakeListener`): `done` is told what was heard, on the listener's thread.
    /// The grammar is the take's phrase, the voice's other phrases and the script's.
    ///
    /// - Parameter name: the take as sentences name it: `take 2 of “York.”`.
    /// - Throws: `StudioError.voicebank` when the take cannot be read.
    func listen(to take: Clip, name: String, done: @escaping @Sendable (TakeHearing) -> Void) throws(StudioError) {
        guard listener.hearsLanguage else {
            listener.listen(take: take.id, name: name, samples: [], sampleRate: 0, phrase: "", grammar: [], done: done)
            return
        }
        let (samples, clips) = try withPack { (pack) throws(VoicebankError) in
            (try pack.renderReadyPCM(clipID: take.id), try pack.clips(voice: voice.identifier))
        }
        var seen = Set<String>()
        let grammar = (clips.filter { !$0.isFallback }.map(\.phraseKey) + script.prompts.map(\.phraseKey)).filter {
            seen.insert($0).inserted
        }
        listener.listen(
            take: take.id, name: name, samples: samples, sampleRate: RenderFormat.sampleRate, phrase: take.phrase,
            grammar: grammar, done: done)
    }

    /// Removes a take from the pack.
    ///
    /// - Returns: the take, and the prompts of its phrase.
    /// - Throws: `StudioError.unknownTake`, `.voicebank`.
    func discard(takeID: String) throws(StudioError) -> (take: Clip, prompts: [Prompt]) {
        let clip = try take(id: takeID)
        _ = try withPack { (pack) throws(VoicebankError) in
            try pack.removeClips(ids: [clip.id], choosesFallbackVoice: false)
        }
        takesChanged()
        return (clip, prompts(phraseKey: clip.phraseKey))
    }

    /// Tags a kept take with another position, or none, in its own transaction: its source name's prefix follows
    /// (`e.york.wav`), as if it had been kept so.
    ///
    /// - Throws: `StudioError.unknownTake`, `.voicebank`.
    func reposition(takeID: String, position: TakePosition?) throws(StudioError) -> Clip {
        let clip = try take(id: takeID)
        return try withPack { (pack) throws(VoicebankError) in
            try pack.setPosition(
                position, clipID: clip.id, sourceName: Self.sourceName(clip.phrase, position: position))
        }
    }

    /// The state of each prompt of a phrase after a change, in the script's order.
    func promptStates(phraseKey: String) throws(StudioError) -> [StudioState.PromptState] {
        let takes = try takesByPrompt()
        return prompts(phraseKey: phraseKey).map { StudioState.PromptState($0, takes: takes[$0.id] ?? []) }
    }

    private func withPack<T: Sendable>(_ body: (VoicePack) throws(VoicebankError) -> T) throws(StudioError) -> T {
        do {
            return try pack.withLock { (pack) throws(VoicebankError) -> T in try body(pack) }
        } catch {
            throw .voicebank(error)
        }
    }

    /// The name a take is stored under, as if it were imported from a file named after its phrase
    /// (`double_tap_to_open.wav`), with the prefix of its position (`e.york.wav`), so that `voicebank export` writes it
    /// so.
    static func sourceName(_ phrase: String, position: TakePosition? = nil) -> String {
        let name = String(
            phrase.unicodeScalars.prefix(60).compactMap { scalar -> Character? in
                if scalar.properties.isAlphabetic || scalar.properties.numericType != nil { return Character(scalar) }
                return scalar == " " || scalar == "-" ? "_" : nil
            })
        let prefix = position.map { "\($0.prefixLetter)." } ?? ""
        return prefix + (name.isEmpty ? "take" : name) + ".wav"
    }
}

/// What the page reads: `GET /api/state`, and parts of it after each change.
struct StudioState: Encodable, Sendable {
    struct VoiceState: Encodable, Sendable {
        var identifier: String
        var name: String
        /// The language the prompts are in, for the page's `lang`.
        var language: String?
        /// The level below which import trims a take's ends; `nil` when the voice keeps clips whole.
        var trimThresholdDecibels: Double?
    }
    struct Take: Encodable, Sendable {
        var id: Int
        /// The place it was recorded for: `initial`, `medial`, `final`, `question`; absent for none.
        var position: TakePosition?
        /// How long it plays, trimmed.
        var seconds: Double
        /// How long the recording was, and its rate.
        var recordedSeconds: Double
        var sampleRate: Int
        /// What listening to it found, for a take this studio kept.
        var hearing: TakeHearing?

        init(_ clip: Clip, hearing: TakeHearing? = nil) {
            id = clip.id
            position = clip.position
            seconds = clip.durationSeconds
            recordedSeconds = Double(clip.source.frameCount) / Double(clip.source.sampleRate)
            sampleRate = clip.source.sampleRate
            self.hearing = hearing
        }
    }
    struct PromptState: Encodable, Sendable {
        var id: String
        var text: String
        /// The place its take is for; absent for a take of no particular place.
        var position: TakePosition?
        /// The text as the reader is shown it, with the punctuation of its place (`York.`), and how to say it.
        var readText: String
        var howToSay: String?
        /// Every take of its phrase, whatever its position.
        var takes: [Take]
        /// It has a take: one with its position, for a prompt with a position.
        var isDone: Bool

        init(_ prompt: Prompt, takes: [Take]) {
            id = prompt.id
            text = prompt.text
            position = prompt.position
            readText = prompt.readText
            howToSay = prompt.howToSay
            self.takes = takes
            isDone = takes.contains { prompt.position == nil || $0.position == prompt.position }
        }
    }
    struct TextState: Encodable, Sendable {
        /// The file's path, or `pasted text N`.
        var name: String
        var isPasted: Bool
        /// A pasted text's first words, for the page to show which it is.
        var excerpt: String?

        init(_ text: StudioSession.Text) {
            name = text.name
            isPasted = text.isPasted
            if text.isPasted {
                let words = text.text.split(whereSeparator: \.isWhitespace)
                excerpt = words.prefix(12).joined(separator: " ") + (words.count > 12 ? " …" : "")
            }
        }
    }
    struct Coverage: Encodable, Sendable {
        /// The line `voicebank coverage` ends with: `covered: 5 of 7 tokens (71.4 %)`.
        var summary: String
        var tokens: Int
        var coveredTokens: Int
        /// The places the texts speak phrases at that have no take for them, as `voicebank coverage` lists them
        /// (`no final take of "york": 2 uses`), most uses first, and the uses in all.
        var missingPositions: [String]
        var missingPositionUses: Int

        init(_ report: CoverageReport) {
            summary = report.summary
            tokens = report.tokenCount
            coveredTokens = report.coveredTokenCount
            missingPositions = report.missingPositions.map(\.description)
            missingPositionUses = report.missingPositions.reduce(0) { $0 + $1.count }
        }
    }

    var voice: VoiceState
    var pack: String
    var prompts: [PromptState]
    var texts: [TextState]
    var coverage: Coverage?
    var maximumTakeBytes: Int
    var takeChecks: TakeChecks
}

/// A take's loudness against its voice's median clip loudness, and what to tell the person of it.
struct TakeLoudness: Encodable, Sendable, Equatable {
    var loudnessLUFS: Double?
    /// `nil` while the voice has no phrase clip measured.
    var voiceMedianLUFS: Double?
    /// The frames of the take that would play, trimmed, at its own rate: what P plays of a take not yet kept.
    var playedFrames: Range<Int>

    /// A sentence when the take stands out from the voice's other clips, as `voicebank verify` would report it.
    var message: String? {
        guard let loudnessLUFS, let voiceMedianLUFS else { return nil }
        let difference = loudnessLUFS - voiceMedianLUFS
        guard abs(difference) > VerifyLimits.loudnessToleranceLU else { return nil }
        let (louder, advice) =
            difference > 0
            ? ("louder", "speak more softly or a little further from the microphone")
            : ("quieter", "speak up or come closer to the microphone")
        return "It is \(Decibels.text(abs(difference))) LU \(louder) than the voice's other takes "
            + "(\(Decibels.text(loudnessLUFS)) against \(Decibels.text(voiceMedianLUFS)) LUFS), which stands out when "
            + "spoken: \(advice), and record it again."
    }

    private enum CodingKeys: String, CodingKey { case loudnessLUFS, voiceMedianLUFS, message, played }

    /// `played` is `[first, end]`, the end not played.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(loudnessLUFS, forKey: .loudnessLUFS)
        try container.encodeIfPresent(voiceMedianLUFS, forKey: .voiceMedianLUFS)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encode([playedFrames.lowerBound, playedFrames.upperBound], forKey: .played)
    }
}
