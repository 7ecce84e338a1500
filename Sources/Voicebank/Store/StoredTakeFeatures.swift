// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite
import SpeechCore

/// What selection knows of a take, as a clip row of schema 8 stores it: its tagged position, its measured contour and
/// edges, and its cut from a longer recording; checked as it is read, since a pack is a stranger's file.
struct StoredTakeFeatures: Equatable {
    var position: TakePosition?
    var contour: PitchContour?
    var edges: TakeEdges?
    var cut: RecordingCut?

    /// The columns `init(_:from:)` reads, in order.
    static let columns = """
        position, contour, is_features_measured, first_f0_hz, last_f0_hz, first_energy_db, last_energy_db, first_mfcc,
        last_mfcc, recording, cut_start, cut_end
        """

    /// The bytes of a stored cepstrum: `TakeEdges.cepstrumCount` little-endian Float32 values.
    static let cepstrumByteCount = TakeEdges.cepstrumCount * MemoryLayout<Float>.size

    /// Reads the features from `row`, whose columns from `first` on are `columns`.
    ///
    /// Import never stores a value this refuses; a hand-edited or hostile pack may. The contour and edges of a clip
    /// whose `is_features_measured` is 0 are not read: they are not measured yet (a pack upgraded from schema 7 by a
    /// program that could not measure them), and selection goes without them.
    ///
    /// - Throws: `ClipDamage.feature` naming the first column that holds what no import writes: a position or contour
    ///   outside their names, an F0 that is not a frequency above 0 Hz, a level that is not a finite number, a
    ///   cepstrum of another length or with a NaN or infinity, or a cut that is not a range of frames.
    init(_ row: Statement, from first: Int32) throws(ClipDamage) {
        position = try Self.name(row, first, column: "position", as: TakePosition.self)
        cut = try Self.cut(row, first + 9)
        guard !row.isNull(first + 2), row.int(first + 2) != 0 else { return }
        contour = try Self.name(row, first + 1, column: "contour", as: PitchContour.self)
        edges = TakeEdges(
            firstF0Hz: try Self.frequency(row, first + 3, column: "first_f0_hz"),
            lastF0Hz: try Self.frequency(row, first + 4, column: "last_f0_hz"),
            firstEnergyDecibels: try Self.level(row, first + 5, column: "first_energy_db"),
            lastEnergyDecibels: try Self.level(row, first + 6, column: "last_energy_db"),
            firstCepstrum: try Self.cepstrum(row, first + 7, column: "first_mfcc"),
            lastCepstrum: try Self.cepstrum(row, first + 8, column: "last_mfcc"))
    }

    private static func name<Name: RawRepresentable & CaseIterable>(
        _ row: Statement, _ index: Int32, column: String, as type: Name.Type
    ) throws(ClipDamage) -> Name? where Name.RawValue == String {
        guard !row.isNull(index) else { return nil }
        let text = row.type(index) == SQLITE_TEXT ? row.text(index) : nil
        guard let text, let value = Name(rawValue: text) else {
            throw .feature(
                column: column, value: shown(row, index),
                expected: Name.allCases.map(\.rawValue).joined(separator: ", ") + " or NULL")
        }
        return value
    }

    private static func frequency(_ row: Statement, _ index: Int32, column: String) throws(ClipDamage) -> Double? {
        guard !row.isNull(index) else { return nil }
        let value = row.double(index)
        guard row.type(index) == SQLITE_FLOAT || row.type(index) == SQLITE_INTEGER, value.isFinite, value > 0 else {
            throw .feature(column: column, value: shown(row, index), expected: "a frequency above 0 Hz, or NULL")
        }
        return value
    }

    private static func level(_ row: Statement, _ index: Int32, column: String) throws(ClipDamage) -> Double {
        let value = row.double(index)
        guard row.type(index) == SQLITE_FLOAT || row.type(index) == SQLITE_INTEGER, value.isFinite else {
            throw .feature(column: column, value: shown(row, index), expected: "a level in dBFS such as -23.5")
        }
        return value
    }

    private static func cepstrum(_ row: Statement, _ index: Int32, column: String) throws(ClipDamage) -> [Float] {
        let expected = "\(TakeEdges.cepstrumCount) finite Float32 values (\(cepstrumByteCount) bytes)"
        guard row.type(index) == SQLITE_BLOB, row.byteCount(index) == cepstrumByteCount else {
            let value = row.type(index) == SQLITE_BLOB ? bytes(row.byteCount(index)) : shown(row, index)
            throw .feature(column: column, value: value, expected: expected)
        }
        let values = row.floats(index)
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw .feature(column: column, value: "\(values[bad]) at coefficient \(bad)", expected: expected)
        }
        return values
    }

    private static func cut(_ row: Statement, _ first: Int32) throws(ClipDamage) -> RecordingCut? {
        let columns = (first..<(first + 3))
        if columns.allSatisfy(row.isNull) { return nil }
        let expected = "a recording and a cut from frame 0 or later to a later frame, or all three NULL"
        for index in columns where row.type(index) != SQLITE_INTEGER {
            let name = ["recording", "cut_start", "cut_end"][Int(index - first)]
            throw .feature(column: name, value: shown(row, index), expected: expected)
        }
        let cut = RecordingCut(
            recording: Int64(row.int(first)), startFrame: row.int(first + 1), endFrame: row.int(first + 2))
        guard cut.startFrame >= 0 else {
            throw .feature(column: "cut_start", value: "\(cut.startFrame)", expected: expected)
        }
        guard cut.endFrame > cut.startFrame else {
            throw .feature(column: "cut_end", value: "\(cut.endFrame) (from \(cut.startFrame))", expected: expected)
        }
        return cut
    }

    private static func bytes(_ count: Int) -> String { "\(count) byte\(count == 1 ? "" : "s")" }

    /// A stored value for an error: numbers as they are, text quoted on one line, a blob by its length.
    private static func shown(_ row: Statement, _ index: Int32) -> String {
        switch row.type(index) {
        case SQLITE_NULL: "NULL"
        case SQLITE_INTEGER: "\(row.int(index))"
        case SQLITE_FLOAT: "\(row.double(index))"
        case SQLITE_BLOB: "a blob of \(bytes(row.byteCount(index)))"
        default: VoicebankError.quoted(row.text(index))
        }
    }
}
