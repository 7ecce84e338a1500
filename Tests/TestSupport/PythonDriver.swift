// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A test's Python side: a driver script of the source tree, run with tools/python-env's interpreter (the real
/// clients from PyPI at pinned versions), that prints one JSON object.
public struct PythonDriver: Sendable {
    /// The package's folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Made once per test run; the first run installs the pinned packages from PyPI.
    public static let python: Result<String, Binary.Failure> = {
        do {
            let result = try Binary(path: "\(root)/tools/python-env").run([])
            guard result.status == 0 else {
                return .failure(Binary.Failure(description: "tools/python-env failed: \(result.standardError)"))
            }
            return .success(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            return .failure(Binary.Failure(description: "tools/python-env: \(error)"))
        }
    }()

    /// The script's path.
    public let script: String

    /// The script at `path` below the package's folder.
    public init(_ path: String) { script = "\(Self.root)/\(path)" }

    /// Runs the script with `arguments` and returns the JSON object it prints.
    public func run(_ arguments: [String], input: Data = Data()) throws -> [String: Any] {
        let result = try Binary(path: Self.python.get()).run([script] + arguments, input: input)
        guard result.status == 0 else {
            throw Binary.Failure(description: "\(script) exited \(result.status): \(result.standardError)")
        }
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutputBytes))
        guard let dictionary = object as? [String: Any] else {
            throw Binary.Failure(description: "\(script) printed no JSON object: \(result.standardOutput)")
        }
        return dictionary
    }
}
