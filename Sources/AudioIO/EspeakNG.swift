// SPDX-License-Identifier: GPL-3.0-or-later
import CEspeakNG
import SpeechCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// espeak-ng, the general synthesizer the fallback voice speaks with, through its C library: text in, render-ready
/// samples (22050 Hz mono Float32, espeak-ng's own rate) out, made in memory through its synthesis callback.
///
/// espeak-ng keeps its voice, its parameters and its callback in global state, so a process has one `EspeakNG`
/// (`shared`) and every use of the library goes through its one lock: one caller at a time, from any thread.
/// libespeak-ng is loaded (dlopen) and initialised on the first call, so a process that never falls back to it
/// never loads it.
///
/// The same text with the same settings gives the same samples, whatever was spoken before: espeak-ng carries state
/// from one synthesis to the next that no call resets (the phase of its pitch flutter, a static inside a function of
/// its wave generator, and the C library's `rand()` for breath noise), so every synthesis runs on a library freshly
/// loaded and given its voice and parameters, and seeds `rand()`. Making one fresh (unload, load, initialise, set the
/// voice) is kept off the request's path: once the caller has dealt with a synthesis's samples, `makeFresh()`
/// makes the next one on a thread of its own, with the voice and parameters just used. A synthesis waits for it only
/// when it comes before that is done (two back to back), and makes one itself when none was asked for or when it
/// asks for another voice or other parameters.
///
/// ```swift
/// let samples = try EspeakNG.shared.synthesize("sunny with a high of", language: "en-US")
/// ```
public final class EspeakNG: Sendable {
    /// The one instance: espeak-ng's state is the process's.
    public static let shared = EspeakNG()

    private struct State {
        var library: UnsafePointer<concat_synth_espeak>?
        /// The voice and parameters the library as loaded was given, if any.
        var preparation: Preparation?
        /// Whether the library as loaded has done more than be given its voice and parameters (a synthesis, or a
        /// listing of voices after them), and so no longer starts from the state a synthesis must start from.
        var isUsed = false
        /// Each language asked for and the espeak-ng voice that speaks it (`nil`: none does).
        var voices: [String: String?] = [:]
        /// The voice and parameters of the last synthesis: what `makeFresh()` gives the next library.
        var lastPreparation: Preparation?
    }

    /// What a synthesis sets before it speaks: the voice by name (`gmw/en-US+f3`) and espeak-ng's parameters.
    private struct Preparation: Equatable, Sendable {
        var voiceName: String
        var wordsPerMinute: Int
        var pitch: Int
        var pitchRange: Int
    }

    private let state = Mutex(State())

    private init() {}

    /// Whether espeak-ng has a voice for `language`, a BCP 47 tag (`en-US`, `ja-JP`).
    ///
    /// - Throws: `AudioIOError.espeakUnavailable` when libespeak-ng cannot be loaded or started.
    public func hasVoice(forLanguage language: String) throws(AudioIOError) -> Bool {
        try state.withLock { (state) throws(AudioIOError) -> Bool in
            let espeak = try Self.load(&state)
            return try Self.voice(forLanguage: language, espeak, &state) != nil
        }
    }

    /// Speaks `text` as one phrase in `language`: its samples, at 22050 Hz, as espeak-ng made them (with the silence
    /// it puts at the ends).
    ///
    /// - Parameters:
    ///   - variant: an espeak-ng variant of the language's voice (`f3`, `m2`); empty for the voice itself.
    ///   - pitch: espeak-ng's base pitch, and `pitchRange` how far its intonation moves
    ///     (`FallbackVoiceSettings.pitches`).
    ///   - wordsPerMinute: espeak-ng's rate (`FallbackVoiceSettings.wordsPerMinuteRange`).
    ///   - isCancelled: asked as each piece of audio arrives (every 50 ms of speech); `true` stops the synthesis,
    ///     and what was made so far is returned.
    /// - Throws: `AudioIOError.espeakUnavailable` (libespeak-ng cannot be loaded or started), `.espeakLanguage`
    ///   (no voice for the language), `.espeakFailed` (a call refused, with its status).
    public func synthesize(
        _ text: String, language: String, variant: String = "", pitch: Int = FallbackVoiceSettings.standard.pitch,
        pitchRange: Int = FallbackVoiceSettings.standard.pitchRange,
        wordsPerMinute: Int = FallbackVoiceSettings.standard.wordsPerMinute, isCancelled: () -> Bool = { false }
    ) throws(AudioIOError) -> [Float] {
        var samples: [Float] = []
        try synthesize(
            text, language: language, variant: variant, pitch: pitch, pitchRange: pitchRange,
            wordsPerMinute: wordsPerMinute, isCancelled: isCancelled, receive: { samples += $0 })
        return samples
    }

