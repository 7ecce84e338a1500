// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// A clip's metadata: everything but its audio.
public struct Clip: Equatable, Sendable, CustomStringConvertible {
    public var id: Int
    /// The identifier of the voice it belongs to.
    public var voice: String
    /// The phrase as given (`--text` or the file name).
    public var phrase: String
    /// The phrase's tokens joined by spaces: what the matcher compares.
    public var phraseKey: String
    public var isFallback: Bool
    /// Render-ready length in frames at 22050 Hz.
    public var frameCount: Int
    /// The file name it was imported from, without folders.
    public var sourceName: String
    public var source: SourceFormat
    public var originalEncoding: SampleEncoding
    /// The place in a sentence it was tagged for; `nil` when untagged.
    public var position: TakePosition?
    /// How its pitch moves at its end, measured at import; `nil` when it has no voiced end or was not measured.
    public var contour: PitchContour?
    /// Where it was cut from a longer recording (`voicebank import --labels`); `nil` for a file of its own.
    public var cut: RecordingCut?

    public var durationSeconds: Double { Double(frameCount) / Double(RenderFormat.sampleRate) }

    public var description: String {
        "#\(id) \(voice) \"\(phrase)\"\(isFallback ? " (fallback)" : "") \(frameCount) frames from \(sourceName)"
    }
}
