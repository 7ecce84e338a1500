// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore

/// What the module speaks with: the voices of its packs and a rendering for each message.
///
/// The module calls `start` and `render` from one thread at a time, and nothing else after `INIT`, so an engine
/// need not be thread-safe; only a rendering's `cancellation` is raised from another thread.
public protocol SpeechEngine: AnyObject {
    /// The paths of the voice packs it speaks with, for the `INIT` line.
    var packPaths: [String] { get }
    /// The voices, in the packs' order; at least one.
    var voices: [ModuleVoice] { get }
    /// Plans `request` and returns what renders it by pull.
    ///
    /// - Throws: `SpeechServiceError.speechFailed` naming the request and why.
    func start(_ request: ModuleRequest) throws(SpeechServiceError) -> any SpeechRendering
    /// Short messages that go through every stage a message does (planning, clip reads, the stretcher), one per
    /// voice (the first 16), to be rendered and thrown away at start-up, so that the first real message finds the
    /// code paged in, each voice's statements prepared and the rendering thread's memory made. Report nothing; a
    /// voice whose message cannot be planned has none.
    func warmUpRenderings() -> [any SpeechRendering]
}

/// One message being rendered, by pull.
public protocol SpeechRendering: AnyObject {
    /// Frames per second of what `render` writes.
    var sampleRate: Int { get }
    /// Writes up to `buffer.count` frames and says which `<mark>`s they reached.
    ///
    /// - Throws: `SpeechServiceError.speechFailed` when a clip cannot be read.
    func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(SpeechServiceError) -> RenderedPull
    /// Raised from any thread to end the message: the next pull is complete with no frames.
    var cancellation: Cancellation { get }
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

/// The module's engine: concat-synth voice packs, opened read-only once at `INIT`: the one its configuration names,
/// or the default and every installed pack (`VoiceCatalog`).
public final class ConcatSynthEngine: SpeechEngine {
    public let packPaths: [String]
    public let voices: [ModuleVoice]
    /// The synthesizer of each voice's pack, by the voice's identifier.
    private let synthesizers: [String: Synthesizer]
    /// Each voice's normal rate by identifier: the SSML rate at which its clips play as recorded.
    private let normalRates: [String: Double]
    private var standardError = StandardErrorStream()

    /// Opens the pack at `bank`; with none, the default and every installed pack, those that cannot be opened left
    /// out with a warning on standard error (which speech-dispatcher logs).
    ///
    /// - Parameter systemPacks: the installation's packs folder, for a module installed outside its prefix
    ///   (`VoiceCatalog(systemPacks:)`).
    /// - Throws: `SpeechServiceError.packUnavailable` naming the pack and why (missing, not a pack, no voice).
    public init(bank: String?, systemPacks: String? = nil) throws(SpeechServiceError) {
        let pools: SynthesizerPools
        var synthesizers: [String: Synthesizer] = [:]
        do throws(ConcatSynthError) {
            pools = try SynthesizerPools(VoiceCatalog(bank: bank, systemPacks: systemPacks))
            // The module speaks from one thread: one synthesizer a pack, kept (the one the pools opened).
            var byPack: [String: Synthesizer] = [:]
            for voice in pools.voices {
                if byPack[voice.pack.path] == nil { byPack[voice.pack.path] = try voice.pool.take() }
                synthesizers[voice.settings.identifier] = byPack[voice.pack.path]
            }
        } catch {
            throw .packUnavailable(
                path: bank ?? VoiceCatalog.defaultPack(systemPacks: systemPacks), reason: error.description)
        }
        for warning in pools.warnings { print("warning: \(warning)", to: &standardError) }
        packPaths = pools.packPaths
        self.synthesizers = synthesizers
        let settings = pools.voices.map(\.settings)
        voices = settings.map {
            ModuleVoice(
                identifier: $0.identifier, name: $0.name, languages: $0.primaryLanguages + $0.supportedLanguages)
        }
        // The pools speak each identifier once.
        normalRates = Dictionary(uniqueKeysWithValues: settings.map { ($0.identifier, $0.normalRate) })
    }

