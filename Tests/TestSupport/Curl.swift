// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// Runs curl with `arguments` (`-sS` and a status line added) and returns the answer's status and body.
public func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
    let marker = "\n--status:"
    let result = try requireTool("curl", package: "curl").run(["-sS", "-w", "\(marker)%{http_code}"] + arguments)
    let text = result.standardOutput
    guard let range = text.range(of: marker, options: .backwards) else {
        throw Binary.Failure(description: "curl: \(result.standardError)")
    }
    return (Int(text[range.upperBound...]) ?? 0, String(text[..<range.lowerBound]))
}
