#if canImport(FoundationEssentials)
    // JSONEncoder without the rest of Foundation (ICU), which would slow every command's start.
    import FoundationEssentials
#else
    import Foundation
#endif

/// Prints `value` as the tools' `--json` output: pretty-printed, keys sorted, slashes unescaped.
public func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
