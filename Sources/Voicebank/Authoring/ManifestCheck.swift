// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

// A manifest's values as sharing checks them: when they are set (`voicebank manifest`), and when a pack is published
// or installed.
extension PackManifest {
    /// Checks the stored values, each as `checked(_:for:)` would.
    ///
    /// - Throws: `SharingError.invalidManifestValue` for the first value that does not parse.
    public func check() throws(SharingError) {
        for key in Key.allCases {
            if let value = values[key] { _ = try Self.checked(value, for: key) }
        }
    }

    /// `value` as `key` stores it: checked, and written the one way (language tags in their customary case, an
    /// SPDX expression with single spaces).
    ///
    /// - Throws: `SharingError.invalidManifestValue` naming the key, the value and what would be accepted.
    public static func checked(_ value: String, for key: Key) throws(SharingError) -> String {
        let invalid = { (expected: String) in
            SharingError.invalidManifestValue(key: key.rawValue, value: value, expected: expected)
        }
        let text = value.trimmingSpaces
        guard !text.isEmpty else { throw .emptyManifestValue(key: key.rawValue) }
        guard text.count <= maximumValueLength else { throw invalid("at most \(maximumValueLength) characters") }
        switch key {
        case .name:
            guard isPackName(text) else {
                throw invalid(
                    "1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, such as my-voice (it names the installed file)"
                )
            }
            return text
        case .version:
            guard SemanticVersion(text) != nil else {
                throw invalid("a semantic version MAJOR.MINOR.PATCH such as 1.0.0 or 2.1.0-beta.1")
            }
            return text
        case .languages:
            var tags: [String] = []
            for tag in text.split(separator: ",").map({ String($0).trimmingSpaces }) {
                do throws(VoicebankError) {
                    tags.append(try Voice.canonicalLanguageTag(tag))
                } catch {
                    throw invalid(
                        "BCP 47 language tags separated by commas, such as en-US,ja-JP (\"\(tag)\" is not one)")
                }
            }
            guard !tags.isEmpty else { throw invalid("BCP 47 language tags separated by commas, such as en-US,ja-JP") }
            return tags.uniqued.joined(separator: ",")
        case .license:
            do throws(SPDXExpression.SyntaxError) {
                return try SPDXExpression.normalized(text)
            } catch {
                throw invalid(
                    "an SPDX license expression such as CC-BY-4.0, MIT OR Apache-2.0, or LicenseRef-my-terms (\(error.reason))"
                )
            }
        case .attributionVoices:
            let identifiers = text.split(separator: ",", omittingEmptySubsequences: false).map {
                String($0).trimmingSpaces
            }
            guard identifiers.allSatisfy(Voice.isReverseDNS) else {
                throw invalid(
                    "voice identifiers separated by commas, such as com.example.ann,com.example.ann.whisper")
            }
            return identifiers.uniqued.joined(separator: ",")
        case .url:
            let isWeb = text.hasPrefix("https://") || text.hasPrefix("http://")
            guard isWeb, text.count > 8, text.count <= 2048, !text.unicodeScalars.contains(where: isSpaceOrControl)
            else { throw invalid("an http:// or https:// address with no spaces, such as https://example.org/voice") }
            return text
        case .date:
            guard isCalendarDate(text) else { throw invalid("a date YYYY-MM-DD such as 2026-11-25") }
            return text
        case .description, .consent:
            guard !text.unicodeScalars.contains(where: { $0 != "\n" && $0.isUnprintable }) else {
                throw invalid("text without control characters (line breaks are allowed)")
            }
            return text
        case .author, .speaker, .attribution, .sample:
            guard !text.unicodeScalars.contains(where: \.isUnprintable) else {
                throw invalid("one line of text without control characters")
            }
            return text
        }
    }

    private static func isSpaceOrControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isUnprintable || scalar.properties.isWhitespace
    }

    /// `YYYY-MM-DD`, a day that exists in the proleptic Gregorian calendar.
    private static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}
