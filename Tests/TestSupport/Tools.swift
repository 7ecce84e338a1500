// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The installed program `name` that a test runs, from the Debian package `package` (tools/install-dependencies
/// installs them all).
///
/// ```swift
/// let sox = try requireTool("sox", package: "sox")
/// ```
///
/// - Throws: `Binary.Failure`, one line naming the program and the package that brings it, when it is not installed.
public func requireTool(_ name: String, package: String) throws -> Binary {
    let path = "/usr/bin/\(name)"
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw Binary.Failure(
            description: "\(name) is not installed (\(path)); it comes with the Debian package \(package): "
                + "apt-get install \(package), or tools/install-dependencies")
    }
    return Binary(path: path)
}

/// A random number generator that gives the same numbers for the same seed (SplitMix64), so that a test which picks
/// moments or values at random picks the same ones on every run, and a failure can be run again.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
