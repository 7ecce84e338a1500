import ConcatSynth

/// Pulls a synthesizer's renderer to its end in blocks of `blockSize`, returning the samples and the block sizes.
func pullAll(_ renderer: ConcatSynth.Renderer, blockSize: Int) throws -> (samples: [Float], blocks: [Int]) {
    var samples: [Float] = []
    var blocks: [Int] = []
    var buffer = [Float](repeating: .nan, count: blockSize)
    while true {
        let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
        samples += buffer[..<pulled.frameCount]
        blocks.append(pulled.frameCount)
        if pulled.isComplete { return (samples, blocks) }
    }
}
