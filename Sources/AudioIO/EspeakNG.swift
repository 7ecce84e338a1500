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
/// (`shared`), and what it asks of the library it keeps goes through its one lock. libespeak-ng is loaded (dlopen) and
/// initialised on the first call, so a process that never falls back to it never loads it.
///
/// The same text with the same settings gives the same samples, whatever was spoken before, and a process that speaks
/// for hours keeps the memory it had: espeak-ng carries state from one synthesis to the next that no call resets (the
/// phase of its pitch flutter, a static inside a function of its wave generator, and the C library's `rand()` for
/// breath noise), and keeps memory that no call frees (voices set, and what `espeak_Initialize` allocates), so every
/// synthesis runs in a process of its own, which gives the library as initialised the voice and parameters, seeds
/// `rand()`, speaks, sends the samples back and ends, taking espeak-ng's state and memory with it. Those processes
/// are forked by one process, the spawner, forked once from this one as soon as the library is initialised (see
/// shim.h's `concat_synth_espeak_start_spawner`). Asking for one is kept off the request's path: once the caller has
/// dealt with a synthesis's samples, `makeFresh()` asks for the next one's, with the voice and parameters just used,
/// to wait for its text. A synthesis asks for its own when none is waiting (two back to back) or when it wants another
/// voice or other parameters. Syntheses run side by side, each in its process. A spawner that has ended (killed, out of
/// memory) or cannot fork is replaced by another, forked the same way, and the synthesis that found it so asks the new
/// one once: otherwise one death would take the fallback voice from the process for good.
///
/// ```swift
/// let samples = try EspeakNG.shared.synthesize("sunny with a high of", language: "en-US")
/// ```
public final class EspeakNG: Sendable {
    /// The one instance: espeak-ng's state is the process's.
    public static let shared = EspeakNG()

    private struct State {
        /// libespeak-ng as loaded and initialised; it lists voices and phonemizes here, and never synthesizes.
        var library: UnsafePointer<concat_synth_espeak>?
        /// The socket to the spawner, which forks the synthesis processes from the library as initialised.
        var spawner: Int32 = -1
        /// The spawner's process id, to reap it when another takes its place; 0 while there is none.
        var spawnerProcess: pid_t = 0
        /// How many spawners have been started: a synthesis whose spawner failed starts another only if no other
        /// synthesis has since.
        var spawnerCount = 0
        /// Each language asked for and the espeak-ng voice that speaks it (`nil`: none does).
        var voices: [String: String?] = [:]
        /// The voice the library here was last given to phonemize with.
        var phonemesVoice: String?
        /// A synthesis's process forked ahead by `makeFresh()`, waiting for its text.
        var waiting: SynthesisProcess?
        /// The voice and parameters of the last synthesis: what `makeFresh()` gives the next process.
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
        var process = try state.withLock { (state) throws(AudioIOError) -> SynthesisProcess in
            let espeak = try Self.load(&state)
            guard let identifier = try Self.voice(forLanguage: language, espeak, &state) else {
                throw .espeakLanguage(language: language)
            }
            let preparation = Preparation(
                voiceName: variant.isEmpty ? identifier : "\(identifier)+\(variant)",
                wordsPerMinute: wordsPerMinute, pitch: pitch, pitchRange: pitchRange)
            state.lastPreparation = preparation
            if let waiting = state.waiting {
                state.waiting = nil
                if waiting.preparation == preparation { return waiting }
                waiting.end()
            }
            return try Self.spawn(preparation, &state)
        }
        defer { process.end() }
        var isHandedOn = false
        var ending = try process.speak(text, isCancelled: isCancelled) {
            isHandedOn = true
            receive($0)
        }
        // Asked again only while nothing is handed on: the samples of a process that ended mid-speech are part of
        // the request already.
        if ending != .answered, !isHandedOn,
            let replacement = try state.withLock({ (state) throws(AudioIOError) -> SynthesisProcess? in
                try Self.replacement(for: process, ending, &state)
            })
        {
            process.end()
            process = replacement
            ending = try process.speak(text, isCancelled: isCancelled, receive: receive)
        }
        switch ending {
        case .answered: return
        case .notForked(let status): throw .espeakFailed(call: "fork in the spawner", status: status)
        case .cutOff: throw .espeakFailed(call: "espeak_Synth", status: Int(EE_INTERNAL_ERROR.rawValue))
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
            // The voice is set here only when the language changes: each voice set keeps a little memory for good.
            // A synthesis's process sets its own voice, so what is set here never reaches its samples.
            if state.phonemesVoice != identifier {
                state.phonemesVoice = nil
                try Self.check(
                    espeak.pointee.espeak_SetVoiceByName(identifier), "espeak_SetVoiceByName(\"\(identifier)\")")
                state.phonemesVoice = identifier
            }
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
        try startSpawner(espeak, &state)
        state.library = espeak
        return espeak
    }

