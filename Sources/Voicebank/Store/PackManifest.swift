// SPDX-License-Identifier: GPL-3.0-or-later
/// What a pack says of itself when it is shared: its name and version, who recorded it and under which license,
/// and the speaker's consent. Stored in the pack's `manifest` table, one row a key; every key may be missing.
///
/// Values are checked when they are set (`checked(_:for:)`), and again when a pack is published or installed
/// (`check()`): a pack from someone else may hold anything.
public struct PackManifest: Equatable, Sendable {
    /// The keys a manifest has, in the order `voicebank manifest` shows them.
    public enum Key: String, CaseIterable, Sendable {
        case name, version, description, languages, author, speaker, consent, license, attribution
        /// The voices the attribution concerns (identifiers, separated by commas); absent, every voice of the pack.
        case attributionVoices = "attribution-voices"
        case url, date, sample
    }

    /// The values, as stored.
    public private(set) var values: [Key: String]

    public init(_ values: [Key: String] = [:]) { self.values = values }

    public subscript(key: Key) -> String? { values[key] }

    /// The pack's name: also the name of its file once installed (`NAME.sqlite`).
    public var name: String? { values[.name] }
    /// The pack's version, when it parses as a semantic version.
    public var version: SemanticVersion? { values[.version].flatMap(SemanticVersion.init) }

    /// Whom to credit for the voice `identifier`: the attribution, when `attribution-voices` names the voice or is not
    /// set (a manifest made before that key concerns every voice).
    public func attribution(ofVoice identifier: String) -> String? {
        guard let voices = values[.attributionVoices] else { return values[.attribution] }
        let named = voices.split(separator: ",").map { String($0).trimmingSpaces }
        return named.contains(identifier) ? values[.attribution] : nil
    }

    /// The longest value a key may hold, in characters: room for a consent statement of a few pages.
    public static let maximumValueLength = 16_384

    /// A pack's name as its installed file is named: lowercase ASCII letters, digits, `.`, `_` and `-`, up to 64,
    /// starting with a letter or digit (so never `.` or `..`).
    public static func isPackName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let isLetterOrDigit = { (byte: UInt8) in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        guard let first = bytes.first, bytes.count <= 64, isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { isLetterOrDigit($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
    }
}

/// A version as Semantic Versioning 2.0.0 writes it (`1.4.0`, `2.0.0-rc.1+build.5`), ordered by its precedence.
public struct SemanticVersion: Comparable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int
    /// The dot-separated identifiers after `-`; a version with some comes before the same version without.
    public var preRelease: [String]
    /// The identifiers after `+`, which precedence ignores.
    public var build: [String]

    /// Parses `text`; `nil` unless it is a semantic version.
    public init?(_ text: String) {
        var rest = Substring(text)
        build = []
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false).map(
                String.init)
            rest = rest[..<plus]
            guard build.allSatisfy(Self.isIdentifier) else { return nil }
        }
        preRelease = []
        if let minus = rest.firstIndex(of: "-") {
            preRelease = rest[rest.index(after: minus)...].split(separator: ".", omittingEmptySubsequences: false).map(
                String.init)
            rest = rest[..<minus]
            guard preRelease.allSatisfy({ Self.isIdentifier($0) && (!Self.isNumeric($0) || Self.isNumber($0)) })
            else { return nil }
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard numbers.count == 3, numbers.allSatisfy(Self.isNumber), let major = Int(numbers[0]),
            let minor = Int(numbers[1]), let patch = Int(numbers[2])
        else { return nil }
        (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    public var description: String {
        "\(major).\(minor).\(patch)" + (preRelease.isEmpty ? "" : "-" + preRelease.joined(separator: "."))
            + (build.isEmpty ? "" : "+" + build.joined(separator: "."))
    }

    /// Precedence, as Semantic Versioning's section 11 orders versions; the build is ignored.
    public static func < (left: Self, right: Self) -> Bool {
        if (left.major, left.minor, left.patch) != (right.major, right.minor, right.patch) {
            return (left.major, left.minor, left.patch) < (right.major, right.minor, right.patch)
        }
        switch (left.preRelease.isEmpty, right.preRelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): break
        }
        for (a, b) in zip(left.preRelease, right.preRelease) where a != b {
            switch (Int(a), Int(b)) {
            case (let x?, let y?) where isNumeric(a) && isNumeric(b): return x < y
            case (_?, nil) where isNumeric(a): return true
            case (nil, _?) where isNumeric(b): return false
            default: return a < b
            }
        }
        return left.preRelease.count < right.preRelease.count
    }

    /// Equal precedence: the build is ignored, as `<` ignores it.
    public static func == (left: Self, right: Self) -> Bool { !(left < right) && !(right < left) }

    private static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
            }
    }

    private static func isNumeric(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// Digits with no leading zero, that fit an `Int`.
    private static func isNumber(_ text: String) -> Bool {
        isNumeric(text) && (text == "0" || !text.hasPrefix("0")) && Int(text) != nil
    }
}

/// SPDX license expressions (SPDX 2.3, Annex D): license identifiers, `+`, `LicenseRef-…`, `WITH` an exception,
/// `AND`, `OR` and parentheses. The identifiers are checked for their form, not looked up in the SPDX license list,
/// which grows every few months: a misspelt identifier of the right form passes.
public enum SPDXExpression {
    public struct SyntaxError: Error, Equatable {
        /// What is wrong, such as `unexpected "license" after "MIT"`.
        public var reason: String
    }

