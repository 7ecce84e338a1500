// SPDX-License-Identifier: GPL-3.0-or-later
/// A written decimal number kept as its digits, never as floating point, so `3.10` is read "three point one zero".
public struct DecimalNumber: Sendable, Hashable, CustomStringConvertible {
    /// Whether the number is below zero; a zero is never negative (`-0` reads "zero").
    public let isNegative: Bool
    /// The integer part's ASCII digits without leading zeros; `"0"` for a zero integer part.
    public let integerDigits: String
    /// The fraction's ASCII digits as written, trailing zeros kept; empty when there is no decimal part.
    public let fractionDigits: String

    /// A number from its parts.
    ///
    /// - Throws: `VerbalizationError.malformedNumber` when a part is not ASCII digits or the integer part is empty.
    public init(isNegative: Bool, integerDigits: String, fractionDigits: String = "") throws(VerbalizationError) {
        guard let integer = InputText.integerDigits(Substring(integerDigits)), !integerDigits.contains(","),
            fractionDigits.allSatisfy({ InputText.digitValue($0) != nil })
        else {
            let written = (isNegative ? "-" : "") + integerDigits + (fractionDigits.isEmpty ? "" : "." + fractionDigits)
            throw .malformedNumber(written)
        }
        let isZero = integer == "0" && fractionDigits.allSatisfy { $0 == "0" }
        self.isNegative = isNegative && !isZero
        self.integerDigits = integer
        self.fractionDigits = fractionDigits
    }

    /// A whole number.
    public init(_ value: Int) {
        isNegative = value < 0
        integerDigits = String(value.magnitude)
        fractionDigits = ""
    }

    /// Reads a written number: an optional sign (`-`, `+`, `−`), digits with optional thousands separators and an
    /// optional decimal part; full-width digits and signs are read as ASCII ones.
    ///
    /// `DecimalNumber(parsing: "-1,234.50")` has `isNegative`, integer digits `"1234"`, fraction digits `"50"`.
    ///
    /// - Throws: `VerbalizationError.malformedNumber` for anything else (`abc`, `1,23`, `1.`, `--1`).
    public init(parsing text: String) throws(VerbalizationError) {
        let written = InputText.normalized(text)
        var body = Substring(written)
        let isNegative = body.first == "-"
        if body.first == "-" || body.first == "+" { body.removeFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? parts[1] : ""
        // ".5" is read as "0.5"; "5." and a lone "." are not numbers.
        let integerPart = parts[0].isEmpty && !fraction.isEmpty ? "0" : parts[0]
        guard let integer = InputText.integerDigits(integerPart),
            parts.count == 1 || InputText.isDigits(fraction)
        else { throw .malformedNumber(text) }
        try self.init(isNegative: isNegative, integerDigits: integer, fractionDigits: String(fraction))
    }

    /// The integer part as an `Int`, or nil when it has more digits than an `Int` holds.
    public var integerValue: Int? {
        integerDigits.count <= 18 ? Int(integerDigits) : nil
    }

    /// The fraction's digits as values 0 to 9.
    public var fractionDigitValues: [Int] {
        fractionDigits.compactMap(InputText.digitValue)
    }

    /// The number as plain ASCII, without thousands separators: `-1234.50`.
    public var description: String {
        (isNegative ? "-" : "") + integerDigits + (fractionDigits.isEmpty ? "" : "." + fractionDigits)
    }

    /// The integer part when it is at most `Verbalizer.largestSpokenInteger`.
    ///
    /// - Throws: `VerbalizationError.numberOutOfRange` otherwise.
    func spokenInteger() throws(VerbalizationError) -> Int {
        guard let value = integerValue, value <= Verbalizer.largestSpokenInteger else {
            throw .numberOutOfRange(description, maximum: Verbalizer.largestSpokenInteger)
        }
        return value
    }
}
