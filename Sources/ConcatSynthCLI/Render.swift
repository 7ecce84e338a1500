import ArgumentParser
import AudioIO
import CommandLineSupport
import ConcatSynth
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
                bank: bank.bank, voice: voice, output: output, file: file, markers: markers,
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
    }

    func run() throws {
        let request = try readRequest()
        let synthesizer = try Synthesizer(
            pack: VoicePack(path: VoicePackLocation.resolve(bank), access: .readOnly), voice: voice,
            audioSandbox: AudioSandbox(allowing: audioDirectories), takeChoice: takes)
        let plan = try synthesizer.plan(request, lenient: lenient)
        var standardError = StandardError()
        for warning in plan.warnings { print("warning: \(warning)", to: &standardError) }
        for fallback in plan.fallbacks {
            print("fallback: no clip for \"\(fallback.text)\" in voice \(plan.voice)", to: &standardError)
        }
        if strict && !plan.fallbacks.isEmpty {
            throw ConcatSynthError.fallbackInStrictMode(voice: plan.voice, words: plan.fallbacks.map(\.text))
        }
        let renderer = synthesizer.renderer(for: plan)
        var markerLines = ""
        var rendered: [Float] = []
        let keep = { (frames: UnsafeBufferPointer<Float>) in if joinReport { rendered += frames } }
        if let output, output != "-" {
            let writer = try AudioFileWriter(
                path: output, format: AudioFileFormat.renderOutput(forPath: output),
                sampleRate: RenderFormat.sampleRate)
            try pull(renderer, markerLines: &markerLines) { frames throws in
                try writer.write(frames)
                keep(frames)
            }
            try writer.commit()
        } else {
            try pull(renderer, markerLines: &markerLines) { frames throws in
                try FileDescriptor.standardOutput.write(UnsafeRawBufferPointer(frames))
                keep(frames)
            }
        }
        if joinReport {
            print("\(JoinClickMeasure(samples: rendered, joinFrames: plan.joinFrames))", to: &standardError)
        }
        if let markers {
            do {
                try markerLines.withUTF8 { try writeFileWhole(atPath: markers, UnsafeRawBufferPointer($0)) }
            } catch let error as FileError {
                throw RequestError.unwritableMarkers(path: markers, reason: error.reason)
            }
        }
    }

    /// Pulls the whole request in blocks, hands each block to `consume` and collects the markers it reached.
    private func pull(
        _ renderer: Renderer, markerLines: inout String, _ consume: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        var block = [Float](repeating: 0, count: 4_096)
        try block.withUnsafeMutableBufferPointer { buffer in
            while true {
                let pulled = try renderer.render(into: buffer)
                try consume(UnsafeBufferPointer(rebasing: buffer[..<pulled.frameCount]))
                if markers != nil {
                    for marker in renderer.markers[pulled.markers] { markerLines += marker.jsonLine + "\n" }
                }
                if pulled.isComplete { break }
            }
        }
    }

    private func readRequest() throws -> String {
        if let file {
            guard let bytes = try? readFile(atPath: file) else { throw RequestError.unreadable(path: file) }
            return try decode(bytes, from: file)
        }
        if text.isEmpty || text == ["-"] {
            return try decode(FileDescriptor.standardInput.readToEnd(), from: "standard input")
        }
        return text.joined(separator: " ")
    }

    private func decode(_ bytes: [UInt8], from source: String) throws -> String {
        guard let request = String(validating: bytes, as: UTF8.self) else { throw RequestError.notUTF8(source: source) }
        return request
    }
}

extension TakeChoice: ExpressibleByArgument {}

/// A request that could not be read.
enum RequestError: Error, CustomStringConvertible {
    case unreadable(path: String)
    case notUTF8(source: String)
    case unwritableMarkers(path: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path):
            return "cannot read the request file \(path); expected a readable UTF-8 text or SSML file"
        case .notUTF8(let source): return "the request in \(source) is not valid UTF-8; expected UTF-8 text or SSML"
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
            case "--bank", "--voice", "-o", "--output", "--file", "--markers", "--allow-audio":
                guard let value = remaining.popFirst(), !value.hasPrefix("-") || value == "-" else { return nil }
                switch argument {
                case "--bank": guard parsed.bank == nil else { return nil }; parsed.bank = value
                case "--voice": guard parsed.voice == nil else { return nil }; parsed.voice = value
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
