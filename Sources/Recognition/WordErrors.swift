// SPDX-License-Identifier: GPL-3.0-or-later
/// The word errors of a hypothesis against a reference: the fewest substitutions, deletions and insertions (word-level
/// edit distance) that turn the reference into what was heard. Summed over sentences (`+`), the rate is a corpus's
/// word error rate: all errors over all reference words.
///
/// ```swift
/// let errors = WordErrors(reference: ["sunny", "and", "warm"], hypothesis: ["sunny", "warm", "day"])
/// errors.rate   // 2 / 3: "and" deleted, "day" inserted
/// ```
public struct WordErrors: Equatable, Sendable, CustomStringConvertible {
    public var referenceWordCount: Int
    public var substitutions: Int
    public var deletions: Int
    public var insertions: Int

    public init(referenceWordCount: Int = 0, substitutions: Int = 0, deletions: Int = 0, insertions: Int = 0) {
        self.referenceWordCount = referenceWordCount
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
    }

    /// Compares word lists as given; `WordErrors.words(in:)` makes texts comparable.
    public init(reference: [String], hypothesis: [String]) {
        // costs[i][j]: the edit distance of reference[..<i] and hypothesis[..<j]; then one path back through it.
        let rows = reference.count + 1
        let columns = hypothesis.count + 1
        var costs = [[Int]](repeating: [Int](repeating: 0, count: columns), count: rows)
        for row in 0..<rows { costs[row][0] = row }
        for column in 0..<columns { costs[0][column] = column }
        for row in 1..<rows {
            for column in 1..<columns {
                let substitution = costs[row - 1][column - 1] + (reference[row - 1] == hypothesis[column - 1] ? 0 : 1)
                costs[row][column] = min(substitution, costs[row - 1][column] + 1, costs[row][column - 1] + 1)
            }
        }
        self.init(referenceWordCount: reference.count)
        var row = reference.count
        var column = hypothesis.count
        while row > 0 || column > 0 {
            if row > 0, column > 0,
                costs[row][column] == costs[row - 1][column - 1]
                    + (reference[row - 1] == hypothesis[column - 1] ? 0 : 1)
            {
                if reference[row - 1] != hypothesis[column - 1] { substitutions += 1 }
                row -= 1
                column -= 1
            } else if row > 0, costs[row][column] == costs[row - 1][column] + 1 {
                deletions += 1
                row -= 1
            } else {
                insertions += 1
                column -= 1
            }
        }
    }

    /// Substitutions, deletions and insertions.
    public var errorCount: Int { substitutions + deletions + insertions }

    /// Errors per reference word (can pass 1 with many insertions); 0 for an empty reference heard as nothing.
    public var rate: Double {
        referenceWordCount == 0 ? (errorCount == 0 ? 0 : 1) : Double(errorCount) / Double(referenceWordCount)
    }

    public var description: String {
        "\(errorCount) errors in \(referenceWordCount) words (\(substitutions) substituted, \(deletions) deleted, \(insertions) inserted)"
    }

    public static func + (left: WordErrors, right: WordErrors) -> WordErrors {
        WordErrors(
            referenceWordCount: left.referenceWordCount + right.referenceWordCount,
            substitutions: left.substitutions + right.substitutions, deletions: left.deletions + right.deletions,
            insertions: left.insertions + right.insertions)
    }

    /// The words of `text` as they are compared: lower case, split at anything but letters, digits and apostrophes
    /// (so `Wi-Fi` is `wi fi`, and the dictionary's `p.m.` is `p m`).
    public static func words(in text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }
}
