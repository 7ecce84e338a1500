// SPDX-License-Identifier: GPL-3.0-or-later
/// The place in a sentence a take was recorded for: the railway announcer's start, middle and end inflections, and
/// a question's tune.
///
/// A take with none is untagged; selection then goes by its measured `PitchContour`, if any.
public enum TakePosition: String, Sendable, CaseIterable, Codable {
    /// First in a sentence.
    case initial
    /// Inside a sentence, or before a comma: the voice ends high, going on.
    case medial
    /// Last before a full stop or an exclamation mark: the voice falls.
    case final
    /// Last before a question mark.
    case question

    /// The file name prefixes that tag a take (`e.hello.wav` is the final take of "hello"), as UK railway
    /// announcement systems name their files.
    public static func filePrefix(_ prefix: Character) -> TakePosition? {
        switch prefix {
        case "s": .initial
        case "m": .medial
        case "e": .final
        case "q": .question
        default: nil
        }
    }

    /// The one-line list of accepted values, for errors.
    public static var accepted: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// How a take's pitch moves over its last voiced 200 ms, measured when it is imported: a hint of its place for a take
/// nobody tagged (falling ends a statement, rising goes on or asks).
///
/// Import classes the movement of the least-squares line through the F0 of those hops: 1.5 semitones or more down is
/// falling, as much up is rising, less either way is level (AudioFeatures' `TakeAnalyzer`, docs/voice-packs.md).
public enum PitchContour: String, Sendable, CaseIterable, Codable {
    case falling, level, rising
}

/// What a join compares at a take's two edges, measured over what it plays (past its trimmed silence) when it is
/// imported.
public struct TakeEdges: Equatable, Sendable {
    /// F0 at the first and last voiced frames, in Hz; `nil` for a take with no voiced frame.
    public var firstF0Hz: Double?
    public var lastF0Hz: Double?
    /// The level of the first and last sounding analysis frames (past the quiet ones at its edges), in dB relative to
    /// full scale (RMS).
    public var firstEnergyDecibels: Double
    public var lastEnergyDecibels: Double
    /// The mel-frequency cepstral coefficients of the same two frames, `cepstrumCount` each.
    public var firstCepstrum: [Float]
    public var lastCepstrum: [Float]

    /// How many cepstral coefficients an edge has: 13, the count speech recognisers and Flite's join cost use (the
    /// zeroth, which follows the frame's level, and twelve of the spectrum's shape).
    public static let cepstrumCount = 13
    /// The level an edge of digital silence is given, in dBFS: below any recording's noise floor, and a number a join
    /// can subtract, where the RMS level of silence would be minus infinity.
    public static let silenceDecibels = -120.0

    public init(
        firstF0Hz: Double?, lastF0Hz: Double?, firstEnergyDecibels: Double, lastEnergyDecibels: Double,
        firstCepstrum: [Float], lastCepstrum: [Float]
    ) {
        self.firstF0Hz = firstF0Hz
        self.lastF0Hz = lastF0Hz
        self.firstEnergyDecibels = firstEnergyDecibels
        self.lastEnergyDecibels = lastEnergyDecibels
        self.firstCepstrum = firstCepstrum
        self.lastCepstrum = lastCepstrum
    }
}

/// Where a take was cut from a longer recording: two takes cut one right after the other join as they were spoken.
public struct RecordingCut: Equatable, Hashable, Sendable {
    /// Names the recording: the same number for every take cut from it.
    public var recording: Int64
    /// Where the cut starts and ends in the recording, in its own frames.
    public var startFrame: Int
    public var endFrame: Int

    public init(recording: Int64, startFrame: Int, endFrame: Int) {
        self.recording = recording
        self.startFrame = startFrame
        self.endFrame = endFrame
    }

    /// Whether `next` was cut from the same recording right where this one ends.
    public func isFollowed(by next: RecordingCut) -> Bool {
        recording == next.recording && endFrame == next.startFrame
    }
}
