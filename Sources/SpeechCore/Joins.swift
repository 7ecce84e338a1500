// SPDX-License-Identifier: GPL-3.0-or-later
/// How a voice's clips meet in a render, in frames at 22050 Hz.
public struct Joins: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Each clip fades in and out over this many frames (where it does not crossfade), so no join steps.
    public var edgeFadeFrames: Int
    /// Adjacent clips overlap by this many frames, one fading out as the next fades in; 0 for none. Each join
    /// between two clips is this much shorter; a silence between clips is never touched.
    public var crossfadeFrames: Int

    public init(edgeFadeFrames: Int, crossfadeFrames: Int) {
        self.edgeFadeFrames = edgeFadeFrames
        self.crossfadeFrames = crossfadeFrames
    }

    /// 2 ms edge fades, no crossfade: output lengths are the clips' lengths end to end.
    public static let standard = Joins(edgeFadeFrames: 44, crossfadeFrames: 0)

    /// Longest fade or crossfade a voice can ask for: half a second.
    public static let maximumFrames = 11_025

    public var description: String {
        "edge fades of \(RenderFormat.milliseconds(edgeFadeFrames)) ms (\(edgeFadeFrames) frames), "
            + (crossfadeFrames == 0
                ? "no crossfade"
                : "crossfade of \(RenderFormat.milliseconds(crossfadeFrames)) ms (\(crossfadeFrames) frames)")
    }
}
