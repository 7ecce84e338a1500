// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import HTTPService
import SpeechCore
import Voicebank
import VoicebankAuthoring

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The takes of the script's prompts: each a clip of the voice with a prompt's phrase key, kept (imported as
/// `voicebank import` would), discarded, tagged with another position, measured before it is kept, listened to and
/// aligned after.
final class StudioTakes: Sendable {
    private let pack: StudioPack
    private let prompts: StudioPrompts
    private let recordings: RecordingInProgress
    private let fallbackVoice: FallbackVoiceUpdates
    /// Where a take is written as a WAV file for the import to read.
    private let folder: TemporaryFolder
    /// Listens to each take kept, behind keep.
    let listener: TakeListener
    /// Aligns each take kept to its words and phones, behind keep.
    let aligning: TakeAligning

    init(
        pack: StudioPack, prompts: StudioPrompts, recordings: RecordingInProgress, fallbackVoice: FallbackVoiceUpdates,
        folder: TemporaryFolder, isAligning: Bool
    ) {
        self.pack = pack
        self.prompts = prompts
        self.recordings = recordings
        self.fallbackVoice = fallbackVoice
        self.folder = folder
        listener = TakeListener(voice: pack.voice.identifier, languages: pack.voice.primaryLanguages)
        aligning = TakeAligning(pack: pack, isAligning: isAligning)
    }

    private var voice: Voice { pack.voice }

    // MARK: Reading

    /// The takes of each prompt, by prompt id, in the order they were kept: every take of its phrase, whatever its
    /// position (`PromptState.isDone` tells whether one has the prompt's).
    func byPrompt() throws(StudioError) -> [String: [StudioState.Take]] {
        let clips = try pack.withPack { (pack) throws(VoicebankError) in try pack.clips(voice: voice.identifier) }
        let promptsByPhraseKey = prompts.promptsByPhraseKey
        var takes: [String: [StudioState.Take]] = [:]
        for clip in clips where !clip.isFallback {
            for prompt in promptsByPhraseKey[clip.phraseKey] ?? [] {
                takes[prompt.id, default: []].append(state(of: clip))
            }
        }
        return takes
    }

    /// A take as the page reads it, with what listening to it and aligning it found.
    func state(of take: Clip) -> StudioState.Take {
        StudioState.Take(take, hearing: listener.hearing(take: take.id), alignment: aligning.state(take: take.id))
    }

    /// The state of each prompt of a phrase after a change, in the script's order.
    func promptStates(phraseKey: String) throws(StudioError) -> [StudioState.PromptState] {
        let takes = try byPrompt()
        return prompts.prompts(phraseKey: phraseKey).map { StudioState.PromptState($0, takes: takes[$0.id] ?? []) }
    }

    /// A take of one of the script's prompts.
    ///
    /// - Throws: `StudioError.unknownTake` for an id that is no clip, or a clip of another voice or phrase.
    func take(id text: String) throws(StudioError) -> Clip {
        guard let id = Int(text) else { throw .unknownTake(id: text) }
        do throws(StudioError) {
            let clip = try pack.withPack { (pack) throws(VoicebankError) in try pack.clip(id: id) }
            guard clip.voice == voice.identifier, !clip.isFallback, !prompts.prompts(phraseKey: clip.phraseKey).isEmpty
            else {
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
        return try pack.withPack { (pack) throws(VoicebankError) in try pack.renderReadyPCM(clipID: clip.id) }
    }

    // MARK: Changing

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
            pack.withPack { (pack) throws(AuthoringError) in
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
        let (id, clip) = try recordings.withRecording(id: recordingID) { (recording) throws(StudioError) in
            (recording.id, try recording.preparedClip())
        }
        let request = ImportRequest(
            path: "recording \(id)", phrase: prompt.text, sourceName: Self.sourceName(prompt.text, position: position),
            position: position)
        let take = try kept(
            pack.withPack { (pack) throws(AuthoringError) in
                try pack.importClip(clip, as: request, into: voice.identifier, choosesFallbackVoice: false)
            })
        recordings.remove(id: id)
        return take
    }

    /// The take an import of one take stored, or the clip it has the same audio as.
    private func kept(_ report: ImportReport) throws(StudioError) -> Clip {
        if let skipped = report.skipped.first {
            throw .sameTake(clipID: skipped.existing.id, phrase: skipped.existing.phrase)
        }
        fallbackVoice.takesChanged()
        return report.imported[0]
    }

    /// Removes a take from the pack.
    ///
    /// - Returns: the take, and the prompts of its phrase.
    /// - Throws: `StudioError.unknownTake`, `.voicebank`.
    func discard(takeID: String) throws(StudioError) -> (take: Clip, prompts: [Prompt]) {
        let clip = try take(id: takeID)
        _ = try pack.withPack { (pack) throws(AuthoringError) in
            try pack.removeClips(ids: [clip.id], choosesFallbackVoice: false)
        }
        fallbackVoice.takesChanged()
        return (clip, prompts.prompts(phraseKey: clip.phraseKey))
    }

    /// Tags a kept take with another position, or none, in its own transaction: its source name's prefix follows
    /// (`e.york.wav`), as if it had been kept so.
    ///
    /// - Throws: `StudioError.unknownTake`, `.voicebank`.
    func reposition(takeID: String, position: TakePosition?) throws(StudioError) -> Clip {
        let clip = try take(id: takeID)
        return try pack.withPack { (pack) throws(AuthoringError) in
            try pack.setPosition(
                position, clipID: clip.id, sourceName: Self.sourceName(clip.phrase, position: position))
        }
    }

    // MARK: Checking

    /// What `voicebank verify` would say of a take's loudness were it kept: more than `VerifyLimits.loudnessToleranceLU`
    /// from the voice's median clip loudness stands out when spoken. Measured on what would play (`playedRange`), at
    /// the take's own rate, before anything is converted or stored.
    ///
    /// - Throws: `StudioError.audio` when the meter fails, `.voicebank`.
    func loudnessCheck(_ upload: TakeUpload) throws(StudioError) -> TakeLoudness {
        let median = try pack.withPack { (pack) throws(VoicebankError) in
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
        let (samples, clips) = try pack.withPack { (pack) throws(VoicebankError) in
            (try pack.renderReadyPCM(clipID: take.id), try pack.clips(voice: voice.identifier))
        }
        var seen = Set<String>()
        let grammar = (clips.filter { !$0.isFallback }.map(\.phraseKey) + prompts.script.prompts.map(\.phraseKey))
            .filter { seen.insert($0).inserted }
        listener.listen(
            take: take.id, name: name, samples: samples, sampleRate: RenderFormat.sampleRate, phrase: take.phrase,
            grammar: grammar, done: done)
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
