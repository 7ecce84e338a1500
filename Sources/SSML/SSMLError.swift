// SPDX-License-Identifier: GPL-3.0-or-later
/// Why a request could not be read; every case carries the offending input and its line and column.
///
/// Lines and columns are 1-based; a column counts Unicode scalars from the start of its line (a leading
/// byte-order mark is not counted). Each description is one sentence: what failed, the input, where, and
/// what would be accepted.
public enum SSMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request is not well-formed XML (or is empty): `expected` says what would have been accepted
    /// at that point, `found` what was there instead.
    case malformed(expected: String, found: String, line: Int, column: Int)
    /// A document type declaration (`<!DOCTYPE …>`), refused in strict and lenient mode alike.
    case doctypeRefused(line: Int, column: Int)
    /// An entity reference other than the five XML built-ins (`&nbsp;`, `&xxe;`), refused in both modes;
    /// `name` is the entity name without `&` and `;`.
    case entityRefused(name: String, line: Int, column: Int)
    /// A known attribute with a value it cannot take (`<break time="fast">`); the line and column are those
    /// of the element's `<`.
    case invalidValue(element: String, attribute: String, value: String, expected: String, line: Int, column: Int)
    /// The root element is not `<speak>`; the line and column are those of its `<`.
    case unexpectedRoot(element: String, line: Int, column: Int)

    /// The 1-based line the error points at.
    public var line: Int {
        switch self {
        case .malformed(_, _, let line, _), .doctypeRefused(let line, _), .entityRefused(_, let line, _),
            .invalidValue(_, _, _, _, let line, _), .unexpectedRoot(_, let line, _):
            return line
        }
    }

    /// The 1-based column (in Unicode scalars) the error points at.
    public var column: Int {
        switch self {
        case .malformed(_, _, _, let column), .doctypeRefused(_, let column), .entityRefused(_, _, let column),
            .invalidValue(_, _, _, _, _, let column), .unexpectedRoot(_, _, let column):
            return column
        }
    }

    public var description: String {
        switch self {
        case .malformed(let expected, let found, let line, let column):
            return "malformed SSML at line \(line), column \(column): expected \(expected) but found \(found)"
        case .doctypeRefused(let line, let column):
            return "refused <!DOCTYPE> at line \(line), column \(column): document type declarations are not "
                + "accepted; expected SSML without one"
        case .entityRefused(let name, let line, let column):
            return "refused entity reference &\(name); at line \(line), column \(column): expected one of "
                + "&lt; &gt; &amp; &quot; &apos; or a character reference such as &#160;"
        case .invalidValue(let element, let attribute, let value, let expected, let line, let column):
            return "invalid <\(element) \(attribute)=\"\(value)\"> at line \(line), column \(column): "
                + "expected \(expected)"
        case .unexpectedRoot(let element, let line, let column):
            return "unexpected root element <\(element)> at line \(line), column \(column): expected <speak>"
        }
    }
}
