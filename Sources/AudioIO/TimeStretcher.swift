// SPDX-License-Identifier: GPL-3.0-or-later
import CSonic
import SpeechCore

/// Changes the tempo and the pitch of mono render-ready audio independently, with libsonic (the speech
/// time-stretcher espeak-ng uses): `speed` 2 plays in half the time at the same pitch, `pitch` 2 an octave up
/// in the same time. Owns a `sonicStream`, destroyed in `deinit`.
///
/// Samples go in with `write`, come out with `read` as soon as sonic has them; `flush` at the end of the input
/// lets the last ones out. The output depends only on the input, not on how it was split into writes.
public final class TimeStretcher {
    private let stream: sonicStream

    /// - Parameters:
    ///   - speed: the tempo factor, above 0.
    ///   - pitch: the frequency factor, above 0.
    public init(speed: Double, pitch: Double) {
        precondition(speed > 0 && pitch > 0, "speed \(speed) and pitch \(pitch) must be above 0")
        // sonic returns NULL only when malloc fails.
        guard let stream = sonicCreateStream(Int32(RenderFormat.sampleRate), 1) else {
            fatalError("libsonic could not allocate a stream")
        }
        self.stream = stream
        sonicSetSpeed(stream, Float(speed))
        sonicSetPitch(stream, Float(pitch))
    }

    deinit { sonicDestroyStream(stream) }

    /// Hands sonic more input. Never throws; allocates only when sonic grows its buffers.
    public func write(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        // sonic's signature takes a mutable pointer but only reads from it.
        let accepted = sonicWriteFloatToStream(stream, UnsafeMutablePointer(mutating: base), Int32(samples.count))
        precondition(accepted != 0, "libsonic could not grow its input buffer")
    }

    /// Ends the input: the samples sonic still holds become available to `read`.
    public func flush() {
        precondition(sonicFlushStream(stream) != 0, "libsonic could not grow its output buffer")
    }

    /// Moves up to `buffer.count` output samples into `buffer`; returns how many (0 when sonic needs more input).
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return Int(sonicReadFloatFromStream(stream, base, Int32(buffer.count)))
    }
}
