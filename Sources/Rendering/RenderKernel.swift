// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sample loops of rendering: no throwing, no allocation, no look-ups; the callers own every buffer.
enum RenderKernel {
    /// Copies `source` into the start of `destination` times `gain`; a gain of exactly 1 copies the bits.
    ///
    /// Never throws and never allocates.
    static func copy(
        _ source: UnsafeBufferPointer<Float>, gain: Float, into destination: UnsafeMutableBufferPointer<Float>
    ) {
        let count = min(source.count, destination.count)
        if gain == 1 {
            guard count > 0 else { return }
            destination.baseAddress!.update(from: source.baseAddress!, count: count)
        } else {
            for index in 0..<count { destination[index] = source[index] * gain }
        }
    }

    /// Writes zeros into `destination`. Never throws and never allocates.
    static func silence(_ destination: UnsafeMutableBufferPointer<Float>) {
        guard let base = destination.baseAddress else { return }
        base.update(repeating: 0, count: destination.count)
    }

    /// Multiplies `samples` by `gain` in place; a gain of exactly 1 leaves the bits as they are.
    ///
    /// Never throws and never allocates.
    static func applyGain(_ gain: Float, to samples: UnsafeMutableBufferPointer<Float>) {
        guard gain != 1 else { return }
        for index in samples.indices { samples[index] *= gain }
    }

    /// Fades a clip's first `fadeIn` and last `fadeOut` frames linearly (each over at most half the clip), where
    /// they fall in `frames`: the clip's frames from `offset` on, `clipFrameCount` in all.
    ///
    /// Never throws and never allocates.
    static func fadeEdges(
        _ frames: UnsafeMutableBufferPointer<Float>, clipFrameOffset offset: Int, clipFrameCount: Int, fadeIn: Int,
        fadeOut: Int
    ) {
        let end = offset + frames.count
        let fadeIn = min(fadeIn, clipFrameCount / 2)
        if fadeIn > 0 {
            let divisor = Float(fadeIn + 1)
            for frame in offset..<max(offset, min(fadeIn, end)) {
                frames[frame - offset] *= Float(frame + 1) / divisor
            }
        }
        let fadeOut = min(fadeOut, clipFrameCount / 2)
        if fadeOut > 0 {
            let divisor = Float(fadeOut + 1)
            let last = clipFrameCount - 1
            let first = max(offset, clipFrameCount - fadeOut)
            for frame in first..<max(first, end) {
                frames[frame - offset] *= Float(last - frame + 1) / divisor
            }
        }
    }

    /// Mixes frames `position…` of a crossfade `length` frames long: `incoming` (in place, gain applied) fades in
    /// while `outgoing` (the previous clip's tail at the same place) fades out, with equal-power curves.
    ///
    /// Never throws and never allocates.
    static func crossfade(
        _ incoming: UnsafeMutableBufferPointer<Float>, outgoing: UnsafeBufferPointer<Float>, outgoingGain: Float,
        position: Int, length: Int
    ) {
        for index in 0..<min(incoming.count, outgoing.count) {
            let angle = Float.pi / 2 * Float(position + index + 1) / Float(length + 1)
            incoming[index] = incoming[index] * sinf(angle) + outgoing[index] * outgoingGain * cosf(angle)
        }
    }
}
