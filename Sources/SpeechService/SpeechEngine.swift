import ConcatSynth
import Planning
import Rendering
import SpeechCore
import Voicebank

/// What the module speaks with: the pack's voices and a rendering for each message.
///
/// The module calls `start` and everything on the rendering from its one rendering thread, and nothing else after
/// `INIT`, so an engine need not be thread-safe.
public protocol SpeechEngine: AnyObject {
    /// The voice pack's path, for the `INIT` line and for errors.
    var packPath: String { get }
    /// The voices, in the pack's order; at least one.
    var voices: [ModuleVoice] { get }
    /// Plans `request` and returns what renders it by pull.
    ///
    /// - Throws: `SpeechServiceError.speechFailed` naming the request and why.
    func start(_ request: ModuleRequest) throws(SpeechServiceError) -> any SpeechRendering
}

/// One message being rendered, by pull.
public protocol SpeechRendering: AnyObject {
    /// Frames per second of what `render` writes.
    var sampleRate: Int { get }
    /// A gain the module applies when it converts to 16-bit: 1 once the engine applies the volume itself.
    var outputGain: Float { get }
    /// Writes up to `buffer.count` frames and says which `<mark>`s they reached.
    ///
    /// - Throws: `SpeechServiceError.speechFailed` when a clip cannot be read.
    func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(SpeechServiceError) -> RenderedPull
    /// Ends the message: the next pull is complete with no frames.
    func cancel()
}

/// What one pull of a `SpeechRendering` produced.
public struct RenderedPull: Equatable, Sendable {
    /// A `<mark>` the pull reached, and where: the mark comes after `frameOffset` frames of this pull.
    public struct Mark: Equatable, Sendable {
        public var name: String
        public var frameOffset: Int

        public init(name: String, frameOffset: Int) {
            self.name = name
            self.frameOffset = frameOffset
        }
    }

    public var frameCount: Int
    public var isComplete: Bool
    /// In order; offsets never decrease and never pass `frameCount`.
    public var marks: [Mark]

    public init(frameCount: Int, isComplete: Bool, marks: [Mark]) {
        self.frameCount = frameCount
        self.isComplete = isComplete
        self.marks = marks
    }
}

/// The module's engine: a concat-synth voice pack, opened read-only once at `INIT`.
public final class ConcatSynthEngine: SpeechEngine {
    public let packPath: String
    public let voices: [ModuleVoice]
    private let pack: VoicePack
    /// One synthesizer per starting voice, made the first time a message starts with that voice.
    private var synthesizers: [String: Synthesizer] = [:]
    private var standardError = StandardErrorStream()

    /// Opens the pack at `packPath`.
    ///
    /// - Throws: `SpeechServiceError.packUnavailable` naming the pack and why (missing, not a pack, no voice).
    public init(packPath: String) throws(SpeechServiceError) {
        self.packPath = packPath
        do throws(VoicebankError) {
            pack = try VoicePack(path: packPath, access: .readOnly)
            voices = try pack.voices().map {
                ModuleVoice(
                    identifier: $0.identifier, name: $0.name, languages: $0.primaryLanguages + $0.supportedLanguages)
            }
        } catch {
            throw .packUnavailable(path: packPath, reason: error.description)
        }
        guard !voices.isEmpty else { throw .packUnavailable(path: packPath, reason: "the pack has no voice") }
    }

    public func start(_ request: ModuleRequest) throws(SpeechServiceError) -> any SpeechRendering {
        // ENGINE HANDOFF (issue 10): the one place where the values SET gave reach the engine.
        // Today's API takes the starting voice (below) and nothing else, so volume is applied by the module as an
        // output gain (`outputGain`), and `request.parameters.speed` and `.pitchSemitones` are not applied yet.
        // When the typed request lands: pass voice, speed, pitch and volume to the planner as values (never as
        // SSML), and return an output gain of 1.
        let parameters = request.parameters
        do throws(ConcatSynthError) {
            let synthesizer = try synthesizer(for: parameters.voice)
            let plan: RenderPlan
            do throws(ConcatSynthError) {
                plan = try synthesizer.plan(request.ssml, lenient: true)
            } catch .ssml(let error) {
                // Even lenient reading refuses a DOCTYPE or an unknown entity; speak the text instead of nothing.
                print("warning: \(error); speaking the message's text without its markup", to: &standardError)
                plan = try synthesizer.plan("<speak>\(ModuleRequest.escaped(Self.textContent(request.ssml)))</speak>")
            }
            for warning in plan.warnings { print("warning: \(warning)", to: &standardError) }
            let gain = Float(parameters.volumeDecibels == -.infinity ? 0 : pow(10, parameters.volumeDecibels / 20))
            return ConcatSynthRendering(
                renderer: synthesizer.renderer(for: plan), voice: parameters.voice, outputGain: gain)
        } catch {
            throw .speechFailed(request: request.ssml, reason: error.description)
        }
    }

    private func synthesizer(for voice: String) throws(ConcatSynthError) -> Synthesizer {
        if let synthesizer = synthesizers[voice] { return synthesizer }
        let synthesizer = try Synthesizer(pack: pack, voice: voice)
        synthesizers[voice] = synthesizer
        return synthesizer
    }

    /// The characters outside `<…>`: a last resort for markup even lenient reading refuses.
    static func textContent(_ markup: String) -> String {
        var text = ""
        var isInTag = false
        for character in markup {
            if character == "<" {
                isInTag = true
            } else if character == ">" {
                isInTag = false
                text.append(" ")
            } else if !isInTag {
                text.append(character)
            }
        }
        return text
    }
}

/// A plan being rendered by concat-synth's `Renderer`, its `<mark>` markers turned into marks with offsets.
final class ConcatSynthRendering: SpeechRendering {
    let sampleRate = 22_050
    let outputGain: Float
    private let renderer: Renderer
    /// The starting voice, for errors.
    private let voice: String

    init(renderer: Renderer, voice: String, outputGain: Float) {
        self.renderer = renderer
        self.voice = voice
        self.outputGain = outputGain
    }

    func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(SpeechServiceError) -> RenderedPull {
        let pull: Renderer.Pull
        do {
            pull = try renderer.render(into: buffer)
        } catch {
            throw .speechFailed(request: voice, reason: "\(error)")
        }
        let pullStart = renderer.framePosition - pull.frameCount
        var marks: [RenderedPull.Mark] = []
        // Marks complete as the timeline places them, so the reached ones come in frame order.
        for reached in renderer.reachedMarkers where reached.marker.kind == .mark {
            let marker = reached.marker
            marks.append(
                RenderedPull.Mark(
                    name: marker.text, frameOffset: min(pull.frameCount, max(0, marker.frame - pullStart))))
        }
        return RenderedPull(frameCount: pull.frameCount, isComplete: pull.isComplete, marks: marks)
    }

    // Called on the rendering thread only, between pulls: today's `Renderer.cancel()` is not safe from another one.
    func cancel() { renderer.cancel() }
}

/// Standard error, unbuffered, for the module's warnings (the server logs a module's standard error).
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _ = try? writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}