    /// Speaks `text` as `synthesize(_:language:variant:pitch:pitchRange:wordsPerMinute:isCancelled:)` does, handing
    /// each piece of its samples to `receive` as espeak-ng makes it (every 50 ms of speech).
    public func synthesize(
        _ text: String, language: String, variant: String = "", pitch: Int = FallbackVoiceSettings.standard.pitch,
        pitchRange: Int = FallbackVoiceSettings.standard.pitchRange,
        wordsPerMinute: Int = FallbackVoiceSettings.standard.wordsPerMinute, isCancelled: () -> Bool = { false },
        receive: ([Float]) -> Void
    ) throws(AudioIOError) {
        try withoutActuallyEscaping(isCancelled) { (isCancelled) throws(AudioIOError) -> Void in
            try withoutActuallyEscaping(receive) { (receive) throws(AudioIOError) -> Void in
                let collector = SampleCollector(isCancelled: isCancelled, receive: receive)
                try state.withLock { (state) throws(AudioIOError) -> Void in
                    var espeak = try Self.load(&state)
                    guard let identifier = try Self.voice(forLanguage: language, espeak, &state) else {
                        throw .espeakLanguage(language: language)
                    }
                    let preparation = Preparation(
                        voiceName: variant.isEmpty ? identifier : "\(identifier)+\(variant)",
                        wordsPerMinute: wordsPerMinute, pitch: pitch, pitchRange: pitchRange)
                    // A library given other settings is made afresh rather than given these on top: only one given
                    // exactly these and nothing else is known to speak as a fresh one does.
                    if state.isUsed || (state.preparation.map { $0 != preparation } ?? false) {
                        try Self.unload(&state)
                        espeak = try Self.load(&state)
                    }
                    if state.preparation == nil { try Self.prepare(espeak, preparation, &state) }
                    state.lastPreparation = preparation
                    let context = Unmanaged.passUnretained(collector).toOpaque()
                    srand(Self.noiseSeed)
                    state.isUsed = true
                    // The size counts the terminating NUL, as espeak-ng's own programs pass it.
                    let size = text.utf8.count + 1
                    let status = text.withCString { text in
                        espeak.pointee.espeak_Synth(
                            text, size, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
                    }
                    try Self.check(status, "espeak_Synth")
                }
            }
        }
    }

    /// espeak-ng's phonemes for `text` in `language`, as its ASCII mnemonics (`espeak-ng -x`): words apart by
    /// spaces, the phonemes of a word apart by `separator`, a stress mark (`'` primary, `,` secondary) before the
    /// vowel it falls on. Each clause (up to a comma or a full stop) is phonemized in turn and the clauses are joined
    /// by a space. espeak-ng may write two short words as one (`of the` as `V.v.D.@2`).
    ///
    /// ```swift
    /// try EspeakNG.shared.phonemes("hello world", language: "en-US")   // "h.@.l.'oU w.'3:.l.d"
    /// ```
    /// - Throws: `AudioIOError.espeakUnavailable`, `.espeakLanguage`, `.espeakFailed`.
    public func phonemes(_ text: String, language: String, separator: Character = ".") throws(AudioIOError) -> String {
        try state.withLock { (state) throws(AudioIOError) -> String in
            let espeak = try Self.load(&state)
            guard let identifier = try Self.voice(forLanguage: language, espeak, &state) else {
                throw .espeakLanguage(language: language)
            }
            // Phonemizing moves espeak-ng's translator on, so the next synthesis starts from a library made afresh.
            if state.preparation?.voiceName != identifier {
                state.preparation = nil
                state.isUsed = true
                try Self.check(
                    espeak.pointee.espeak_SetVoiceByName(identifier), "espeak_SetVoiceByName(\"\(identifier)\")")
            }
            state.isUsed = true
            let mode = Int32(separator.unicodeScalars.first!.value) << 8
            var clauses: [String] = []
            text.withCString { text in
                var cursor: UnsafeRawPointer? = UnsafeRawPointer(text)
                while cursor != nil, cursor!.load(as: UInt8.self) != 0 {
                    guard let phonemes = espeak.pointee.espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, mode) else {
                        break
                    }
                    let clause = String(cString: phonemes).trimmingSpaces
                    if !clause.isEmpty { clauses.append(clause) }
                }
            }
            return clauses.joined(separator: " ")
        }
    }

