// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#endif

/// How the units fallback treats a unit-built word's joins and F0.
public enum UnitProsody: Sendable {
    /// Cuts at pitch marks, and F0 brought to the run's contour (`WordContour`) by pitch-synchronous overlap-add.
    case shaped
    /// Cuts where the alignment puts them and F0 as each piece said it: the comparison the bench makes.
    case asRecorded
}

/// The F0 a unit-built word is brought to, from its place in its run and its sentence.
///
/// Each piece of the word keeps half of its own F0 movement around its own median (none at the very end of a
/// sentence), and that movement rides on one line for the whole word: so there is no step where two pieces join,
/// whatever their takes' registers. The line starts at
/// the F0 the word before ended on, when a word of the same run was said right before it (within
/// `largestStartStep` of the word's own median), else at the word's own median; it falls by the sentence's
/// declination; and over the last `endingSeconds` of voice of a sentence's last word it falls (a statement) or rises
/// (a question).
public struct WordContour: Equatable, Sendable {
    /// Where the word stands at its sentence's end.
    public enum Ending: Equatable, Sendable {
        /// Not the sentence's last word (or a sentence that ends without punctuation).
        case continuing
        /// The last word before `.` or `!`.
        case statement
        /// The last word before `?`.
        case question
    }

    /// The F0 in Hz the word before it ended on, when it was said right before it in the same run.
    public var startFrequency: Double?
    public var ending: Ending

    public init(startFrequency: Double? = nil, ending: Ending = .continuing) {
        self.startFrequency = startFrequency
        self.ending = ending
    }

    /// The sentence's declination: semitones a second.
    public static let declinationSemitonesPerSecond = -1.5
    /// How far a statement's last word falls over its last `endingSeconds` of voice, in semitones.
    public static let statementFallSemitones = -4.0
    /// How far a question's last word rises over its last `endingSeconds` of voice, in semitones.
    public static let questionRiseSemitones = 5.0
    public static let endingSeconds = 0.3
    /// The share of each piece's own F0 movement (around its median) that the word keeps.
    public static let keptMovement = 0.5
    /// How far the line's start may lie from the word's own median, in semitones.
    public static let largestStartStep = 3.0
    /// How far any period is moved, in semitones: enough to lift the last periods of a piece cut from a statement's
    /// end (often 7 semitones below the word) into a question's rise, and no further, as PSOLA's grains overlap the
    /// more the higher they go.
    public static let largestShiftSemitones = 9.0

    /// The target F0 in semitones (above 100 Hz) at each mark of `word` that has an F0 of its own (`nil` for the
    /// others), from `own`, the F0 the marks' spacing gives.
    func targets(own: [Double?], marks: [Int], pieces: [Int]) -> [Double?] {
        let voiced = own.indices.filter { own[$0] != nil }
        guard let firstVoiced = voiced.first, let lastVoiced = voiced.last else { return own }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let wordMedian = median(voiced.map { own[$0]! })
        var pieceMedians: [Int: Double] = [:]
        for piece in Set(voiced.map { pieces[$0] }) {
            pieceMedians[piece] = median(voiced.filter { pieces[$0] == piece }.map { own[$0]! })
        }
        let start = startFrequency.map {
            min(max(Self.semitones($0), wordMedian - Self.largestStartStep), wordMedian + Self.largestStartStep)
        }
        let level = start ?? wordMedian
        let rate = Double(RenderFormat.sampleRate)
        let first = Double(marks[firstVoiced]) / rate
        let end = Double(marks[lastVoiced]) / rate
        return own.indices.map { index in
            guard let semitones = own[index] else { return nil }
            let time = Double(marks[index]) / rate
            var target = level + Self.declinationSemitonesPerSecond * (time - first)
            let ending = min(max((time - (end - Self.endingSeconds)) / Self.endingSeconds, 0), 1)
            // At a sentence's end the sentence's tune takes over from the piece's own: a piece cut from the end of a
            // statement falls, which a question must not.
            let kept = self.ending == .continuing ? Self.keptMovement : Self.keptMovement * (1 - ending)
            target += kept * (semitones - pieceMedians[pieces[index]]!)
            switch self.ending {
            case .continuing: break
            case .statement: target += Self.statementFallSemitones * ending
            case .question: target += Self.questionRiseSemitones * ending
            }
            return target
        }
    }

    static func semitones(_ frequency: Double) -> Double { 12 * log2(frequency / 100) }
    static func frequency(_ semitones: Double) -> Double { 100 * pow(2, semitones / 12) }

    /// The F0 in semitones (above 100 Hz) at each mark, from the periods on either side of it within its voiced
    /// stretch; `nil` for a mark alone.
    static func own(marks: [Int]) -> [Double?] {
        let longest = PitchSynchronousOverlapAdd.longestPeriod
        return marks.indices.map { index in
            var periods: [Int] = []
            if index > 0, marks[index] - marks[index - 1] <= longest { periods.append(marks[index] - marks[index - 1]) }
            if index + 1 < marks.count, marks[index + 1] - marks[index] <= longest {
                periods.append(marks[index + 1] - marks[index])
            }
            guard !periods.isEmpty else { return nil }
            let period = Double(periods.reduce(0, +)) / Double(periods.count)
            return semitones(Double(RenderFormat.sampleRate) / period)
        }
    }
}

extension UnitVoice {
    /// A unit-built word as it is spoken: its samples, and the F0 in Hz it ends on (`nil` when none was shaped).
    public struct SpokenWord: Equatable, Sendable {
        public var samples: [Float]
        public var endFrequency: Double?
    }

    /// A word's units joined (`join`) and, with `UnitProsody.shaped`, its F0 brought to `contour` by pitch-synchronous
    /// overlap-add on the pieces' marks; as long as the joined units.
    ///
    /// - Throws: what reading a take's audio or marks throws.
    public func speak(_ choice: UnitChoice, in index: UnitIndex, contour: WordContour) throws -> SpokenWord {
        let word = try join(choice, in: index)
        guard prosody == .shaped, !word.marks.isEmpty else { return SpokenWord(samples: word.samples) }
        let own = WordContour.own(marks: word.marks)
        let targets = contour.targets(own: own, marks: word.marks, pieces: word.markPieces)
        let largest = WordContour.largestShiftSemitones
        let samples = PitchSynchronousOverlapAdd.shift(word.samples, marks: word.marks) { mark in
            guard let target = targets[mark], let said = own[mark] else { return 1 }
            return pow(2, min(max(target - said, -largest), largest) / 12)
        }
        return SpokenWord(samples: samples, endFrequency: targets.last { $0 != nil }?.map(WordContour.frequency))
    }

    /// The F0 in Hz that words `words` of a take end on: from the spacing of their last three pitch marks; `nil` with
    /// `UnitProsody.asRecorded` or where they have no voiced stretch.
    ///
    /// - Throws: what reading the take's marks throws.
    public func endFrequency(ofWords words: Range<Int>, inTake take: Int, in index: UnitIndex) throws -> Double? {
        guard prosody == .shaped else { return nil }
        let frames = index.frames(ofWords: words, inTake: take)
        let marks = try pitchMarks(of: index.takes[take].aligned).filter { frames.contains($0) }.suffix(3)
        guard marks.count >= 2, let first = marks.first, let last = marks.last,
            (last - first) <= PitchSynchronousOverlapAdd.longestPeriod * (marks.count - 1)
        else { return nil }
        return Double(RenderFormat.sampleRate) * Double(marks.count - 1) / Double(last - first)
    }
}
