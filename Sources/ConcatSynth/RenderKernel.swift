/// The sample loops of rendering: no throwing, no allocation, no look-ups; the callers own every buffer.
enum RenderKernel {
    /// Frames at each clip edge that fade in or out, so no join starts or stops with a step (2 ms).
    static let edgeFadeFrameCount = 44

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

    /// Fades the first and last frames of a clip in and out linearly, over at most half its length each.
    ///
    /// Never throws and never allocates.
    static func fadeEdges(_ clip: UnsafeMutableBufferPointer<Float>) {
        let fade = min(edgeFadeFrameCount, clip.count / 2)
        guard fade > 0 else { return }
        let last = clip.count - 1
        for index in 0..<fade {
            let factor = Float(index + 1) / Float(fade + 1)
            clip[index] *= factor
            clip[last - index] *= factor
        }
    }
}
