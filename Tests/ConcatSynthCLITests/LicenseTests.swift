// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// The project's license is said once in LICENSE and named by an SPDX line in every source file, so that a file
/// copied out of the repository still says under which license it came.
@Suite struct LicenseTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The kinds of file that are code: Swift, C, JavaScript, CSS, HTML, module maps, Python, and scripts.
    static func isSource(_ path: String, firstLine: String) -> Bool {
        let extensions = [".swift", ".c", ".h", ".js", ".css", ".html", ".modulemap", ".py"]
        return extensions.contains { path.hasSuffix($0) } || firstLine.hasPrefix("#!")
    }

    @Test("every source file the repository tracks names the project's license in its first lines")
    func everySourceFileHasAnSPDXLine() throws {
        let listed = try Binary(path: "/usr/bin/git").run(["-C", Self.root, "ls-files"])
        try #require(listed.status == 0, "git ls-files: \(listed.standardError)")
        var missing: [String] = []
        var checked = 0
        for path in listed.standardOutput.split(separator: "\n").map(String.init) {
            guard let data = FileManager.default.contents(atPath: "\(Self.root)/\(path)") else { continue }
            let head = String(decoding: data.prefix(400), as: UTF8.self).split(separator: "\n").prefix(3)
            guard let first = head.first, !data.contains(0), Self.isSource(path, firstLine: String(first)) else {
                continue
            }
            checked += 1
            if !head.contains(where: { $0.contains("SPDX-License-Identifier: GPL-3.0-or-later") }) {
                missing.append(path)
            }
        }
        #expect(checked > 100)
        #expect(missing.isEmpty, "no SPDX line in the first three lines of \(missing)")
        let license = try String(contentsOfFile: "\(Self.root)/LICENSE", encoding: .utf8)
        #expect(license.contains("GNU GENERAL PUBLIC LICENSE") && license.contains("Version 3"))
    }
}
