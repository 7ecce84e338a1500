// SPDX-License-Identifier: GPL-3.0-or-later
/// One take of a phrase: a clip the renderer can play, and what selection knows of it.
public struct ClipTake: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var clipID: Int
    /// Render-ready frames at 22050 Hz that play.
    public var frameCount: Int
    /// Where in the clip's render-ready samples they start (past the trimmed silence).
    public var firstFrame: Int
    /// The gain in dB that plays the clip at its voice's loudness target; 0 without one.
    public var levelDecibels: Double
    /// The place in a sentence it was recorded for; `nil` when untagged.
    public var position: TakePosition?
    /// How its pitch moves at its end, measured; `nil` when it has no voiced end or was not measured.
    public var contour: PitchContour?
    /// Its edges as a join compares them; `nil` when not measured.
    public var edges: TakeEdges?
    /// Where it was cut from a longer recording; `nil` for a take recorded on its own.
    public var cut: RecordingCut?

    public init(
        clipID: Int, frameCount: Int, firstFrame: Int = 0, levelDecibels: Double = 0, position: TakePosition? = nil,
        contour: PitchContour? = nil, edges: TakeEdges? = nil, cut: RecordingCut? = nil
    ) {
        self.clipID = clipID
        self.frameCount = frameCount
        self.firstFrame = firstFrame
        self.levelDecibels = levelDecibels
        self.position = position
        self.contour = contour
        self.edges = edges
        self.cut = cut
    }

    /// Two takes are the same take when they are the same clip; hashing that alone keeps the planner's and the
    /// index's sets of takes from hashing their features.
    public func hash(into hasher: inout Hasher) { hasher.combine(clipID) }

    /// `#12`, with its tag where it has one: `#12 final`.
    public var description: String { position.map { "#\(clipID) \($0.rawValue)" } ?? "#\(clipID)" }
}
