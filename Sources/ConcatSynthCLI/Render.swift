import ArgumentParser
import AudioIO
import CommandLineSupport
import ConcatSynth
import Planning
import Rendering
import SSML
import SpeechCore
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ConcatSynthCommand {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render SSML or text to 22050 Hz mono Float32 audio.",
            discussion: """
                The request is the TEXT arguments joined by spaces, the contents of --file, or standard input \
                (- or no TEXT). Input that starts with < is SSML; anything else is plain text. Words no clip \
                covers are spoken as the voice's fallback clip and reported on standard error.
                Examples:
                  concat-synth render -o hello.wav "Hello, nice to meet you"
                  concat-synth render --file request.ssml -o - | aplay -f FLOAT_LE -r 22050 -c 1
                """)

        @OptionGroup var bank: BankOptions

        @Option(
            help: ArgumentHelp(
                "The voice to start with (the pack's first if not given); SSML's <voice> and xml:lang switch voices.",
                valueName: "id"))
        var voice: String?

        @Option(
            name: [.customShort("o"), .long],
            help: ArgumentHelp(
                "The output file: .wav, .aiff, .caf (Float32), .flac (24-bit) or .raw; - for raw Float32 on standard output (the default when it is not a terminal).",
                valueName: "file"))
        var output: String?

        @Option(help: ArgumentHelp("Read the request from this file.", valueName: "file"), completion: .file())
        var file: String?

        @Option(
            help: ArgumentHelp(
                "Write a JSON line for each phrase, sentence, paragraph and <mark>: kind, text, frame, frames, byteOffset, textRange (UTF-16).",
                valueName: "file"))
        var markers: String?

        @Option(
            name: .customLong("allow-audio"),
            help: ArgumentHelp(
                "A directory <audio src> may play files from (repeatable); without it, <audio> speaks its fallback content.",
                valueName: "dir"))
        var audioDirectories: [String] = []

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Speak faster or slower, keeping the pitch: a factor (2), a percentage (200%), or any SSML rate (+20%, fast). The same as wrapping the request in <prosody rate>; 1 is the voice's normal speed.",
                valueName: "rate"))
        var rate: String?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Speak higher or lower, keeping the duration: semitones (+2st), a percentage (-10%), or x-low … x-high. The same as wrapping the request in <prosody pitch>.",
                valueName: "pitch"))
        var pitch: String?

        @Option(
            help: "Which take of a phrase plays: rotate (the n-th time a phrase is spoken, its n-th take) or first.")
        var takes: TakeChoice = .rotate

        @Flag(
            help:
                "Report on standard error the largest sample step at a join between clips, against the largest inside the audio (a ratio of 1 or less is a clean join)."
        )
        var joinReport = false

        @Flag(help: "Fail, writing nothing, if any words need the fallback clip.")
        var strict = false

        @Flag(help: "Speak the text of malformed SSML, and ignore bad attribute values, with a warning.")
        var lenient = false

        @Argument(help: ArgumentHelp("The text or SSML to speak; - reads standard input.", valueName: "text"))
        var text: [String] = []

        /// The arguments as plain values, the form the fast path (`RenderArguments.parse`) also makes.
        var arguments: RenderArguments {
            RenderArguments(
                bank: bank.bank, voice: voice, rate: rate, pitch: pitch, output: output, file: file, markers: markers,
                audioDirectories: audioDirectories, takes: takes, joinReport: joinReport, strict: strict,
                lenient: lenient,
                text: text)
        }

        func validate() throws { try arguments.validate() }

        func run() throws { try arguments.run() }
    }
}

/// What `concat-synth render` was asked to do, as plain values: ArgumentParser's `Render` and the fast path both
/// make one.
struct RenderArguments {
    var bank: String?
    var voice: String?
    var rate: String?
    var pitch: String?
    var output: String?
    var file: String?
    var markers: String?
    var audioDirectories: [String] = []
    var takes = TakeChoice.rotate
    var joinReport = false
    var strict = false
    var lenient = false
    var text: [String] = []

