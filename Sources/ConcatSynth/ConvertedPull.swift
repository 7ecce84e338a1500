import AudioIO
import Rendering
import SpeechCore

/// The end of the pull chain every output shares (a file, a pipe, a sound device): a renderer's blocks converted to
/// the output rate as they come, and the markers each pull reached, at that rate.
public final class ConvertedPull {
    public let renderer: Renderer
    private let resampler: StreamingResampler
    private var block: [Float]
    public private(set) var isComplete = false

    /// soxr's `high` recipe: 20 bits, more than any encoding keeps, at a small share of a render's cost, where
    /// libsamplerate's best converter, the import's, cost more than the whole render (docs/speaking.md's output
    /// figures).
    public static let quality = SoxrQuality.high

    /// - Throws: `AudioIOError` for a rate soxr cannot convert to.
    public init(_ renderer: Renderer, sampleRate: Int, blockFrames: Int) throws {
        self.renderer = renderer
        resampler = try StreamingResampler(from: RenderFormat.sampleRate, to: sampleRate, soxr: Self.quality)
        block = [Float](repeating: 0, count: blockFrames)
    }

    /// Pulls one block (or up to `maximumFrames` of it) and hands its converted frames to `consume` (none while the
    /// converter fills), and the 22050 Hz frames to `rendered`; at the request's end, the converter's last frames too.
    public func pull(
        maximumFrames: Int = .max, _ consume: (UnsafeBufferPointer<Float>) throws -> Void,
        rendered: ((UnsafeBufferPointer<Float>) -> Void)? = nil
    ) throws {
        let count = min(maximumFrames, block.count)
        let pulled = try block.withUnsafeMutableBufferPointer {
            try renderer.render(into: UnsafeMutableBufferPointer(rebasing: $0[..<count]))
        }
        try block.withUnsafeBufferPointer { buffer in
            let frames = UnsafeBufferPointer(rebasing: buffer[..<pulled.frameCount])
            rendered?(frames)
            try resampler.convert(frames, to: consume)
        }
        if pulled.isComplete {
            try resampler.finish(to: consume)
            isComplete = true
        }
    }

    /// The markers the last pull reached, in the order they completed, each with its place in frame order, at the
    /// output rate.
    public var reachedMarkers: [(index: Int, marker: Marker)] {
        renderer.reachedMarkers.map { ($0.index, $0.marker.atSampleRate(resampler.targetRate)) }
    }
}