    /// libespeak-ng's functions, loaded and initialised on the first call.
    private static func load(_ state: inout State) throws(AudioIOError) -> UnsafePointer<concat_synth_espeak> {
        if let library = state.library { return library }
        guard let espeak = concat_synth_espeak_load() else {
            throw .espeakUnavailable(reason: String(cString: concat_synth_espeak_load_error()))
        }
        // Synchronous: the samples come to the callback before espeak_Synth returns, and no sound device is opened.
        // Without DONT_EXIT espeak-ng ends the process when it cannot find its data.
        let rate = espeak.pointee.espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, Int32(Self.bufferMilliseconds), nil, espeakINITIALIZE_DONT_EXIT)
        guard rate == Int32(RenderFormat.sampleRate) else {
            throw .espeakUnavailable(
                reason: rate < 0
                    ? "espeak_Initialize failed (its data, espeak-ng-data, may be missing)"
                    : "espeak-ng speaks at \(rate) Hz, not \(RenderFormat.sampleRate) Hz")
        }
        espeak.pointee.espeak_SetSynthCallback(collectSamples)
        state.library = espeak
        return espeak
    }

    /// Makes libespeak-ng fresh for the next synthesis, given the voice and parameters of the last, on a thread of its
    /// own: call it once a synthesis's samples are dealt with, so that the work neither delays them nor
    /// takes the processor from what is done with them. Does nothing before the first synthesis, or when the library
    /// is fresh already.
    ///
    /// ```swift
    /// let samples = try EspeakNG.shared.synthesize("zebra crossing", language: "en-US")
    /// play(samples)
    /// EspeakNG.shared.makeFresh()
    /// ```
    public func makeFresh() {
        startThread { [self] in
            state.withLock { (state) -> Void in
                guard let preparation = state.lastPreparation,
                    state.library == nil || state.isUsed || state.preparation == nil
                else { return }
                do throws(AudioIOError) {
                    if state.isUsed { try Self.unload(&state) }
                    try Self.prepare(try Self.load(&state), preparation, &state)
                } catch {
                    // Left unloaded: the next synthesis loads the library itself, and reports what fails then.
                    try? Self.unload(&state)
                }
            }
        }
    }

    /// Whether the library is loaded, given a voice and parameters, and unused since: what `makeFresh()` leaves.
    var isFresh: Bool {
        state.withLock { $0.library != nil && !$0.isUsed && $0.preparation != nil }
    }

    /// Gives a fresh library the voice and parameters of a synthesis.
    private static func prepare(
        _ espeak: UnsafePointer<concat_synth_espeak>, _ preparation: Preparation, _ state: inout State
    ) throws(AudioIOError) {
        // Used until every call has succeeded: a voice half set is no fresh start.
        state.isUsed = true
        let name = preparation.voiceName
        try check(espeak.pointee.espeak_SetVoiceByName(name), "espeak_SetVoiceByName(\"\(name)\")")
        // Set every time: a voice brings its own defaults.
        for (parameter, value) in [
            (espeakRATE, preparation.wordsPerMinute), (espeakPITCH, preparation.pitch),
            (espeakRANGE, preparation.pitchRange), (espeakVOLUME, 100),
        ] {
            try check(
                espeak.pointee.espeak_SetParameter(parameter, Int32(value), 0),
                "espeak_SetParameter(\(parameter.rawValue), \(value))")
        }
        state.isUsed = false
        state.preparation = preparation
    }

    /// Terminates espeak-ng and unloads its library, so that the next `load` starts it afresh.
    private static func unload(_ state: inout State) throws(AudioIOError) {
        guard let espeak = state.library else { return }
        state.library = nil
        state.preparation = nil
        state.isUsed = false
        try check(espeak.pointee.espeak_Terminate(), "espeak_Terminate")
        guard concat_synth_espeak_unload() == 0 else {
            throw .espeakUnavailable(reason: "dlclose of libespeak-ng.so.1 failed: \(String(cString: dlerror()))")
        }
    }

    /// How much speech espeak-ng hands the callback at a time, in ms: how soon a cancelled synthesis stops.
    private static let bufferMilliseconds = 50

    /// The seed of `rand()`, from which espeak-ng's breath noise comes, at the start of every synthesis.
    private static let noiseSeed: UInt32 = 1

    /// The identifier of the first voice espeak-ng lists for `language` (`gmw/en-US`), leaving out MBROLA voices,
    /// which need a program and data Debian's espeak-ng does not bring.
    private static func voice(
        forLanguage language: String, _ espeak: UnsafePointer<concat_synth_espeak>, _ state: inout State
    ) throws(AudioIOError) -> String? {
        let tag = language.lowercased()
        if let known = state.voices[tag] { return known }
        var found: String?
        // Listing voices reads espeak-ng's voice files into its own state; on a library already given its voice,
        // the next synthesis makes a fresh one rather than find out whether that matters.
        if state.preparation != nil { state.isUsed = true }
        tag.withCString { tag in
            var specification = espeak_VOICE()
            specification.languages = tag
            guard var voice = espeak.pointee.espeak_ListVoices(&specification) else { return }
            while let entry = voice.pointee, found == nil {
                if let identifier = entry.pointee.identifier.map({ String(cString: $0) }),
                    !identifier.hasPrefix("mb/")
                {
                    found = identifier
                }
                voice += 1
            }
        }
        state.voices[tag] = .some(found)
        return found
    }

    private static func check(_ status: espeak_ERROR, _ call: String) throws(AudioIOError) {
        guard status != EE_OK else { return }
        throw .espeakFailed(call: call, status: Int(status.rawValue))
    }
}