    func validate() throws {
        if file != nil && !text.isEmpty { throw ValidationError("Give the request as TEXT or as --file, not both.") }
        if output == nil && FileDescriptor.standardOutput.isTerminal {
            throw ValidationError(
                "Missing -o FILE (.wav, .aiff, .caf, .flac, .raw), or -o - to write raw Float32 to a pipe.")
        }
        if file == nil && (text.isEmpty || text == ["-"]) && FileDescriptor.standardInput.isTerminal {
            throw ValidationError("Missing the text to speak: give TEXT, --file FILE, or pipe it to standard input.")
        }
        if let output, output != "-" {
            do { _ = try AudioFileFormat.renderOutput(forPath: output) } catch {
                throw ValidationError(error.description)
            }
        }
        _ = try prosody()
    }

    /// `--rate` and `--pitch` as the request's prosody.
    func prosody() throws -> Prosody {
        var prosody = Prosody.normal
        if let rate {
            guard let value = ProsodyValue.rate(rate) else {
                throw ValidationError("invalid --rate \"\(rate)\": expected \(ProsodyValue.acceptedRate)")
            }
            prosody.rate = value
        }
        if let pitch {
            guard let value = ProsodyValue.pitchSemitones(pitch) else {
                throw ValidationError("invalid --pitch \"\(pitch)\": expected \(ProsodyValue.acceptedPitch)")
            }
            prosody.pitchSemitones = value
        }
        return prosody
    }

    func run() throws {
        var standardError = StandardError()
        let request = SpeechRequest(
            try readRequest(warnings: &standardError), voice: voice, prosody: try prosody(), isLenient: lenient)
        let synthesizer = try Synthesizer(
            pack: VoicePack(path: VoicePackLocation.resolve(bank), access: .readOnly), voice: voice,
            audioSandbox: AudioSandbox(allowing: audioDirectories), takeChoice: takes)
        // --strict writes nothing when words fall back: a pass that only plans finds them all before any output.
        if strict {
            let stream = try synthesizer.stream(request)
            var fallbacks: [String] = []
            while let segment = try stream.nextSegment() {
                if case .fallback = segment.kind { fallbacks.append(segment.text) }
            }
            if !fallbacks.isEmpty {
                throw ConcatSynthError.fallbackInStrictMode(voice: stream.voice, words: fallbacks)
            }
        }
        let renderer = try synthesizer.renderer(for: request) { print($0, to: &standardError) }
        var markerFile: PartialFile?
        if let markers {
            do throws(FileError) { markerFile = try PartialFile(path: markers) } catch {
                throw RequestError.unwritableMarkers(path: markers, reason: error.reason)
            }
        }
        var markerOrder = MarkerSequence()
        var rendered: [Float] = []
        let consume: (UnsafeBufferPointer<Float>) throws -> Void
        var writer: AudioFileWriter?
        if let output, output != "-" {
            let file = try AudioFileWriter(
                path: output, format: AudioFileFormat.renderOutput(forPath: output),
                sampleRate: RenderFormat.sampleRate)
            writer = file
            consume = { try file.write($0) }
        } else {
            consume = { try FileDescriptor.standardOutput.write(UnsafeRawBufferPointer($0)) }
        }
        var block = [Float](repeating: 0, count: 4_096)
        try block.withUnsafeMutableBufferPointer { buffer in
            while true {
                let pulled = try renderer.render(into: buffer)
                let frames = UnsafeBufferPointer(rebasing: buffer[..<pulled.frameCount])
                try consume(frames)
                if joinReport { rendered += frames }
                if let markerFile {
                    for marker in renderer.reachedMarkers { markerOrder.add(marker) }
                    var lines = ""
                    for marker in markerOrder.takeReady() { lines += marker.jsonLine + "\n" }
                    try Self.write(lines, to: markerFile)
                }
                if pulled.isComplete { break }
            }
        }
        try writer?.commit()
        if joinReport {
            // A diagnostic: the joins come from the request planned once more, whole.
            let joins = try synthesizer.plan(request).joinFrames
            print("\(JoinClickMeasure(samples: rendered, joinFrames: joins))", to: &standardError)
        }
        if let markerFile {
            do throws(FileError) { try markerFile.commit() } catch {
                throw RequestError.unwritableMarkers(path: markerFile.path, reason: error.reason)
            }
        }
    }