    public func start(_ request: ModuleRequest) throws(SpeechServiceError) -> any SpeechRendering {
        // ENGINE HANDOFF: the one place where the values SET gave reach the engine, as the request's prosody
        // (never as SSML, so the server's own markup nests inside it). `speed` is a factor of the voice's normal
        // speed; Prosody's rate is SSML's, which the voice's normal rate plays as recorded.
        let parameters = request.parameters
        let prosody = Prosody(
            rate: parameters.speed * normalRates[parameters.voice, default: 1],
            pitchSemitones: parameters.pitchSemitones, volumeDecibels: parameters.volumeDecibels)
        // Planning reports as the renderer pulls, on whichever thread pulls; the server logs standard error.
        let report: (PlanNote) -> Void = { note in
            var standardError = StandardErrorStream()
            print(note, to: &standardError)
        }
        var speech = SpeechRequest(
            request.content, voice: parameters.voice, prosody: prosody, isLenient: true,
            isSpelling: request.isSpelling)
        do throws(ConcatSynthError) {
            let renderer: Renderer
            do throws(ConcatSynthError) {
                renderer = try synthesizer(parameters.voice).renderer(for: speech, reporting: report)
            } catch .ssml(let message, _, _) {
                // Even lenient reading refuses a DOCTYPE or an unknown entity; speak the text instead of nothing.
                print("warning: \(message); speaking the message's text without its markup", to: &standardError)
                speech.content = .text(SpeechRequest.textOfRefusedMarkup(request.text))
                renderer = try synthesizer(parameters.voice).renderer(for: speech, reporting: report)
            }
            return ConcatSynthRendering(renderer: renderer, voice: parameters.voice)
        } catch {
            throw .speechFailed(request: request.text, reason: error.description)
        }
    }

    public func warmUpRenderings() -> [any SpeechRendering] {
        voices.prefix(16).compactMap { voice in
            let request = SpeechRequest(
                .text(voice.name), voice: voice.identifier,
                prosody: Prosody(rate: 2 * normalRates[voice.identifier, default: 1]), isLenient: true)
            guard let renderer = try? synthesizer(voice.identifier).renderer(for: request) else { return nil }
            return ConcatSynthRendering(renderer: renderer, voice: voice.identifier)
        }
    }

    /// The synthesizer of `voice`'s pack; the first voice's for an identifier that is not one of `voices`, which
    /// then fails as an unknown voice of that pack.
    private func synthesizer(_ voice: String) -> Synthesizer {
        synthesizers[voice] ?? synthesizers[voices[0].identifier]!
    }
}

/// A request being planned and rendered by concat-synth's `Renderer`, its `<mark>` markers turned into marks
/// with offsets.
final class ConcatSynthRendering: SpeechRendering {
    let sampleRate = RenderFormat.sampleRate
    private let renderer: Renderer
    /// The starting voice, for errors.
    private let voice: String

    init(renderer: Renderer, voice: String) {
        self.renderer = renderer
        self.voice = voice
    }

    var cancellation: Cancellation { renderer.cancellation }

    func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(SpeechServiceError) -> RenderedPull {
        let pull: Renderer.Pull
        do {
            pull = try renderer.render(into: buffer)
        } catch {
            throw .speechFailed(request: voice, reason: "\(error)")
        }
        let pullStart = renderer.framePosition - pull.frameCount
        var marks: [RenderedPull.Mark] = []
        // Marks complete where the timeline places them, so the reached ones come in frame order.
        for reached in renderer.reachedMarkers where reached.marker.kind == .mark {
            let marker = reached.marker
            marks.append(
                RenderedPull.Mark(
                    name: marker.text, frameOffset: min(pull.frameCount, max(0, marker.frame - pullStart))))
        }
        return RenderedPull(frameCount: pull.frameCount, isComplete: pull.isComplete, marks: marks)
    }
}

/// Standard error, unbuffered, for the module's warnings (the server logs a module's standard error).
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _ = try? writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}
