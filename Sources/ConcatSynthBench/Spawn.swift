// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How one child process ran: its wall time and peak resident memory.
struct ProcessRun {
    var seconds: Double
    var status: Int32
    /// `ru_maxrss` of the child, in bytes.
    var peakResidentBytes: Int
    /// The child's user and system CPU time: what it cost, whatever else the machine was running.
    var cpuSeconds: Double
}

/// A failure to run an outside program, or one that exited non-zero.
struct BenchError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `executable` with `arguments` and waits for it, standard input and output on /dev/null (standard error
/// too unless `showingErrors`), timed from just before the spawn to the child's exit.
///
/// No shell and no Foundation `Process` in between, so the time is the program's own.
func spawnAndWait(_ executable: String, _ arguments: [String], showingErrors: Bool = false) throws -> ProcessRun {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    if !showingErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = now()
    let status = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
    guard status == 0 else {
        throw BenchError(description: "cannot run \(executable): \(String(cString: strerror(status)))")
    }
    var exitStatus: Int32 = 0
    var usage = rusage()
    while wait4(pid, &exitStatus, 0, &usage) < 0 {
        guard errno == EINTR else {
            throw BenchError(description: "wait4 for \(executable): \(String(cString: strerror(errno)))")
        }
    }
    let elapsed = now() - start
    // WEXITSTATUS / WIFEXITED are macros Swift cannot import.
    let exited = exitStatus & 0x7f == 0
    return ProcessRun(
        seconds: elapsed, status: exited ? (exitStatus >> 8) & 0xff : 128 + (exitStatus & 0x7f),
        peakResidentBytes: Int(usage.ru_maxrss) * 1024,
        cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6)
}

/// Runs a program to its end and fails when it exits non-zero.
@discardableResult
func runChecked(_ executable: String, _ arguments: [String]) throws -> ProcessRun {
    let result = try spawnAndWait(executable, arguments, showingErrors: true)
    guard result.status == 0 else {
        throw BenchError(description: "\(executable) \(arguments.joined(separator: " ")) exited \(result.status)")
    }
    return result
}

/// The full path of `program` on `PATH`, or `nil` when it is not installed.
func which(_ program: String) -> String? {
    guard let path = getenv("PATH").map({ String(cString: $0) }) else { return nil }
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(program)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

func fflushStandardOutput() { fflush(nil) }

/// Runs a program to its end and returns its standard output; fails when it exits non-zero.
func capture(work: WorkDirectory, _ executable: String, _ arguments: [String]) throws -> String {
    let output = work.file("captured.txt")
    let pid = try spawnBackground(executable, arguments, standardOutput: output)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else {
        throw BenchError(description: "\(executable) \(arguments.joined(separator: " ")) failed (status \(status))")
    }
    return try readText(output)
}

/// Starts a program without waiting; standard input from /dev/null, the outputs to the files given (else
/// standard output to /dev/null and standard error shown).
func spawnBackground(
    _ executable: String, _ arguments: [String], standardOutput: String? = nil, standardError: String? = nil
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
        &actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if let standardError {
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
    guard status == 0 else {
        throw BenchError(description: "cannot run \(executable): \(String(cString: strerror(status)))")
    }
    return pid
}

/// tools/python-env's interpreter, with the real clients the server items drive the servers with.
func pythonEnvironment(work: WorkDirectory) throws -> String {
    let printed = try capture(work: work, Locations.repository + "/tools/python-env", [])
    guard let python = printed.split(separator: "\n").last.map(String.init) else {
        throw BenchError(description: "tools/python-env printed no interpreter")
    }
    return python
}

/// A `concat-synth serve` of the release build, stopped when released.
final class ServeProcess {
    let pid: pid_t
    /// What follows `readyPrefix` in the line that said the server listens.
    let address: String

    /// Starts `concat-synth serve` with `arguments`, its standard error to `log`, and waits up to 10 s for a line that
    /// starts with `readyPrefix`.
    init(_ arguments: [String], log: String, readyPrefix: String) throws {
        pid = try spawnBackground(Locations.binaries + "/concat-synth", ["serve"] + arguments, standardError: log)
        var address: String?
        for _ in 0..<200 where address == nil {
            usleep(50_000)
            address = (try? readText(log))?.split(separator: "\n").first { $0.hasPrefix(readyPrefix) }
                .map { String($0.dropFirst(readyPrefix.count)) }
        }
        guard let address else {
            Self.stop(pid)
            throw BenchError(description: "concat-synth serve did not start: \(log)")
        }
        self.address = address
    }

    private static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    deinit { Self.stop(pid) }
}
