// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Darwin)
    @_exported import Darwin
#endif

// No Foundation in the module: it starts at every server start and after every crash, and Foundation's loading
// is most of a short process's start-up.

/// The C library's `read`, which `LineReader.readLine` hides.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Writes all of `bytes` to `descriptor`, retrying short writes.
///
/// - Throws: `SpeechServiceError.outputClosed` with the system's reason.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SpeechServiceError) {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            throw .outputClosed(reason: String(cString: strerror(errno)))
        }
        offset += written
    }
}

/// Monotonic time in nanoseconds, for the benchmark and for logs.
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
