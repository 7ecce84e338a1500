import SSML
import Voicebank

/// Speaks requests with one voice of a pack: SSML or text → events → tokens → match plan → PCM.
///
/// ```swift
/// let synthesizer = try Synthesizer(pack: VoicePack(path: "my.sqlite", access: .readOnly))
/// let plan = try synthesizer.plan("<speak>Hello <break time=\"1s\"/> world</speak>")
/// let renderer = synthesizer.renderer(for: plan)   // pull frames from it
/// ```
public final class Synthesizer {
    public let pack: VoicePack
    public let voice: Voice
    private let index: ClipIndex
    private let reader = SSMLReader(sampleRate: 22_050)

    /// - Parameter voice: a voice identifier; `nil` for the pack's first voice.
    /// - Throws: `ConcatSynthError.voicebank` when the pack has no such voice, or no voice at all.
    public init(pack: VoicePack, voice identifier: String? = nil) throws(ConcatSynthError) {
        self.pack = pack
        do throws(VoicebankError) {
            var chosen = identifier
            if chosen == nil { chosen = try pack.voices().first?.identifier }
            guard let chosen else { throw VoicebankError.noVoice(path: pack.path) }
            index = try pack.clipIndex(voice: chosen)
            voice = index.voice
        } catch {
            throw .voicebank(error)
        }
    }

    /// Reads the request (SSML, or plain text when it does not start with `<`) and plans it.
    ///
    /// - Parameter lenient: speak malformed SSML's text with a warning, and ignore bad attribute values.
    /// - Throws: `ConcatSynthError.ssml` (malformed input, refused DOCTYPE or entity, bad value: line and
    ///   column), `.noFallbackClip`, `.voicebank`.
    public func plan(_ request: String, lenient: Bool = false) throws(ConcatSynthError) -> RenderPlan {
        let document: SSMLDocument
        do throws(SSMLError) {
            document = try reader.read(request, lenient: lenient)
        } catch {
            throw .ssml(error)
        }
        do {
            return try Planner(voice: voice.identifier, lookup: index, fallback: index.fallbackTakes.first).plan(document)
        } catch let error as ConcatSynthError {
            throw error
        } catch let error as VoicebankError {
            throw .voicebank(error)
        } catch {
            preconditionFailure("a clip index throws only VoicebankError: \(error)")
        }
    }

    /// A renderer that pulls the plan's frames out of this voice's clips.
    public func renderer(for plan: RenderPlan) -> Renderer {
        Renderer(plan: plan, audio: index)
    }
}
