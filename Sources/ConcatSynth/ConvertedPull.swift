// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// The end of the pull chain every output shares (a file, a pipe, a sound device): a renderer's blocks converted to
/// the output rate as they come, and the markers each pull reached, at that rate.
public final class ConvertedPull {
    public let renderer: Renderer
    private let resampler: StreamingResampler
    private var block: [Float]
    private var markers: [(index: Int, marker: Marker)] = []
    public private(set) var isComplete = false

    /// soxr's `high` recipe: 20 bits, more than any encoding but float keeps, at a small part of the cost of
    /// libsamplerate's best converter (the import's), which cost far more than the render itself (docs/speaking.md,
    /// the output's converter).
    public static let quality = SoxrQuality.high

    /// The converters of every chain in the process, each lent to one chain and kept for the next: a server's
    /// requests at one rate then start on a converter already set up.
    static let converters = ResamplerPool(quality: quality)

    /// - Throws: `ConcatSynthError.audio` for a rate soxr cannot convert to.
    public init(_ renderer: Renderer, sampleRate: Int, blockFrames: Int) throws(ConcatSynthError) {
        self.renderer = renderer
        do throws(AudioIOError) {
            resampler = try Self.converters.take(from: RenderFormat.sampleRate, to: sampleRate)
        } catch {
            throw .audio(error.description)
        }
        block = [Float](repeating: 0, count: blockFrames)
    }

    deinit { Self.converters.giveBack(resampler) }

    /// Pulls a block (or up to `maximumFrames` of it), and more while the converter holds all back, and hands the
    /// converted frames to `consume` and each block's 22050 Hz frames to `rendered`; at the request's end, the
    /// converter's last frames too. So every pull gives frames until the request ends: soxr holds back about 40 ms
    /// before its first frames, more than a small first pull renders, whose frames should leave at once.
    public func pull(
        maximumFrames: Int = .max, _ consume: (UnsafeBufferPointer<Float>) throws -> Void,
        rendered: ((UnsafeBufferPointer<Float>) -> Void)? = nil
    ) throws {
        markers.removeAll(keepingCapacity: true)
        let count = min(maximumFrames, block.count)
        var convertedCount = 0
        while true {
            let pulled = try block.withUnsafeMutableBufferPointer {
                try renderer.render(into: UnsafeMutableBufferPointer(rebasing: $0[..<count]))
            }
            markers += renderer.reachedMarkers.map { ($0.index, $0.marker.atSampleRate(resampler.targetRate)) }
            try block.withUnsafeBufferPointer { buffer in
                let frames = UnsafeBufferPointer(rebasing: buffer[..<pulled.frameCount])
                rendered?(frames)
                try resampler.convert(frames) {
                    convertedCount += $0.count
                    try consume($0)
                }
            }
            if pulled.isComplete {
                try resampler.finish(to: consume)
                isComplete = true
                return
            }
            // A renderer that gave nothing is waiting (for the fallback voice's thread): the caller pulls again.
            if convertedCount > 0 || pulled.frameCount == 0 { return }
        }
    }

    /// The markers the last pull reached, in the order they completed, each with its place in frame order, at the
    /// output rate.
    public var reachedMarkers: [(index: Int, marker: Marker)] { markers }
}
