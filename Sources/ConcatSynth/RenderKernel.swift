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

    /// Multiplies `samples` by `gain` in place; a gain of exactly 1 leaves the bits as they are.
    ///
    /// Never throws and never allocates.
    static func applyGain(_ gain: Float, to samples: UnsafeMutableBufferPointer<Float>) {
        guard gain != 1 else { return }
        for index in samples.indices { samples[index] *= gain }
    }

    /// Fades a clip's first and last frames in and out linearly, over at most half its length each, where they
    /// fall in `frames`: the clip's frames from `offset` on, `clipFrameCount` in all.
    ///
    /// Never throws and never allocates.
    static func fadeEdges(_ frames: UnsafeMutableBufferPointer<Float>, clipFrameOffset offset: Int, clipFrameCount: Int) {
        let fade = min(edgeFadeFrameCount, clipFrameCount / 2)
        guard fade > 0 else { return }
        let end = offset + frames.count
        let divisor = Float(fade + 1)
        for frame in offset..<max(offset, min(fade, end)) {
            frames[frame - offset] *= Float(frame + 1) / divisor
        }
        let last = clipFrameCount - 1
        for frame in max(offset, clipFrameCount - fade)..<max(max(offset, clipFrameCount - fade), end) {
            frames[frame - offset] *= Float(last - frame + 1) / divisor
        }
    }
}