    /// Forks the spawner from the library here (shim.h's `concat_synth_espeak_start_spawner`), under the lock, so
    /// that no other thread uses the library meanwhile.
    private static func startSpawner(
        _ espeak: UnsafePointer<concat_synth_espeak>, _ state: inout State
    ) throws(AudioIOError) {
        var sockets: [Int32] = [-1, -1]
        // Closed on exec: a program another thread starts must not keep the spawner's socket open.
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0
        else { throw .espeakUnavailable(reason: "socketpair failed with errno \(errno)") }
        let pid = concat_synth_espeak_start_spawner(espeak, sockets[1])
        let forkError = errno
        close(sockets[1])
        guard pid > 0 else {
            close(sockets[0])
            throw .espeakUnavailable(reason: "fork failed with errno \(forkError)")
        }
        state.spawner = sockets[0]
        state.spawnerProcess = pid
        state.spawnerCount += 1
    }

    /// Ends and reaps the spawner, which has ended or cannot fork, and starts another in its place. The library here
    /// has only listed voices and phonemized since it was initialised, and a synthesis's process sets its voice and
    /// every parameter afresh, so the new spawner's processes speak as the first's did.
    private static func restartSpawner(_ state: inout State) throws(AudioIOError) {
        close(state.spawner)
        state.spawner = -1
        // None when the last restart could not fork: kill(0) would end this whole process group.
        if state.spawnerProcess > 0 {
            // Killed in case it lives on unable to fork; a spawner that has ended is only reaped.
            kill(state.spawnerProcess, SIGKILL)
            var status: Int32 = 0
            while waitpid(state.spawnerProcess, &status, 0) < 0 && errno == EINTR {}
            state.spawnerProcess = 0
        }
        try startSpawner(state.library!, &state)
    }

    /// Asks the spawner for a synthesis's process given `preparation`; when the spawner cannot be asked (it has
    /// ended), starts another and asks it once.
    private static func spawn(_ preparation: Preparation, _ state: inout State) throws(AudioIOError)
        -> SynthesisProcess
    {
        do throws(AudioIOError) {
            return try SynthesisProcess(spawner: state.spawner, number: state.spawnerCount, preparation)
        } catch .espeakFailed(call: SynthesisProcess.askingCall, status: _) {
            try restartSpawner(&state)
            return try SynthesisProcess(spawner: state.spawner, number: state.spawnerCount, preparation)
        }
    }

    /// A process from a new spawner, for a synthesis whose own never spoke because its spawner failed: could not fork
    /// it, or ended before it did. `nil` when the spawner is well, and so the process itself failed.
    private static func replacement(
        for process: SynthesisProcess, _ ending: SynthesisProcess.Ending, _ state: inout State
    ) throws(AudioIOError) -> SynthesisProcess? {
        // Unless another synthesis has replaced that spawner already.
        if process.spawnerNumber == state.spawnerCount {
            if ending == .cutOff {
                // The spawner's end of its socket closes before what it was sent is dropped, so a process that never
                // came from a spawner that has ended always finds the socket hung up.
                var control = pollfd(fd: state.spawner, events: 0, revents: 0)
                guard poll(&control, 1, 0) == 1, control.revents & Int16(POLLHUP | POLLERR) != 0 else { return nil }
            }
            try restartSpawner(&state)
        }
        return try SynthesisProcess(spawner: state.spawner, number: state.spawnerCount, process.preparation)
    }

    /// Asks for the next synthesis's process, given the voice and parameters of the last, on a thread of its own: call
    /// it once a synthesis's samples are dealt with, so that the work neither delays them nor takes the processor from
    /// what is done with them. Does nothing before the first synthesis, or when a process is waiting already.
    ///
    /// ```swift
    /// let samples = try EspeakNG.shared.synthesize("zebra crossing", language: "en-US")
    /// play(samples)
    /// EspeakNG.shared.makeFresh()
    /// ```
    public func makeFresh() {
        startThread { [self] in
            state.withLock { (state) -> Void in
                guard state.waiting == nil, let preparation = state.lastPreparation, state.library != nil else {
                    return
                }
                // Left without: the next synthesis asks for its own, and reports what fails then.
                state.waiting = try? Self.spawn(preparation, &state)
            }
        }
    }

    /// Whether a synthesis's process is asked for and waiting for its text: what `makeFresh()` leaves.
    var isFresh: Bool {
        state.withLock { $0.waiting != nil }
    }

