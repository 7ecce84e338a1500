// SPDX-License-Identifier: GPL-3.0-or-later
/// A Markdown table printed as it is filled, so a long run shows its progress.
struct Table {
    let title: String
    let columns: [String]
    private(set) var rows: [[String]] = []

    init(_ title: String, columns: [String]) {
        self.title = title
        self.columns = columns
    }

    /// Prints the title and the header row.
    func printHeader() {
        print("\n### \(title)\n")
        print("| " + columns.joined(separator: " | ") + " |")
        print("|" + columns.map { _ in "---" }.joined(separator: "|") + "|")
    }

    mutating func add(_ cells: [String]) {
        precondition(
            cells.count == columns.count, "a row of \(cells.count) cells in a table of \(columns.count) columns")
        rows.append(cells)
        print("| " + cells.joined(separator: " | ") + " |")
        fflushStandardOutput()
    }
}

/// One target and whether this run met it.
struct TargetResult {
    var target: String
    var measured: String
    /// `nil` when the run could not tell (an anchor is missing).
    var isMet: Bool?

    var verdict: String {
        switch isMet {
        case true?: return "met"
        case false?: return "NOT met"
        case nil: return "n/a"
        }
    }
}
