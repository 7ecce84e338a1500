// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import ConcatSynth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConcatSynthCommand {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render SSML or text to audio: 22050 Hz mono Float32 unless asked otherwise.",
            discussion: """
                The request is the TEXT arguments joined by spaces, the contents of --file, or standard input \
                (- or no TEXT). Input that starts with < is SSML; anything else is plain text. Words no clip \
                covers are spoken as the voice's fallback clip and reported on standard error.
                The output's extension picks the container: .wav .aiff .caf .au (Float32 unless --encoding), .flac \
                (24-bit), .ogg (Vorbis), .opus (48000 Hz), .mp3 (where this machine's libsndfile writes it), .raw; \
                Asterisk's .sln (8000 Hz s16), .sln16 (and .sln12 … .sln192), .ulaw and .alaw (8000 Hz) pick their \
                own rate and encoding.
                Examples:
                  concat-synth render -o hello.wav "Hello, nice to meet you"
                  concat-synth render --file request.ssml -o - | aplay -f FLOAT_LE -r 22050 -c 1
                  concat-synth render -o welcome.ulaw "Welcome"
                  concat-synth render --sample-rate 16000 --encoding s16 -o out.wav "Hello"
                  concat-synth render --picture hello.svg -o hello.wav "Hello, nice to meet you"
                """)

        @OptionGroup var request: RequestOptions

        @Option(
            name: [.customShort("o"), .long],
            help: ArgumentHelp(
                "The output file, its extension picking the container (see above); - for raw little-endian samples on standard output (the default when it is not a terminal).",
                valueName: "file"))
        var output: String?

        @Option(
            help: ArgumentHelp(
                "The sample encoding: float (32-bit), s16, s24 (signed PCM), ulaw or alaw (G.711); the container's own if not given (float for -o -).",
                valueName: "encoding"))
        var encoding: OutputEncoding?

        @Option(
            help: ArgumentHelp(
                "Write a JSON line for each phrase, sentence, paragraph and <mark>: kind, text, frame, frames (at the output rate), byteOffset (into the output's samples), textRange (UTF-16).",
                valueName: "file"))
        var markers: String?

        @Flag(
            help:
                "Report on standard error the largest sample step at a join between clips, against the largest inside the audio (a ratio of 1 or less is a clean join)."
        )
        var joinReport = false

        @Flag(
            help:
                "Print on standard error, before the audio, what each stage of planning decided: the phrase each run of words matched, the take each phrase plays and why, the fallback strategy that spoke the words no clip covers, and the plan placed on the timeline. The request is read whole for it."
        )
        var plan = false

        @Option(
            help: ArgumentHelp(
                "Also draw the render as an SVG picture: the waveform, each phrase's words (fallbacks in orange), pauses, marks, sentences and rough joins between clips.",
                valueName: "file.svg"),
            completion: .file(extensions: ["svg"]))
        var picture: String?

        /// The arguments as plain values, the form the fast path (`RenderArguments.parse`) also makes.
        var arguments: RenderArguments {
            RenderArguments(
                request: request.arguments, output: output, encoding: encoding, markers: markers,
                joinReport: joinReport, picture: picture, plan: plan)
        }

        func validate() throws { try arguments.validate() }

        func run() throws { try arguments.run() }
    }
}

/// What to speak and how: the options `render` and `say` share.
struct RequestOptions: ParsableArguments {
    @OptionGroup var bank: BankOptions

    @Option(
        help: ArgumentHelp(
            "The voice to start with (the pack's first if not given); with no --bank, from the default or the installed pack that has it (concat-synth voices lists them). SSML's <voice> and xml:lang switch to other voices of its pack.",
            valueName: "id"))
    var voice: String?

    @Option(help: ArgumentHelp("Read the request from this file.", valueName: "file"), completion: .file())
    var file: String?

