// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A server executable of this package running until it is released, its standard output and error collected.
public final class ServerProcess: Sendable {
    public let process: Process
    /// Where to reach it, as `address` found it in a line of its output.
    public let address: String
    private let standardOutput: CollectedOutput
    private let standardError: CollectedOutput

    /// Starts `binary` with `arguments` and waits up to 10 s for `address(line)` to find its address in a line of its
    /// standard output (`isAddressOnStandardOutput`) or error.
    ///
    /// - Parameter environment: added to this process's (`Binary.start`).
    public init(
        _ binary: Binary, _ arguments: [String], environment: [String: String?] = [:],
        isAddressOnStandardOutput: Bool = false, address: (Substring) -> String?
    ) throws {
        let (output, error) = (CollectedOutput(), CollectedOutput())
        (standardOutput, standardError) = (output, error)
        process = try binary.start(arguments, environment: environment)
        let (outputPipe, errorPipe) = (Pipe(), Pipe())
        outputPipe.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
        errorPipe.fileHandleForReading.readabilityHandler = { error.append($0.availableData) }
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        let searched = isAddressOnStandardOutput ? output : error
        var found: String?
        for _ in 0..<200 where found == nil {
            Thread.sleep(forTimeInterval: 0.05)
            found = searched.text.split(separator: "\n").lazy.compactMap(address).first
        }
        guard let found else {
            process.terminate()
            throw Binary.Failure(description: "\(binary.path) did not start: \(error.text)")
        }
        self.address = found
    }

    /// What the server wrote on standard error so far.
    public var log: String { standardError.text }
    /// What the server wrote on standard output so far.
    public var output: String { standardOutput.text }

    /// Waits up to 10 s for the server to log `text`.
    public func waitForLog(_ text: String) throws {
        for _ in 0..<200 {
            if log.contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Binary.Failure(description: "the server never logged \"\(text)\": \(log)")
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
