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

    /// Mixes frames `position…` of a crossfade `length` frames long into `destination`: `incoming` fades in,
    /// `outgoing` (the previous clip's tail at the same place) fades out, with equal-power curves.
    ///
    /// Never throws and never allocates.
    static func crossfade(
        incoming: UnsafeBufferPointer<Float>, incomingGain: Float, outgoing: UnsafeBufferPointer<Float>,
        outgoingGain: Float, position: Int, length: Int, into destination: UnsafeMutableBufferPointer<Float>
    ) {
        for index in 0..<min(destination.count, incoming.count, outgoing.count) {
            let angle = Float.pi / 2 * Float(position + index + 1) / Float(length + 1)
            destination[index] = incoming[index] * incomingGain * sinf(angle) + outgoing[index] * outgoingGain * cosf(angle)
        }
    }

    /// Writes zeros into `destination`. Never throws and never allocates.
    static func silence(_ destination: UnsafeMutableBufferPointer<Float>) {
        guard let base = destination.baseAddress else { return }
        base.update(repeating: 0, count: destination.count)
    }

    /// Fades a clip's first `fadeIn` and last `fadeOut` frames linearly, over at most half its length each.
    ///
    /// Never throws and never allocates.
    static func fadeEdges(_ clip: UnsafeMutableBufferPointer<Float>, fadeIn: Int, fadeOut: Int) {
        let last = clip.count - 1
        for index in 0..<min(fadeIn, clip.count / 2) {
            clip[index] *= Float(index + 1) / Float(fadeIn + 1)
        }
        for index in 0..<min(fadeOut, clip.count / 2) {
            clip[last - index] *= Float(index + 1) / Float(fadeOut + 1)
        }
    }
}
