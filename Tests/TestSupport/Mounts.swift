// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A file system a test mounts for itself (a small tmpfs, a read-only view of a folder) and unmounts when released.
///
/// Mounting needs root (tests run as root in CI); where it is not permitted, the initialisers return `nil` and print
/// a notice, and the test skips what needs the mount.
public final class ScratchMount: @unchecked Sendable {
    /// The mount point.
    public let path: String
    private var isMounted = true
    /// The process serving a FUSE file system, which ends at the unmount.
    private var daemon: Process?

    private init(path: String) { self.path = path }

    deinit { unmount() }

    /// A tmpfs of `byteCount` bytes, mounted on a fresh folder inside `directory`.
    public static func tmpfs(byteCount: Int, in directory: TemporaryDirectory, label: String = #function)
        -> ScratchMount?
    {
        let point = directory.file("tmpfs")
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard run(["-t", "tmpfs", "-o", "size=\(byteCount)", "tmpfs", point], label: label) else { return nil }
        return ScratchMount(path: point)
    }

    /// `folder` seen through a read-only bind mount on a fresh folder inside `directory`: writes there fail with EROFS,
    /// also for root, whom file permissions do not stop.
    public static func readOnlyView(
        of folder: String, in directory: TemporaryDirectory, label: String = #function
    ) -> ScratchMount? {
        let point = directory.file("read-only")
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard run(["--bind", folder, point], label: label) else { return nil }
        let view = ScratchMount(path: point)
        guard run(["-o", "remount,bind,ro", point], label: label) else { return nil }
        return view
    }

    /// `folder` seen through bindfs, a FUSE file system, on a fresh folder inside `directory`. Debian 12's libfuse
    /// (3.14) answers no tmpfile request, so there `open` with `O_TMPFILE` fails with EOPNOTSUPP, as on NFS: a real
    /// file system that refuses unnamed files. `nil`, with a notice, where bindfs is missing or cannot mount.
    public static func fuseView(of folder: String, in directory: TemporaryDirectory, label: String = #function)
        -> ScratchMount?
    {
        let point = directory.file("fuse")
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        // In the foreground (-f), as this process's child: a daemon left behind would hold the pipe through which
        // Foundation learns that a child ended, and waiting for the mount command would never end.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/bindfs")
        daemon.arguments = ["-f", folder, point]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        do { try daemon.run() } catch {
            print("notice: \(label) skipped: cannot run bindfs: \(error)")
            return nil
        }
        let mount = ScratchMount(path: point)
        mount.daemon = daemon
        // Mounted once the point's device is no longer its parent folder's.
        var parent = stat()
        var status = stat()
        let deadline = Date().addingTimeInterval(10)
        while stat(directory.path, &parent) == 0, stat(point, &status) == 0, status.st_dev == parent.st_dev {
            guard daemon.isRunning, Date() < deadline else {
                print(
                    "notice: \(label) skipped: bindfs \(folder) \(point) did not mount; run the tests as root to cover it"
                )
                return nil
            }
            usleep(5_000)
        }
        return mount
    }

    /// Unmounts now; released values unmount themselves.
    public func unmount() {
        guard isMounted else { return }
        isMounted = false
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        // Lazy: a file a failed test left open must not keep the mount (and the test's folder) alive.
        process.arguments = ["--lazy", path]
        try? process.run()
        process.waitUntilExit()
        if let daemon {
            if daemon.isRunning { daemon.terminate() }
            daemon.waitUntilExit()
        }
    }

    private static func run(_ arguments: [String], label: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = arguments
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            print("notice: \(label) skipped: cannot run mount: \(error)")
            return false
        }
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            print(
                "notice: \(label) skipped: mount \(arguments.joined(separator: " ")) is not permitted here (\(message.trimmingCharacters(in: .whitespacesAndNewlines))); run the tests as root to cover it"
            )
            return false
        }
        return true
    }
}

/// Sets or clears a file's immutable attribute (`chattr ±i`), which stops root too; `false` where the file system
/// has no such attribute.
@discardableResult
public func setImmutable(_ path: String, _ isImmutable: Bool) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [isImmutable ? "+i" : "-i", path]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}