    @Option(
        name: .customLong("allow-audio"),
        help: ArgumentHelp(
            "A directory <audio src> may play files from (repeatable); without it, <audio> speaks its fallback content.",
            valueName: "dir"))
    var audioDirectories: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Speak faster or slower, keeping the pitch: a factor (2), a percentage (200%), or any SSML rate (+20%, fast). The same as wrapping the request in <prosody rate>: the voice's normal rate (1, unless the voice was made with another) plays the clips as recorded.",
            valueName: "rate"))
    var rate: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Speak higher or lower, keeping the duration: semitones (+2st), a percentage (-10%), or x-low … x-high. The same as wrapping the request in <prosody pitch>.",
            valueName: "pitch"))
    var pitch: String?

    @Option(
        name: .customLong("sample-rate"),
        help: ArgumentHelp(
            "The output's sample rate in Hz (8000, 16000, 44100, 48000, …), converted with soxr as the audio is pulled; 22050 if not given.",
            valueName: "hz"))
    var sampleRate: Int?

    @Option(
        help: """
            Which take of a phrase plays: best (the takes that fit their places in the sentence and join most \
            smoothly), rotate (the n-th time a phrase is spoken, its n-th take) or first.
            """)
    var takes: TakeChoice = .best

    @Flag(help: "Fail, writing nothing, if any words need the fallback clip.")
    var strict = false

    @Flag(help: "Speak the text of malformed SSML, and ignore bad attribute values, with a warning.")
    var lenient = false

    @Argument(help: ArgumentHelp("The text or SSML to speak; - reads standard input.", valueName: "text"))
    var text: [String] = []

    var arguments: RequestArguments {
        RequestArguments(
            bank: bank.bank, voice: voice, rate: rate, pitch: pitch, sampleRate: sampleRate, file: file,
            audioDirectories: audioDirectories, takes: takes, strict: strict, lenient: lenient, text: text)
    }
}

/// What to speak and how, as plain values: `RequestOptions` and the fast path both make one.
struct RequestArguments: Equatable {
    var bank: String?
    var voice: String?
    var rate: String?
    var pitch: String?
    var sampleRate: Int?
    var file: String?
    var audioDirectories: [String] = []
    var takes = TakeChoice.best
    var strict = false
    var lenient = false
    var text: [String] = []

    func validate() throws {
        if file != nil && !text.isEmpty { throw ValidationError("Give the request as TEXT or as --file, not both.") }
        if file == nil && (text.isEmpty || text == ["-"]) && FileDescriptor.standardInput.isTerminal {
            throw ValidationError("Missing the text to speak: give TEXT, --file FILE, or pipe it to standard input.")
        }
        if let sampleRate, !AudioLimits.sampleRates.contains(sampleRate) {
            throw ValidationError(
                CommandLineMessage(AudioIOError.unsupportedOutputRate(sampleRate: sampleRate)).description)
        }
        _ = try prosody()
    }

    /// `--rate` and `--pitch` as the request's prosody.
    func prosody() throws -> Prosody {
        var prosody = Prosody.normal
        if let rate {
            guard let value = Prosody.rate(parsing: rate) else {
                throw ValidationError("invalid --rate \"\(rate)\": expected \(Prosody.acceptedRate)")
            }
            prosody.rate = value
        }
        if let pitch {
            guard let value = Prosody.pitchSemitones(parsing: pitch) else {
                throw ValidationError("invalid --pitch \"\(pitch)\": expected \(Prosody.acceptedPitch)")
            }
            prosody.pitchSemitones = value
        }
        return prosody
    }

    /// The request read and ready to pull, its warnings and fallbacks going to standard error.
    ///
    /// With `--strict`, either a first pass that only plans (`checkingFirst`: it fails the request before any
    /// audio, and reads the request whole so that it can be read again), or the words that fell back are
    /// gathered in `fallbacks` as the renderer reaches them, for a caller that can still take its output back.
    ///
    /// - Throws: `ConcatSynthError` for an unreadable request, the pack, the voice, bad SSML or a fallback under
    ///   `--strict`.
    func start(checkingFirst: Bool, recording: Renderer.Recording = [], dumpingPlan: Bool = false) throws -> (
        synthesizer: Synthesizer, request: SpeechRequest, renderer: Renderer, fallbacks: FallbackLog
    ) {
        let checksFirst = strict && checkingFirst
        let request = try readRequest(whole: checksFirst || dumpingPlan)
        let synthesizer = try Synthesizer(
            bank: packPath(), voice: voice, audioSandbox: AudioSandbox(allowing: audioDirectories), takeChoice: takes)
        if checksFirst { try synthesizer.checkCovered(request) }
        if dumpingPlan {
            var standardError = StandardError()
            print(try synthesizer.planTrace(request), to: &standardError)
        }
        let fallbacks = FallbackLog(voice: synthesizer.voice.identifier)
        let renderer = try synthesizer.renderer(for: request, recording: recording) { [strict] note in
            var standardError = StandardError()
            print(note, to: &standardError)
            if strict { fallbacks.record(note) }
        }
        return (synthesizer, request, renderer, fallbacks)
    }

    /// `--bank`; with none, the pack that has `--voice` among the default and installed packs (`VoiceCatalog`),
    /// those that cannot be opened named on standard error; with neither, `nil` for the default pack.
    ///
    /// - Throws: `ConcatSynthError.voiceInSeveralPacks`, `.voiceNotInCatalog`, or the default pack's error when no
    ///   pack can be opened.
    private func packPath() throws -> String? {
        guard bank == nil, let voice else { return bank }
        let catalog = try VoiceCatalog()
        var standardError = StandardError()
        for warning in catalog.warnings { print("warning: \(warning)", to: &standardError) }
        return try catalog.pack(ofVoice: voice).path
    }