    /// Appends marker lines to the markers file.
    private static func write(_ lines: String, to file: PartialFile) throws {
        var lines = lines
        do {
            try lines.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
        } catch let error as FileError {
            throw RequestError.unwritableMarkers(path: file.path, reason: error.reason)
        }
    }

    /// The request's text: the arguments, or a file's or standard input's bytes in the encoding they announce.
    private func readRequest(warnings: inout StandardError) throws -> String {
        if let file {
            guard let bytes = try? readFile(atPath: file) else { throw RequestError.unreadable(path: file) }
            return try decode(bytes, from: file, warnings: &warnings)
        }
        if text.isEmpty || text == ["-"] {
            return try decode(FileDescriptor.standardInput.readToEnd(), from: "standard input", warnings: &warnings)
        }
        return text.joined(separator: " ")
    }

    private func decode(_ bytes: [UInt8], from source: String, warnings: inout StandardError) throws -> String {
        let request: DecodedRequest
        do throws(RequestDecodingError) { request = try DecodedRequest(bytes, isLenient: lenient) } catch {
            throw RequestError.undecodable(source: source, error)
        }
        if let first = request.firstReplacedOffset {
            let count = request.replacedCount
            print(
                "warning: the request in \(source) holds \(count) byte sequence\(count == 1 ? "" : "s") that \(count == 1 ? "is" : "are") not valid \(request.encoding), the first at byte offset \(first); each is spoken as U+FFFD",
                to: &warnings)
        }
        return request.text
    }
}

extension TakeChoice: ExpressibleByArgument {}

/// A request that could not be read.
enum RequestError: Error, CustomStringConvertible {
    case unreadable(path: String)
    case undecodable(source: String, RequestDecodingError)
    case unwritableMarkers(path: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path):
            return "cannot read the request file \(path); expected a readable text or SSML file"
        case .undecodable(let source, let error): return "the request in \(source) \(error)"
        case .unwritableMarkers(let path, let reason): return "cannot write the markers file \(path): \(reason)"
        }
    }
}

extension RenderArguments {
    /// Reads `render`'s arguments in their everyday forms without ArgumentParser, whose reflection over the
    /// command costs more than rendering a screen reader's request (issue 6: ~11 M of ~19 M instructions).
    ///
    /// Returns `nil` for anything else (`--help`, `--option=value`, an unknown or repeated option, a missing
    /// value), which ArgumentParser then reads and reports as usual.
    static func parse(_ arguments: ArraySlice<String>) -> RenderArguments? {
        var parsed = RenderArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("-") && argument != "-" else {
                parsed.text.append(argument)
                continue
            }
            switch argument {
            case "--strict": parsed.strict = true
            case "--lenient": parsed.lenient = true
            case "--join-report": parsed.joinReport = true
            case "--takes":
                guard let value = remaining.popFirst(), let choice = TakeChoice(rawValue: value) else { return nil }
                parsed.takes = choice
            case "--bank", "--voice", "-o", "--output", "--file", "--markers", "--allow-audio", "--rate", "--pitch":
                // A rate or pitch may start with a dash (-20%, -2st); any other value that does is an option.
                guard let value = remaining.popFirst(),
                    !value.hasPrefix("-") || value == "-" || argument == "--rate" || argument == "--pitch"
                else { return nil }
                switch argument {
                case "--bank": guard parsed.bank == nil else { return nil }; parsed.bank = value
                case "--voice": guard parsed.voice == nil else { return nil }; parsed.voice = value
                case "--rate": guard parsed.rate == nil else { return nil }; parsed.rate = value
                case "--pitch": guard parsed.pitch == nil else { return nil }; parsed.pitch = value
                case "--file": guard parsed.file == nil else { return nil }; parsed.file = value
                case "--markers": guard parsed.markers == nil else { return nil }; parsed.markers = value
                case "--allow-audio": parsed.audioDirectories.append(value)
                default: guard parsed.output == nil else { return nil }; parsed.output = value
                }
            default: return nil
            }
        }
        return parsed
    }
}
