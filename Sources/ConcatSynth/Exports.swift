import Planning
import Rendering
import SSML
import SpeechCore

// The values a caller of the facade names, so that `import ConcatSynth` is all a program needs: the stages' own
// modules stay the facade's business.

/// The request's own rate, pitch and volume, as if it were wrapped in `<prosody>`.
public typealias Prosody = SpeechCore.Prosody
/// A voice of the pack: identifier, name, languages, normal rate.
public typealias VoiceSettings = SpeechCore.VoiceSettings
/// A phrase, sentence, paragraph or `<mark>` marker, with its frames and the UTF-16 range of the request it speaks.
public typealias Marker = SpeechCore.Marker
/// The format of the audio a renderer writes: 22050 Hz mono Float32.
public typealias RenderFormat = SpeechCore.RenderFormat
/// Renders a request by pull, like an Audio Unit render block.
public typealias Renderer = Rendering.Renderer
/// The flag that stops a render, from any thread (`Renderer.cancellation`).
public typealias Cancellation = SpeechCore.Cancellation
/// How a voice speaks the words no clip covers: its fallback clip, its letter clips, or the fallback voice.
public typealias FallbackMode = SpeechCore.FallbackMode
/// The stretched clips a synthesizer keeps between requests.
public typealias StretchCache = Rendering.StretchCache
/// A request's whole plan: its segments placed in the output, its markers and warnings.
public typealias RenderPlan = Planning.RenderPlan
/// Which files `<audio>` may play.
public typealias AudioSandbox = Planning.AudioSandbox
/// Which take of a phrase plays.
public typealias TakeChoice = Planning.TakeChoice
/// Plain text read a piece at a time, for `SpeechRequest.Content.textStream`.
public typealias PlainTextStream = SSML.PlainTextStream