    /// The spawner's process id (0 while there is none), for tests that end it.
    var spawnerProcess: pid_t {
        state.withLock { $0.spawnerProcess }
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

    fileprivate static func check(_ status: espeak_ERROR, _ call: String) throws(AudioIOError) {
        guard status != EE_OK else { return }
        throw .espeakFailed(call: call, status: Int(status.rawValue))
    }

    /// The process of one synthesis (shim.h's `concat_synth_espeak_synthesize`), through the socket to it: given its
    /// voice and parameters, it waits for the text, answers with the samples and ends.
    private struct SynthesisProcess: Sendable {
        var socket: Int32
        var preparation: Preparation
        /// Which spawner it was asked of (`State.spawnerCount` then).
        var spawnerNumber: Int

        /// How a process's answer ended, short of an error espeak-ng reported.
        enum Ending: Equatable {
            /// With its end, or cancelled by the caller: nothing is left to ask of it.
            case answered
            /// Without its end: the process ended, or its spawner did before forking it.
            case cutOff
            /// The spawner could not fork it (fork's errno).
            case notForked(status: Int)
        }

        /// The call named when the spawner cannot be asked.
        static let askingCall = "sendmsg to the spawner"

        /// Asks spawner `number`, on socket `spawner`, for the process.
        init(spawner: Int32, number: Int, _ preparation: Preparation) throws(AudioIOError) {
            var settings = concat_synth_espeak_preparation()
            let name = Array(preparation.voiceName.utf8)
            guard name.count < MemoryLayout.size(ofValue: settings.voice) else {
                throw .espeakFailed(
                    call: "espeak_SetVoiceByName(\"\(preparation.voiceName)\")", status: Int(EE_NOT_FOUND.rawValue))
            }
            withUnsafeMutableBytes(of: &settings.voice) { $0.copyBytes(from: name) }
            settings.rate = Int32(preparation.wordsPerMinute)
            settings.pitch = Int32(preparation.pitch)
            settings.range = Int32(preparation.pitchRange)
            settings.volume = 100
            settings.noise_seed = EspeakNG.noiseSeed
            var sockets: [Int32] = [-1, -1]
            // Closed on exec: a program another thread starts must not keep the process's end open.
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0
            else { throw .espeakFailed(call: "socketpair", status: Int(errno)) }
            let sent = concat_synth_espeak_spawn(spawner, &settings, sockets[1])
            let sendError = errno
            close(sockets[1])
            guard sent == 0 else {
                close(sockets[0])
                throw .espeakFailed(call: Self.askingCall, status: Int(sendError))
            }
            socket = sockets[0]
            self.preparation = preparation
            spawnerNumber = number
        }

        /// Sends the text, and hands each piece of samples to `receive` as it comes, until the end or `isCancelled`.
        func speak(_ text: String, isCancelled: () -> Bool, receive: ([Float]) -> Void) throws(AudioIOError) -> Ending {
            var length = Int32(text.utf8.count)
            // What fails to send is left to the answer: a spawner that could not fork answers and closes at once.
            if concat_synth_espeak_send(socket, &length, 4) == 0 {
                _ = text.withCString { concat_synth_espeak_send(socket, $0, text.utf8.count) }
            }
            while true {
                var count: Int32 = 0
                guard concat_synth_espeak_receive(socket, &count, 4) == 0 else { break }
                guard count > 0 else {
                    var end: [Int32] = [0, 0, 0]
                    guard concat_synth_espeak_receive(socket, &end, 12) == 0 else { break }
                    let call: String
                    switch concat_synth_espeak_call(UInt32(end[0])) {
                    case CONCAT_SYNTH_ESPEAK_NONE: return .answered
                    case CONCAT_SYNTH_ESPEAK_FORK: return .notForked(status: Int(end[1]))
                    case CONCAT_SYNTH_ESPEAK_SET_VOICE: call = "espeak_SetVoiceByName(\"\(preparation.voiceName)\")"
                    case CONCAT_SYNTH_ESPEAK_SET_PARAMETER: call = "espeak_SetParameter(\(end[2]))"
                    default: call = "espeak_Synth"
                    }
                    try EspeakNG.check(espeak_ERROR(Int32(end[1])), call)
                    return .answered
                }
                var pieces = [Int16](repeating: 0, count: Int(count))
                guard
                    (pieces.withUnsafeMutableBytes { concat_synth_espeak_receive(socket, $0.baseAddress!, $0.count) })
                        == 0
                else { break }
                receive(pieces.map(PCM16.value))
                if isCancelled() { return .answered }
            }
            return .cutOff
        }

        /// Closes the socket, which ends the process: one waiting for its text at once, one still speaking when it
        /// next sends a piece.
        func end() {
            close(socket)
        }
    }
}

extension String {
    /// Without the spaces espeak-ng puts at a clause's ends.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
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
