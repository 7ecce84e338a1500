// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Tokens
import Voicebank

/// The takes marked in one longer recording: Audacity's label track, exported as text (File › Export › Export
/// Labels).
///
/// One label a line, `start<TAB>end<TAB>label`, times in seconds with a `.` for the decimal point (`1.250000`); the
/// label is the phrase the take speaks, optionally after a position prefix as file names have them (`e.hello` is the
/// final take of "hello", see `ImportRequest.positionPrefix`). Lines Audacity writes after a label of a spectral
/// selection, starting with `\` and giving its frequencies, are skipped, as are empty lines.
///
/// ```swift
/// let labels = try LabelTrack(path: "session.txt")   // 0.500000<TAB>1.250000<TAB>good morning, …
/// ```
public struct LabelTrack: Equatable, Sendable {
    /// One region label.
    public struct Label: Equatable, Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        /// The label's text as written, prefix and all.
        public var text: String
        /// 1-based.
        public var lineNumber: Int
    }

    /// A label as a take to cut: its frames in the recording's own rate, phrase and position.
    public struct Take: Equatable, Sendable {
        public var frames: Range<Int>
        public var phrase: String
        public var position: TakePosition?
        public var lineNumber: Int
    }

    public var path: String
    public var labels: [Label]

    static let expected = "expected Audacity's label lines start<TAB>end<TAB>label, in seconds such as 1.250000"

    /// Reads and parses the label track at `path`.
    ///
    /// - Throws: `AuthoringError.fileSystem` when it cannot be read, `.labels` naming the line when it cannot be
    ///   parsed.
    public init(path: String) throws(AuthoringError) {
        try self.init(parsing: try Files.readText(path), path: path)
    }

    /// Parses `content`; `path` names the track in errors.
    ///
    /// - Throws: `AuthoringError.labels` naming the line: fewer than three fields, a time that is not a number of
    ///   seconds of 0 or more, an end not after its start (a point label), no text; or a track with no label.
    public init(parsing content: String, path: String) throws(AuthoringError) {
        self.path = path
        var text = content
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        labels = []
        var number = 0
        // "\r\n" is one Character.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            if String(line).trimmingSpaces.isEmpty || line.hasPrefix("\\") { continue }
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                throw .labels(
                    path: path, line: number, reason: "\"\(line.prefix(60))\" is not a label; \(Self.expected)")
            }
            let start = try Self.seconds(fields[0], line: number, path: path)
            let end = try Self.seconds(fields[1], line: number, path: path)
            guard end > start else {
                throw .labels(
                    path: path, line: number,
                    reason:
                        "the label ends at \(fields[1]) s, not after it starts; expected a region label (a selection), not a point label"
                )
            }
            let label = String(fields[2]).trimmingSpaces
            guard !label.isEmpty else {
                throw .labels(
                    path: path, line: number, reason: "the label has no text; expected the phrase the take speaks")
            }
            labels.append(Label(startSeconds: start, endSeconds: end, text: label, lineNumber: number))
        }
        guard !labels.isEmpty else {
            throw .labels(path: path, line: nil, reason: "it has no labels; \(Self.expected)")
        }
    }

    private static func seconds(_ field: Substring, line: Int, path: String) throws(AuthoringError) -> Double {
        let text = String(field).trimmingSpaces
        // Double("nan"), Double("inf") and Double("0x1p3") parse; a time is digits and one point.
        let isDecimal = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard isDecimal, let value = Double(text), value.isFinite else {
            throw .labels(
                path: path, line: line,
                reason: "\"\(text.prefix(30))\" is not a time; \(expected)")
        }
        return value
    }

    /// The labels as takes of a recording of `format` at `recording`: each label's times rounded to the nearest frame
    /// (so labels that meet at one time meet at one frame), its phrase and position read from its text.
    ///
    /// - Parameter position: the position of a label without a prefix.
    /// - Throws: `AuthoringError.labels` naming the line of a label that ends past the recording or is shorter than
    ///   a frame, whose phrase normalises to nothing, or whose prefix and `position` disagree.
    public func takes(of format: SourceFormat, at recording: String, position: TakePosition? = nil)
        throws(AuthoringError) -> [Take]
    {
        var takes: [Take] = []
        for label in labels {
            let frames = frame(label.startSeconds, format.sampleRate)..<frame(label.endSeconds, format.sampleRate)
            guard frames.upperBound <= format.frameCount else {
                throw .labels(
                    path: path, line: label.lineNumber,
                    reason:
                        "the label ends at \(label.endSeconds) s, past the end of \(recording) (\(format.durationSeconds) s); expected labels of that recording"
                )
            }
            guard !frames.isEmpty else {
                throw .labels(
                    path: path, line: label.lineNumber,
                    reason: "the label is shorter than one frame of \(recording); expected a region of the take")
            }
            var phrase = label.text
            var tagged = position
            if let prefixed = ImportRequest.positionPrefix(ofName: Substring(label.text)) {
                if let position, position != prefixed.position {
                    throw .labels(
                        path: path, line: label.lineNumber,
                        reason:
                            "the label tags its take \(prefixed.position) (\(prefixed.prefix)), but the position given tags it \(position); expected one position"
                    )
                }
                phrase = String(prefixed.rest).trimmingSpaces
                tagged = prefixed.position
            }
            guard !Tokenizer.tokens(in: phrase).isEmpty else {
                throw .labels(
                    path: path, line: label.lineNumber,
                    reason:
                        "the phrase \"\(phrase.prefix(60))\" has no words once normalised; expected a phrase with letters, digits or CJK characters"
                )
            }
            takes.append(Take(frames: frames, phrase: phrase, position: tagged, lineNumber: label.lineNumber))
        }
        return takes
    }

    /// The frame nearest `seconds` at `sampleRate`.
    private func frame(_ seconds: Double, _ sampleRate: Int) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }
}
