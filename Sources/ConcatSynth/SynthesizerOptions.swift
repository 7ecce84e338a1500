// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Planning

/// Which take of a phrase plays, when a voice has several.
public enum TakeChoice: String, Sendable, CaseIterable {
    /// The takes that fit their places best and join most smoothly, chosen a sentence at a time.
    case best
    /// The n-th time a phrase is spoken in a request it plays take n (round the takes, first imported first), so
    /// "no, no, no" is three takes; the same request always plays the same takes.
    case rotate
    /// Always the first take imported.
    case first

    var planning: Planning.TakeChoice { Planning.TakeChoice(rawValue: rawValue)! }
}

/// Which files `<audio src>` may play: none (`closed`), or those inside folders the caller allows.
public struct AudioSandbox: Sendable {
    package let planning: Planning.AudioSandbox

    /// No file may play: every `<audio>` speaks its fallback content.
    public static let closed = AudioSandbox(planning: .closed)

    package init(planning: Planning.AudioSandbox) { self.planning = planning }

    /// Allows `<audio>` to play files inside `directories`, measured and decoded like an import.
    ///
    /// - Throws: `ConcatSynthError.audioDirectory` for a path that is not an existing directory.
    public init(allowing directories: [String]) throws(ConcatSynthError) {
        do throws(PlanningError) {
            planning = try Planning.AudioSandbox(allowing: directories) { path in
                do throws(AudioIOError) {
                    return .success(try PreparedClip.renderReadyFrameCount(path: path))
                } catch {
                    return .failure(Planning.AudioSandbox.AudioFileProblem(reason: error.description))
                }
            }
        } catch {
            throw ConcatSynthError(error)
        }
    }
}