    /// The request: the TEXT arguments, or the file or standard input (`SpeechRequest.read`).
    private func readRequest(whole: Bool) throws -> SpeechRequest {
        let prosody = try prosody()
        guard file != nil || text.isEmpty || text == ["-"] else {
            return SpeechRequest(text.joined(separator: " "), voice: voice, prosody: prosody, isLenient: lenient)
        }
        let read = try SpeechRequest.read(
            from: file.map { .file($0) } ?? .standardInput, whole: whole, voice: voice, prosody: prosody,
            isLenient: lenient)
        if let warning = read.warning {
            var standardError = StandardError()
            print(warning, to: &standardError)
        }
        return read.request
    }

    /// After a request streamed as it was spoken: the warning a request decoded whole gives before it.
    func warnOfReplacements(in request: SpeechRequest) {
        guard let warning = request.streamedReplacementWarning else { return }
        var standardError = StandardError()
        print(warning, to: &standardError)
    }
}

/// What `concat-synth render` was asked to do, as plain values: ArgumentParser's `Render` and the fast path both
/// make one.
struct RenderArguments: Equatable {
    var request = RequestArguments()
    var output: String?
    var encoding: OutputEncoding?
    var markers: String?
    var joinReport = false
    var picture: String?
    var plan = false

    func validate() throws {
        if let picture, !picture.lowercased().hasSuffix(".svg") {
            throw ValidationError("--picture \(picture): expected a file name ending in .svg")
        }
        if output == nil && FileDescriptor.standardOutput.isTerminal {
            throw ValidationError(
                "Missing -o FILE (.wav, .aiff, .caf, .flac, .ulaw, …), or -o - to write raw samples to a pipe.")
        }
        try request.validate()
        _ = try outputFormat()
    }

    /// The output's format from its extension, `--sample-rate` and `--encoding`; a mismatch is a usage error.
    func outputFormat() throws -> RenderOutputFormat {
        do {
            return try RenderOutputFormat(path: output, sampleRate: request.sampleRate, encoding: encoding)
        } catch {
            throw ValidationError(CommandLineMessage(error).description)
        }
    }

    func run() throws {
        let format = try outputFormat()
        // --strict writes nothing when words fall back. Into a file, a fallback met while rendering keeps the
        // file from appearing; into a pipe, a pass that only plans must find them all first, which reads the request
        // whole.
        var recording: Renderer.Recording = []
        if joinReport { recording.insert(.joins) }
        if picture != nil { recording.insert(.picture) }
        let (_, speechRequest, renderer, fallbacks) = try request.start(
            checkingFirst: output == nil || output == "-", recording: recording, dumpingPlan: plan)
        if [output, markers, picture].contains(where: { $0 != nil && $0 != "-" }) {
            // A file is unnamed until it is whole, but a hidden name may stand for a moment as it is put in place, or
            // all along where the file system refuses unnamed files: Ctrl-C, SIGTERM, a closed terminal or pipe
            // remove it; the process still ends by the signal.
            PartialPath.removeOnSignals(brokenPipe: true)
        }
        var markerFile: MarkerFile?
        if let markers {
            do throws(FileError) {
                markerFile = try MarkerFile(path: markers, bytesPerFrame: format.bytesPerFrame)
            } catch {
                throw RequestError.unwritableMarkers(path: markers, reason: error.reason)
            }
        }
        // Opened first, like the markers file, so an unwritable path fails before any rendering.
        var pictureFile: PendingFile?
        if let picture {
            do throws(FileError) { pictureFile = try PendingFile(path: picture) } catch {
                throw RequestError.unwritablePicture(path: picture, reason: error.reason)
            }
        }
        let writer = try AudioFileWriter(path: output ?? "-", format: format.file, sampleRate: format.sampleRate)
        // SIGKILL leaves a hidden name only where a file system refused unnamed files: there, and only there, the
        // hidden names of dead processes are removed as before, as listing a folder costs time in proportion to the
        // files in it. A folder is on one file system, so every render into it takes the same path. Where files are
        // unnamed, a render leaves a hidden name only if killed in the instant between linking its file and
        // renaming it into place; what older versions left stays, for `find DIR -name '.*.partial-*' -delete`.
        let hiddenNames = [
            writer.hasHiddenName ? output : nil, markerFile?.hasHiddenName == true ? markers : nil,
            pictureFile?.hasHiddenName == true ? picture : nil,
        ]
        PartialPath.removeAbandoned(beside: hiddenNames.compactMap { $0 })
        let chain = try ConvertedPull(renderer, sampleRate: format.sampleRate, blockFrames: 4_096)
        while !chain.isComplete {
            // After a fallback under --strict the rest is planned only to name every word that falls back.
            guard fallbacks.words.isEmpty else {
                try chain.pull { _ in }
                continue
            }
            try chain.pull { try writer.write($0) }
            if let markerFile {
                do throws(FileError) { try markerFile.add(chain.reachedMarkers) } catch {
                    throw RequestError.unwritableMarkers(path: markerFile.path, reason: error.reason)
                }
            }
        }
        if let error = fallbacks.strictError { throw error }
        request.warnOfReplacements(in: speechRequest)
        if let pictureFile, var svg = renderer.pictureSVG {
            do {
                try svg.withUTF8 { try pictureFile.write(UnsafeRawBufferPointer($0)) }
            } catch let error as FileError {
                throw RequestError.unwritablePicture(path: pictureFile.path, reason: error.reason)
            }
        }
        try writer.commit()
        if joinReport {
            // A diagnostic: the joins of the segments the render played.
            var standardError = StandardError()
            for line in renderer.joinReport { print(line, to: &standardError) }
        }
        if let markerFile {
            do throws(FileError) { try markerFile.commit() } catch {
                throw RequestError.unwritableMarkers(path: markerFile.path, reason: error.reason)
            }
        }
        if let pictureFile {
            do throws(FileError) { try pictureFile.commit() } catch {
                throw RequestError.unwritablePicture(path: pictureFile.path, reason: error.reason)
            }
        }
    }
}

