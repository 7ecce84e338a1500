// SPDX-License-Identifier: GPL-3.0-or-later
/// What can go wrong planning a request; each case names the input.
public enum PlanningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Words no clip covers, in a voice without a fallback clip.
    case noFallbackClip(voice: String, words: String)
    /// An allowed audio directory that is not an existing directory.
    case audioDirectory(String)

    public var description: String {
        switch self {
        case .noFallbackClip(let voice, let words):
            return
                "voice \(voice) has no clip for \"\(words)\" and no fallback clip; expected a pack whose voice has one (voicebank import adds one)"
        case .audioDirectory(let path):
            return
                "cannot allow audio from \(path): it is not an existing directory; expected a folder of audio files"
        }
    }
}
