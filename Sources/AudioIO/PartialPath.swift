// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hidden name a file has until it is whole: `folder/.name.partial-PID` for `folder/name`. A `PendingFile` has it
/// only for the instant between linking its unnamed file and renaming it into place, or all along where the file
/// system refuses unnamed files; a folder being filled (an export) has it all along.
///
/// While one exists it is tracked, so that `PartialPath.removeOnSignals` can remove it when a signal ends the
/// process; a name left by a process that could not remove it (SIGKILL, a crash, a power cut) is removed by
/// `removeAbandoned(beside:)`. The owner creates the file, renames it into place or removes it, then drops this.
///
/// ```swift
/// let partial = PartialPath(for: "out.wav")   // .out.wav.partial-4242
/// ```
public final class PartialPath {
    public let path: String
    public let temporaryPath: String
    private let slot: Int?

    public init(for path: String) {
        self.path = path
        temporaryPath = Self.temporaryPath(for: path)
        slot = PartialPathTable.track(temporaryPath)
    }

    /// This process's hidden name for `path`, untracked: for what a signal handler cannot remove (a folder being
    /// filled), which `abandoned(beside:)` finds once its process is gone.
    public static func temporaryPath(for path: String) -> String {
        let (directory, name) = split(path)
        return "\(directory)\(prefix(of: name))\(getpid())"
    }

    deinit { PartialPathTable.untrack(slot) }

    /// Removes the hidden files `.name.partial-PID` beside each of `paths` whose process no longer exists: a render
    /// killed with SIGKILL, which no handler sees, leaves one behind. A name whose process still runs (or runs under
    /// another user) is kept: it may be a render writing it now.
    ///
    /// Costs a listing of each folder, once however many of `paths` are in it: time in proportion to the files the
    /// folder holds.
    public static func removeAbandoned(beside paths: [String]) {
        for abandoned in abandoned(beside: paths) { unlink(abandoned) }
    }

    /// The hidden names `.name.partial-PID` beside each of `paths` whose process no longer exists (see
    /// `removeAbandoned(beside:)`), as paths.
    public static func abandoned(beside paths: [String]) -> [String] {
        var prefixesByDirectory: [String: [String]] = [:]
        for path in paths {
            let (directory, name) = split(path)
            prefixesByDirectory[directory, default: []].append(prefix(of: name))
        }
        var found: [String] = []
        for (directory, prefixes) in prefixesByDirectory {
            guard let folder = opendir(directory.isEmpty ? "." : directory) else { continue }
            defer { closedir(folder) }
            while let entry = readdir(folder) {
                // Most entries are not hidden: skip them before making a string of their name.
                guard entry.pointee.d_name.0 == CChar(UInt8(ascii: ".")) else { continue }
                let entryName = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let prefix = prefixes.first(where: { entryName.hasPrefix($0) }) else { continue }
                let digits = entryName.dropFirst(prefix.count)
                // Only a plain positive PID: kill(0) and kill(-1) would ask about whole process groups.
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let processID = Int32(digits), processID > 0, processID != getpid()
                else { continue }
                if kill(processID, 0) == -1 && errno == ESRCH { found.append(directory + entryName) }
            }
        }
        return found
    }

    /// Makes SIGINT, SIGTERM and SIGHUP (and SIGPIPE with `brokenPipe`) remove every partial file this process is
    /// writing and then end the process by that signal, so the shell reports 128 + its number (130 for Ctrl-C)
    /// and a shell loop stops on Ctrl-C as it should. A signal the parent set to be ignored (`nohup`) stays ignored.
    /// SIGKILL cannot be caught: what it leaves, the next `removeAbandoned(beside:)` removes. An unnamed file
    /// (`PendingFile`) needs no removing.
    public static func removeOnSignals(brokenPipe: Bool) {
        PartialPathTable.prepare()
        let signals = [SIGINT, SIGTERM, SIGHUP] + (brokenPipe ? [SIGPIPE] : [])
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { removeTrackedFilesAndEnd(by: $0) }
        #else
            action.__sigaction_u.__sa_handler = { removeTrackedFilesAndEnd(by: $0) }
        #endif
        sigemptyset(&action.sa_mask)
        for signal in signals { sigaddset(&action.sa_mask, signal) }
        action.sa_flags = 0
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals {
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            #if canImport(Glibc)
                let handler = previous.__sigaction_handler.sa_handler
            #else
                let handler = previous.__sigaction_u.__sa_handler
            #endif
            // C function pointers do not compare in Swift; SIG_IGN is a constant address.
            guard unsafeBitCast(handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else { continue }
            sigaction(signal, &action, nil)
            sigaddset(&unblocked, signal)
        }
        // A parent may start the process with these blocked (Foundation's Process blocks SIGINT); they must still end it.
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// `folder/` (or empty) and the file's name.
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    private static func prefix(of name: String) -> String { ".\(name).partial-" }
}

/// The partial files being written, as C strings a signal handler can pass to `unlink` (which is
/// async-signal-safe) without allocating or locking. A fixed number of slots: a process writing more files at
/// once than that leaves the rest uncovered, which only a signal would show.
private enum PartialPathTable {
    static let capacity = 16
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<Atomic<UnsafeMutablePointer<CChar>?>> = {
        let slots = UnsafeMutablePointer<Atomic<UnsafeMutablePointer<CChar>?>>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Atomic(nil)) }
        return slots
    }()

    /// Initialises the table before a handler can read it: a lazy global's first use is not async-signal-safe.
    static func prepare() { _ = slots }

    static func track(_ path: String) -> Int? {
        guard let copy = strdup(path) else { return nil }
        for index in 0..<capacity {
            if slots[index].compareExchange(expected: nil, desired: copy, ordering: .acquiringAndReleasing).exchanged {
                return index
            }
        }
        free(copy)
        return nil
    }

    static func untrack(_ slot: Int?) {
        guard let slot, let copy = slots[slot].exchange(nil, ordering: .acquiringAndReleasing) else { return }
        free(copy)
    }

    /// Every tracked path, for the signal handler.
    static func removeAll() {
        for index in 0..<capacity {
            if let path = slots[index].load(ordering: .acquiring) { unlink(path) }
        }
    }
}

/// The signal handler: removes the partial files, then lets the signal end the process with its default action
/// (it is delivered once the handler returns, as the handler blocks it).
private func removeTrackedFilesAndEnd(by signal: Int32) {
    PartialPathTable.removeAll()
    #if canImport(Glibc)
        Glibc.signal(signal, SIG_DFL)
    #else
        Darwin.signal(signal, SIG_DFL)
    #endif
    raise(signal)
}
