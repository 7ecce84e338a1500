// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SpeechCore

/// A request's whole plan, collected without rendering: each clip, fallback and silence placed in the output, its
/// markers and warnings. It prints one line a segment and compares equal to the same plan, so it is what a test
/// compares.
public struct SpeechPlan: Equatable, CustomStringConvertible {
    package let renderPlan: RenderPlan

    package init(_ renderPlan: RenderPlan) { self.renderPlan = renderPlan }

    /// The output's length in frames at 22050 Hz.
    public var frameCount: Int { renderPlan.frameCount }
    /// The markers, in frame order.
    public var markers: [Marker] { renderPlan.markers }
    /// What planning warned of, in order.
    public var warnings: [String] { renderPlan.warnings }
    /// The words of each run that fell back (no clip covers them), in order.
    public var fallbackWords: [String] { renderPlan.fallbacks.compactMap(\.fallback?.words) }
    /// The voice the plan starts in.
    public var voice: String { renderPlan.voice }

    public var description: String { renderPlan.description }
}
