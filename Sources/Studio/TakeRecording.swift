// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// A take the page sends in pieces while it is recorded (`POST /api/recordings`, then its pieces, then its end):
/// its samples as they came, and their conversion to 22050 Hz, made piece by piece with the converter an import uses
/// (libsamplerate converts a stream to the samples one call gives), so that at the end of the take only its last
/// piece is left to convert. Kept, it is in the pack as the same samples sent whole to `POST /api/takes` would be.
final class TakeRecording {
    let id: Int
    let sampleRate: Int
    /// The samples sent so far, at `sampleRate`: what the pack keeps as the take's original.
    private(set) var samples: [Float] = []
    /// Their conversion to 22050 Hz so far: all of it once the recording has ended.
    private(set) var renderReady: [Float] = []
    private(set) var isEnded = false
    private let resampler: StreamingResampler

    /// - Throws: `StudioError.audio` when libsamplerate cannot make its converter.
    init(id: Int, sampleRate: Int) throws(StudioError) {
        self.id = id
        self.sampleRate = sampleRate
        do throws(AudioIOError) {
            resampler = try StreamingResampler(from: sampleRate, to: RenderFormat.sampleRate, converter: .best)
        } catch {
            throw .audio(error)
        }
    }

    /// The bytes a recording's samples may have in all: a take's whole body's.
    static var maximumBytes: Int { StudioSite.limits.maximumBodyBytes }

    /// Adds a piece that starts at `frame`, and converts it; `isLast` ends the recording after it. A piece refused
    /// changes nothing: the recording goes on from where it was.
    ///
    /// - Throws: `StudioError.recordingEnded`, `.recordingFormat` for a piece at another rate, `.recordingOrder` for a
    ///   piece that does not start where the last one ended, `.recordingTooLong` past `maximumBytes` in all, `.audio`
    ///   when libsamplerate fails.
    func append(_ piece: TakeUpload, frame: Int, isLast: Bool) throws(StudioError) {
        guard !isEnded else { throw .recordingEnded(id: id) }
        guard piece.sampleRate == sampleRate else {
            throw .recordingFormat(
                id: id, reason: "the piece's X-Sample-Rate is \(piece.sampleRate), the recording's \(sampleRate)")
        }
        guard frame == samples.count else { throw .recordingOrder(id: id, frame: frame, expected: samples.count) }
        let byteCount = (samples.count + piece.samples.count) * 4
        guard byteCount <= Self.maximumBytes else {
            throw .recordingTooLong(id: id, byteCount: byteCount, sampleRate: sampleRate)
        }
        do {
            try piece.samples.withUnsafeBufferPointer { input in
                try resampler.convert(input) { renderReady += $0 }
            }
            if isLast { try resampler.finish { renderReady += $0 } }
        } catch let error as AudioIOError {
            throw .audio(error)
        } catch {
            preconditionFailure("only libsamplerate throws here: \(error)")
        }
        samples += piece.samples
        isEnded = isLast
    }

    /// The recording as a clip to import: its samples kept as a 32-bit float WAV file of them would be, and their
    /// conversion.
    ///
    /// - Throws: `StudioError.recordingInProgress` before its end, `.takeFormat` for a recording with no samples.
    func preparedClip() throws(StudioError) -> PreparedClip {
        guard isEnded else { throw .recordingInProgress(id: id) }
        guard !samples.isEmpty else { throw .takeFormat(reason: "recording \(id) ended with no samples") }
        return PreparedClip(floatSamples: samples, sampleRate: sampleRate, renderReady: renderReady, converter: .best)
    }

    /// What the page is told of it after each piece.
    var state: State { State(id: id, sampleRate: sampleRate, frames: samples.count, isEnded: isEnded) }

    struct State: Encodable, Sendable {
        var id: Int
        var sampleRate: Int
        /// The frames sent so far: where the next piece starts.
        var frames: Int
        var isEnded: Bool
    }
}
