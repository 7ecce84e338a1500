// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A fresh directory under the system's temporary folder, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "concat-synth") {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/\(label)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }
}