    /// `text` with single spaces between its words and none inside parentheses.
    ///
    /// - Throws: `SyntaxError` when `text` is not an expression.
    public static func normalized(_ text: String) throws(SyntaxError) -> String {
        var parser = Parser(tokens: try tokens(text))
        try parser.expression()
        if let extra = parser.peek {
            throw SyntaxError(reason: "unexpected \"\(extra)\"" + (parser.previous.map { " after \"\($0)\"" } ?? ""))
        }
        var normalized = ""
        for (index, token) in parser.tokens.enumerated() {
            let isTight = token == ")" || (index > 0 && parser.tokens[index - 1] == "(")
            if index > 0 && !isTight { normalized += " " }
            normalized += token
        }
        return normalized
    }

    private static func tokens(_ text: String) throws(SyntaxError) -> [String] {
        var tokens: [String] = []
        var word = ""
        for character in text {
            if character == "(" || character == ")" || character.isWhitespace {
                if !word.isEmpty { tokens.append(word) }
                word = ""
                if !character.isWhitespace { tokens.append(String(character)) }
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { tokens.append(word) }
        guard !tokens.isEmpty else { throw SyntaxError(reason: "it is empty") }
        return tokens
    }

    /// Recursive descent over `or-expression := and-expression ("OR" and-expression)*`,
    /// `and-expression := term ("AND" term)*`, `term := "(" or-expression ")" | simple ["WITH" exception]`.
    private struct Parser {
        let tokens: [String]
        var position = 0

        init(tokens: [String]) { self.tokens = tokens }

        var peek: String? { position < tokens.count ? tokens[position] : nil }
        var previous: String? { position > 0 ? tokens[position - 1] : nil }

        mutating func expression() throws(SyntaxError) {
            try conjunction()
            while peek == "OR" {
                position += 1
                try conjunction()
            }
        }

        mutating func conjunction() throws(SyntaxError) {
            try term()
            while peek == "AND" {
                position += 1
                try term()
            }
        }

        mutating func term() throws(SyntaxError) {
            guard let token = peek else {
                throw SyntaxError(
                    reason: "it ends" + (previous.map { " after \"\($0)\"" } ?? "") + ", expected a license")
            }
            position += 1
            if token == "(" {
                try expression()
                guard peek == ")" else {
                    throw SyntaxError(reason: peek.map { "expected \")\" before \"\($0)\"" } ?? "a \"(\" is not closed")
                }
                position += 1
                return
            }
            guard Self.isLicense(token) else { throw SyntaxError(reason: Self.notALicense(token)) }
            if peek == "WITH" {
                position += 1
                guard let exception = peek else {
                    throw SyntaxError(reason: "it ends after \"WITH\", expected an exception")
                }
                guard Self.isIdentifier(exception) else { throw SyntaxError(reason: Self.notALicense(exception)) }
                position += 1
            }
        }

        /// A license identifier (optionally with `+`), `LicenseRef-…` or `DocumentRef-…:LicenseRef-…`.
        static func isLicense(_ token: String) -> Bool {
            if ["AND", "OR", "WITH"].contains(token) { return false }
            // SPDX's words for "no license" and "not said": not a license a pack can be shared under.
            if ["NONE", "NOASSERTION"].contains(token.uppercased()) { return false }
            var identifier = Substring(token)
            if identifier.hasPrefix("DocumentRef-"), let colon = identifier.firstIndex(of: ":") {
                guard isIdentifier(identifier[identifier.index(identifier.startIndex, offsetBy: 12)..<colon]) else {
                    return false
                }
                identifier = identifier[identifier.index(after: colon)...]
                return identifier.hasPrefix("LicenseRef-") && isIdentifier(identifier.dropFirst(11))
            }
            if identifier.hasPrefix("LicenseRef-") { return isIdentifier(identifier.dropFirst(11)) }
            if identifier.hasSuffix("+") { identifier = identifier.dropLast() }
            return isIdentifier(identifier)
        }

        /// SPDX's `idstring`: letters, digits, `-` and `.`.
        static func isIdentifier<Text: StringProtocol>(_ text: Text) -> Bool {
            !text.isEmpty
                && text.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == 0x2D || $0 == 0x2E
                }
        }

        static func notALicense(_ token: String) -> String {
            switch token {
            case "AND", "OR", "WITH", ")": "expected a license where \"\(token)\" is"
            case _ where ["NONE", "NOASSERTION"].contains(token.uppercased()):
                "\"\(token)\" says there is no license"
            default: "\"\(token)\" is not a license identifier (letters, digits, '-' and '.')"
            }
        }
    }
}

extension VoicePack {
    /// The pack's manifest as stored, unchecked (`PackManifest.check()` checks it); a value longer than
    /// `PackManifest.maximumValueLength` is cut there, and a key this version does not know is left out.
    public func manifest() throws(VoicebankError) -> PackManifest {
        let statement = try database.prepare(
            "SELECT key, substr(value, 1, \(PackManifest.maximumValueLength)) FROM manifest WHERE typeof(value) = 'text'"
        )
        var values: [PackManifest.Key: String] = [:]
        while try statement.step() {
            if let key = PackManifest.Key(rawValue: statement.text(0)) { values[key] = statement.text(1) }
        }
        return PackManifest(values)
    }
}
