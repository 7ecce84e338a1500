// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation

/// A built executable of this package, run as a person or a script would run it.
public struct Binary: Sendable {
    public let path: String

    /// The product `name` beside the test bundle (SwiftPM builds every product before it tests).
    public init(_ name: String) {
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBundle.deletingLastPathComponent()
        // On Linux the tests run as `….xctest`; on macOS from inside `….xctest/Contents/MacOS`.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        path = directory.appendingPathComponent(name).path
    }

    /// Any program, by its path: `Binary(path: "/usr/bin/groff")`.
    public init(path: String) { self.path = path }

    public struct Result: Sendable {
        public var status: Int32
        public var standardOutputBytes: [UInt8]
        public var standardError: String
        public var standardOutput: String { String(decoding: standardOutputBytes, as: UTF8.self) }
    }

    /// Runs the binary to its end with `arguments`, `environment` added to this process's (a `nil` value
    /// removes the variable; see `start` for `XDG_DATA_HOME`) and `input` on its standard input.
    @discardableResult
    public func run(
        _ arguments: [String], environment: [String: String?] = [:], input: Data = Data(),
        directory: String? = nil
    ) throws -> Result {
        let process = try start(arguments, environment: environment, directory: directory)
        let output = Pipe()
        let error = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        return Self.collect(process, output: output, error: error, input: (standardInput, input))
    }

    /// Writes `input` (when given) to a running process's standard input and reads its standard output and error,
    /// all at once, so that a child that writes while it reads (plain text is spoken as it is read) cannot stall on
    /// a full pipe; then waits for it to exit. On threads of their own: blocked on a pipe on libdispatch's global
    /// queues, they would hold up the tests that run there.
    public static func collect(
        _ process: Process, output: Pipe, error: Pipe, input: (pipe: Pipe, data: Data)? = nil
    ) -> Result {
        let written = Completion()
        startThread {
            if let input {
                input.pipe.fileHandleForWriting.write(input.data)
                try? input.pipe.fileHandleForWriting.close()
            }
            written.complete()
        }
        nonisolated(unsafe) var errorData = Data()
        let errorRead = Completion()
        startThread {
            errorData = error.fileHandleForReading.readDataToEndOfFile()
            errorRead.complete()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        written.wait()
        errorRead.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutputBytes: Array(outputData),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Runs the binary and returns its standard output as bytes; fails the caller if it exits non-zero.
    public func runData(_ arguments: [String], input: Data = Data()) throws -> Data {
        let result = try run(arguments, input: input)
        guard result.status == 0 else {
            throw Failure(description: "\(path) exited \(result.status): \(result.standardError)")
        }
        return Data(result.standardOutputBytes)
    }

    /// The folder of the test process that holds each run's data folder; removed when the test process exits.
    private static let dataHomes: String = {
        let path = "\(FileManager.default.temporaryDirectory.path)/concat-synth-data-homes-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Binary.dataHomes) }
        return path
    }()

    /// A new empty folder for one run's `XDG_DATA_HOME`.
    private static func emptyDataHome() throws -> String {
        let path = "\(dataHomes)/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// A process for the binary, not yet started; its output goes nowhere unless the caller sets it.
    ///
    /// `XDG_DATA_HOME` is an empty folder of the process's own unless `environment` names it (or removes it): the
    /// packs installed in the home of whoever runs the tests would otherwise be voices of every command.
    /// `CONCAT_SYNTH_BANK` is the tests' screen-reader pack (`ScreenReaderPack`) unless `environment` names it (or
    /// removes it, for the tests of the default pack's place): the default pack is built from recordings the tests do
    /// not need.
    /// `VOICEBANK_ALIGN` is `0` unless `environment` names it or removes it: an import aligns only when asked to.
    public func start(
        _ arguments: [String], environment: [String: String?] = [:], directory: String? = nil
    ) throws -> Process {
        let process = Process()
        // Through env, with SIGPIPE at its default as a shell starts a command: a signal ignored at exec stays
        // ignored, and this test process ignores SIGPIPE once a speech-dispatcher module has run in it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", path] + arguments
        var variables = ProcessInfo.processInfo.environment
        variables["XDG_DATA_HOME"] = try Self.emptyDataHome()
        if !environment.keys.contains("CONCAT_SYNTH_BANK") {
            variables["CONCAT_SYNTH_BANK"] = ScreenReaderPack.path
        }
        // Imports align English takes unless told not to; the tests that test alignment ask for it.
        variables["VOICEBANK_ALIGN"] = "0"
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }
}