extension OutputEncoding: ExpressibleByArgument {}
extension TakeChoice: ExpressibleByArgument {}

/// An output beside the audio that could not be written.
enum RequestError: Error, CustomStringConvertible {
    case unwritableMarkers(path: String, reason: String)
    case unwritablePicture(path: String, reason: String)

    var description: String {
        switch self {
        case .unwritableMarkers(let path, let reason): return "cannot write the markers file \(path): \(reason)"
        case .unwritablePicture(let path, let reason): return "cannot write the picture \(path): \(reason)"
        }
    }
}

extension RenderArguments {
    /// Reads `render`'s arguments in their everyday forms without ArgumentParser, whose reflection over the
    /// command costs more than rendering a screen reader's request.
    ///
    /// Returns `nil` for anything else (`--help`, `--option=value`, an unknown or repeated option, a missing
    /// or malformed value), which ArgumentParser then reads and reports as usual.
    static func parse(_ arguments: ArraySlice<String>) -> RenderArguments? {
        var parsed = RenderArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("-") && argument != "-" else {
                parsed.request.text.append(argument)
                continue
            }
            switch argument {
            case "--strict": parsed.request.strict = true
            case "--lenient": parsed.request.lenient = true
            case "--join-report": parsed.joinReport = true
            case "--plan": parsed.plan = true
            case "--takes":
                guard let value = remaining.popFirst(), let choice = TakeChoice(rawValue: value) else { return nil }
                parsed.request.takes = choice
            case "--bank", "--voice", "-o", "--output", "--file", "--markers", "--allow-audio", "--rate", "--pitch",
                "--sample-rate", "--encoding", "--picture":
                // A rate or pitch may start with a dash (-20%, -2st); any other value that does is an option.
                guard let value = remaining.popFirst(),
                    !value.hasPrefix("-") || value == "-" || argument == "--rate" || argument == "--pitch"
                else { return nil }
                switch argument {
                case "--bank": guard parsed.request.bank == nil else { return nil }; parsed.request.bank = value
                case "--voice": guard parsed.request.voice == nil else { return nil }; parsed.request.voice = value
                case "--rate": guard parsed.request.rate == nil else { return nil }; parsed.request.rate = value
                case "--pitch": guard parsed.request.pitch == nil else { return nil }; parsed.request.pitch = value
                case "--file": guard parsed.request.file == nil else { return nil }; parsed.request.file = value
                case "--allow-audio": parsed.request.audioDirectories.append(value)
                case "--sample-rate":
                    guard parsed.request.sampleRate == nil, let rate = Int(value) else { return nil }
                    parsed.request.sampleRate = rate
                case "--encoding":
                    guard parsed.encoding == nil, let encoding = OutputEncoding(rawValue: value) else { return nil }
                    parsed.encoding = encoding
                case "--markers": guard parsed.markers == nil else { return nil }; parsed.markers = value
                case "--picture": guard parsed.picture == nil else { return nil }; parsed.picture = value
                default: guard parsed.output == nil else { return nil }; parsed.output = value
                }
            default: return nil
            }
        }
        return parsed
    }
}
