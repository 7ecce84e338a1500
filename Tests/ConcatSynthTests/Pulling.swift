// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechTestSupport

/// Pulls a synthesizer's renderer to its end in blocks of `blockSize`, returning the samples and the block sizes.
func pullAll(_ renderer: ConcatSynth.Renderer, blockSize: Int) throws -> (samples: [Float], blocks: [Int]) {
    try pullAll(blockSize: blockSize) { buffer in
        let pulled = try renderer.render(into: buffer)
        return (pulled.frameCount, pulled.isComplete)
    }
}
