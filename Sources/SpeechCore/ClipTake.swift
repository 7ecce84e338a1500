/// One take of a phrase: a clip the renderer can play.
public struct ClipTake: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var clipID: Int
    /// Render-ready frames at 22050 Hz that play.
    public var frameCount: Int
    /// Where in the clip's render-ready samples they start (past the trimmed silence).
    public var firstFrame: Int
    /// The gain in dB that plays the clip at its voice's loudness target; 0 without one.
    public var levelDecibels: Double

    public init(clipID: Int, frameCount: Int, firstFrame: Int = 0, levelDecibels: Double = 0) {
        self.clipID = clipID
        self.frameCount = frameCount
        self.firstFrame = firstFrame
        self.levelDecibels = levelDecibels
    }

    public var description: String { "#\(clipID)" }
}
