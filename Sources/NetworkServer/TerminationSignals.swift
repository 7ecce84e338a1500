// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a server process stops: SIGINT (Ctrl-C) or SIGTERM (systemd, a script) closes its servers, so that the
/// connections end, the jobs running finish, and the servers' temporary files and Unix sockets are removed; a second
/// signal while they close ends the process at once.
///
/// ```swift
/// TerminationSignals.block()              // before any server starts a thread
/// let server = try WyomingServer.start(…)
/// TerminationSignals.wait()
/// try server.close()
/// ```
public enum TerminationSignals {
    private static let signals = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM in this thread and in every thread started from now on, so that `wait()` receives
    /// them. Their default action is restored first: a parent may have started the process with them ignored
    /// (Foundation's `Process` passes on its threads' signal mask and dispositions).
    public static func block() {
        var set = signalSet()
        for number in signals { signal(number, SIG_DFL) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for SIGINT or SIGTERM, then unblocks them in this thread, so that another ends the process.
    ///
    /// - Returns: the signal received.
    @discardableResult
    public static func wait() -> Int32 {
        var set = signalSet()
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return received
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}