extension String {
    /// Without the spaces espeak-ng puts at a clause's ends.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// The samples of one synthesis, gathered by the callback; `isCancelled` stops it.
///
/// @unchecked Sendable: it goes into the lock's closure, but only one thread ever touches it, the caller's, to which
/// espeak-ng hands the samples inside `espeak_Synth` (synchronous mode).
private final class SampleCollector: @unchecked Sendable {
    let isCancelled: () -> Bool
    let receive: ([Float]) -> Void

    init(isCancelled: @escaping () -> Bool, receive: @escaping ([Float]) -> Void) {
        self.isCancelled = isCancelled
        self.receive = receive
    }
}

/// espeak-ng's synthesis callback: each piece of 16-bit audio, with events whose `user_data` is the collector the
/// synthesis passed. Returns 1, which stops espeak-ng, once the synthesis is cancelled.
private func collectSamples(
    _ samples: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let context = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<SampleCollector>.fromOpaque(context).takeUnretainedValue()
    if let samples, count > 0 {
        collector.receive(UnsafeBufferPointer(start: samples, count: Int(count)).map(PCM16.value))
    }
    return collector.isCancelled() ? 1 : 0
}

/// pcaudiolib's `create_audio_device_object`, which libespeak-ng 1.51 calls when it initialises, in every output mode:
/// it probes the sound servers by opening a stream (PulseAudio, which makes `~/.config/pulse` and looks for a server,
/// then ALSA's default device), though synthesis to memory plays nothing. Defined here and exported from the
/// executables (`Package.swift`'s release linking names it), it is found before pcaudiolib's when libespeak-ng is
/// loaded, and says there is no device: espeak-ng then never touches one.
@_cdecl("create_audio_device_object")
public func createNoAudioDevice(
    _ device: UnsafePointer<CChar>?, _ applicationName: UnsafePointer<CChar>?, _ description: UnsafePointer<CChar>?
) -> OpaquePointer? {
    nil
}
