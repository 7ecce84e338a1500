// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import Rendering
import SpeechCore

/// Phrases in a dictionary, sorted as a pack's index sorts them.
public struct DictionaryLookup: PhraseLookup {
    public var takesByKey: [String: [ClipTake]]

    /// Clip `n` is `100 × n` frames long.
    public init(_ phrases: [String: [Int]]) {
        takesByKey = phrases.mapValues { $0.map { ClipTake(clipID: $0, frameCount: 100 * $0) } }
    }

    public init(takes: [String: [ClipTake]]) { takesByKey = takes }

    public func firstPhraseKey(atOrAfter key: String) throws -> String? {
        takesByKey.keys.filter { !$0.utf8.lexicographicallyPrecedes(key.utf8) }
            .min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public func takes(forPhraseKey key: String) throws -> [ClipTake] { takesByKey[key] ?? [] }
}

/// Clips' samples in memory, by clip id; remembers the order clips were read in.
public final class MemoryClips: ClipAudioSource {
    public var samples: [Int: [Float]]
    public private(set) var reads: [Int] = []
    /// Every call to `readRenderReadyPCM`.
    public private(set) var readCount = 0
    /// Set it, and move it when `samples` change, to let a renderer keep stretched clips (`StretchCache`).
    public var samplesVersion: UInt64?

    public init(_ samples: [Int: [Float]]) { self.samples = samples }

    public func readRenderReadyPCM(_ take: ClipTake, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>)
        throws
        -> Int
    {
        readCount += 1
        if reads.last != take.clipID { reads.append(take.clipID) }
        let played = samples[take.clipID]![take.firstFrame..<(take.firstFrame + take.frameCount)]
        let clip = played.dropFirst(start).prefix(buffer.count)
        _ = buffer.initialize(from: clip)
        return clip.count
    }
}

/// Pulls a renderer to its end in blocks of `blockSize`, returning the samples and the block sizes.
public func pullAll(_ renderer: Renderer, blockSize: Int) throws -> (samples: [Float], blocks: [Int]) {
    try pullAll(blockSize: blockSize) { buffer in
        let pulled = try renderer.render(into: buffer)
        return (pulled.frameCount, pulled.isComplete)
    }
}

/// Pulls to the end in blocks of `blockSize` through `render` (a renderer's `render(into:)`: the frames it wrote and
/// whether the request is done), returning the samples and the block sizes.
public func pullAll(
    blockSize: Int, _ render: (UnsafeMutableBufferPointer<Float>) throws -> (frameCount: Int, isComplete: Bool)
) rethrows -> (samples: [Float], blocks: [Int]) {
    var samples: [Float] = []
    var blocks: [Int] = []
    var buffer = [Float](repeating: .nan, count: blockSize)
    while true {
        let pulled = try buffer.withUnsafeMutableBufferPointer { try render($0) }
        samples += buffer[..<pulled.frameCount]
        blocks.append(pulled.frameCount)
        if pulled.isComplete { return (samples, blocks) }
    }
}
