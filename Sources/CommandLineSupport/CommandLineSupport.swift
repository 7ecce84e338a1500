// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import ConcatSynth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// No Foundation here: loading it (and ICU with it) is most of a short render's process start-up.

/// The `--bank` option every subcommand of both tools takes.
public struct BankOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The voice pack file.", valueName: "path"),
        completion: .file(extensions: ["sqlite"]))
    public var bank: String?

    public init() {}

    /// `--bank`, else `$CONCAT_SYNTH_BANK`, else the default pack.
    public var path: String { PackLocation.resolve(bank) }

    /// The sentence both tools' `--help` ends with.
    public static let discussion = """
        With no --bank, the commands use $\(PackLocation.environmentVariable) if set, else the default \
        pack (\(PackLocation.defaultPackPath)).
        """
}

/// Standard error, for reports that are not the command's output: `print("warning: …", to: &standardError)`.
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _ = try? FileDescriptor.standardError.write(UnsafeRawBufferPointer($0)) }
    }
}

/// Makes SIGINT and SIGTERM end the process, even when the parent started it with them blocked or ignored
/// (Foundation's `Process` passes on its threads' blocked signals); the threads it starts inherit this mask. The servers
/// stop on them through NetworkServer's `TerminationSignals` instead, which closes them first.
public func stopOnTerminationSignals() {
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in [SIGINT, SIGTERM] {
        sigaddset(&signals, signal)
        _ = Glibc.signal(signal, SIG_DFL)
    }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
}
