import ArgumentParser
import CommandLineSupport
import AudioIO
import ConcatSynth
import Foundation
import Voicebank

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

        @Option(help: ArgumentHelp("The voice to speak with; the pack's first voice if not given.", valueName: "id"))
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

        @Option(help: "Which take of a phrase plays: rotate (the n-th time a phrase is spoken, its n-th take) or first.")
        var takes: TakeChoice = .rotate

        @Flag(help: "Report on standard error how hard the joins between clips step (see JoinClickMeasure).")
        var joinReport = false

        @Flag(help: "Fail, writing nothing, if any words need the fallback clip.")
        var strict = false

        @Flag(help: "Speak the text of malformed SSML, and ignore bad attribute values, with a warning.")
        var lenient = false

        @Argument(help: ArgumentHelp("The text or SSML to speak; - reads standard input.", valueName: "text"))
        var text: [String] = []

        func validate() throws {
            if file != nil && !text.isEmpty { throw ValidationError("Give the request as TEXT or as --file, not both.") }
            if output == nil && isatty(STDOUT_FILENO) == 1 {
                throw ValidationError("Missing -o FILE (.wav, .aiff, .caf, .flac, .raw), or -o - to write raw Float32 to a pipe.")
            }
            if file == nil && (text.isEmpty || text == ["-"]) && isatty(STDIN_FILENO) == 1 {
                throw ValidationError("Missing the text to speak: give TEXT, --file FILE, or pipe it to standard input.")
            }
            if let output, output != "-" {
                do { _ = try AudioFileFormat.renderOutput(forPath: output) } catch { throw ValidationError(error.description) }
            }
        }

        func run() throws {
            let request = try readRequest()
            let synthesizer = try Synthesizer(
                pack: bank.open(.readOnly), voice: voice, audioSandbox: AudioSandbox(allowing: audioDirectories),
                takeChoice: takes)
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
                try pull(renderer, markerLines: &markerLines) { frames in
                    FileHandle.standardOutput.write(Data(buffer: frames))
                    keep(frames)
                }
            }
            if joinReport {
                print("\(JoinClickMeasure(samples: rendered, joinFrames: plan.joinFrames))", to: &standardError)
            }
            if let markers {
                do {
                    try Data(markerLines.utf8).write(to: URL(fileURLWithPath: markers), options: .atomic)
                } catch {
                    throw RequestError.unwritableMarkers(path: markers, reason: error.localizedDescription)
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
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw RequestError.unreadable(path: file)
                }
                return try decode(data, from: file)
            }
            if text.isEmpty || text == ["-"] {
                return try decode(FileHandle.standardInput.readDataToEndOfFile(), from: "standard input")
            }
            return text.joined(separator: " ")
        }

        private func decode(_ data: Data, from source: String) throws -> String {
            guard let request = String(validating: data, as: UTF8.self) else { throw RequestError.notUTF8(source: source) }
            return request
        }
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
        case .unreadable(let path): return "cannot read the request file \(path); expected a readable UTF-8 text or SSML file"
        case .notUTF8(let source): return "the request in \(source) is not valid UTF-8; expected UTF-8 text or SSML"
        case .unwritableMarkers(let path, let reason): return "cannot write the markers file \(path): \(reason)"
        }
    }
}
