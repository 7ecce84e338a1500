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
    /// The voice that speaks where the request names none.
    public let voice: Voice
    private let planner: Planner<ClipIndex>
    private let reader = SSMLReader(sampleRate: 22_050)

    /// - Parameter voice: the starting voice's identifier; `nil` for the pack's first voice. SSML's `<voice>`,
    ///   `<lang>` and `xml:lang` switch to other voices of the pack.
    /// - Throws: `ConcatSynthError.voicebank` when the pack has no such voice, or no voice at all.
    ///   `audioSandbox` says which files `<audio>` may play (none by default).
    ///   `takeChoice` says which take of a phrase plays.
    public convenience init(
        pack: VoicePack, voice identifier: String? = nil, audioSandbox: AudioSandbox = .closed,
        takeChoice: TakeChoice = .rotate
    ) throws(ConcatSynthError) {
        try self.init(
            pack: pack, voice: identifier, audioSandbox: audioSandbox, takeChoice: takeChoice, standInFallback: nil)
    }

    /// - Parameter standInFallback: planned for the words of a voice with no fallback clip, instead of the error;
    ///   for analysing a pack (coverage), never for rendering.
    init(
        pack: VoicePack, voice identifier: String?, audioSandbox: AudioSandbox, takeChoice: TakeChoice,
        standInFallback: ClipTake?
    ) throws(ConcatSynthError) {
        self.pack = pack
        do throws(VoicebankError) {
            let indexes = try pack.clipIndexes()
            guard let first = indexes.first else { throw VoicebankError.noVoice(path: pack.path) }
            let starting = identifier ?? first.voice.identifier
            guard let startingIndex = indexes.first(where: { $0.voice.identifier == starting }) else {
                throw VoicebankError.unknownVoice(
                    identifier: starting, available: indexes.map(\.voice.identifier), path: pack.path)
            }
            let plannerVoices = indexes.map { index in
                let fallbacks = index.fallbackTakes.isEmpty ? standInFallback.map { [$0] } ?? [] : index.fallbackTakes
                return PlannerVoice(voice: index.voice, lookup: index, fallbacks: fallbacks)
            }
            planner = Planner(
                voices: plannerVoices, startingVoice: starting, audioSandbox: audioSandbox, takeChoice: takeChoice)
            voice = startingIndex.voice
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
            return try pack.reading { try planner.plan(document) }
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
        // Clip ids are the pack's, so any voice's index reads any voice's clips.
        Renderer(plan: plan, audio: planner.voices[planner.startingVoice].lookup)
    }
}
