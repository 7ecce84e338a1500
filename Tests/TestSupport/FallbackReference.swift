// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation

/// A request as `concat-synth render -o -` writes it, with where its markers say the fallback voice spoke: what a
/// server's answer, or what `say` played, is checked against.
public struct FallbackReference: Sendable {
    /// The raw samples render wrote (Float32 unless `options` ask for another encoding).
    public let bytes: Data
    /// The frames of each phrase the fallback voice spoke, at the output's rate.
    public let fallbackFrames: [Range<Int>]

    /// Renders `text` with `options` (`--bank`, `--sample-rate`, `--encoding`, as the answer is made).
    public init(_ text: String, options: [String] = [], directory: TemporaryDirectory) throws {
        let markers = directory.file("fallback-\(UUID().uuidString).jsonl")
        bytes = try Binary("concat-synth").runData(["render", "-o", "-", "--markers", markers] + options + [text])
        fallbackFrames = try String(contentsOfFile: markers, encoding: .utf8).split(separator: "\n").compactMap {
            let marker = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            guard marker?["fallback"] as? String == "voice", let frame = marker?["frame"] as? Int,
                let frameCount = marker?["frames"] as? Int
            else { return nil }
            return frame..<(frame + frameCount)
        }
    }

    /// The highest sample of `samples` (full scale 1) in each of the fallback voice's phrases.
    public func fallbackPeaks(_ samples: [Float]) -> [Float] {
        fallbackFrames.map { frames in
            samples[frames.clamped(to: samples.indices)].reduce(0) { max($0, abs($1)) }
        }
    }

    /// The same, for 16-bit samples.
    public func fallbackPeaks(_ samples: [Int16]) -> [Float] {
        fallbackPeaks(samples.map(PCM16.value))
    }
}
