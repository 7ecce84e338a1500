// SPDX-License-Identifier: GPL-3.0-or-later
import JSONWriter

/// Prints `value` as the tools' `--json` output: pretty-printed, keys sorted, slashes unescaped.
public func printJSON(_ value: some Encodable) throws {
    print(String(decoding: try JSONWriter.bytes(value, pretty: true), as: UTF8.self))
}
