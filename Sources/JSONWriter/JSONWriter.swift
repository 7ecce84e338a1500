// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(FoundationEssentials)
    // JSONEncoder without the rest of Foundation (ICU), which would slow every command's start.
    import FoundationEssentials
#else
    import Foundation
#endif

/// How the tools and the servers write JSON (`--json`, the speech API's and the studio's answers, Wyoming's events):
/// Foundation's JSONEncoder, keys sorted so that one value always gives the same bytes, slashes left as they are. The
/// markers' lines are the one exception (SpeechCore's `Marker.jsonLine` says why).
public enum JSONWriter {
    /// `value` as JSON: on one line, or `pretty`, indented for a person to read.
    ///
    /// - Throws: JSONEncoder's `EncodingError` for a value JSON cannot hold (a number that is not finite).
    public static func bytes(_ value: some Encodable, pretty: Bool = false) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        return Array(try encoder.encode(value))
    }
}
