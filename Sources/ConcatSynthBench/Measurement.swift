// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Repeated measurements of one quantity, summarised as a median and a min–max range.
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    mutating func append(_ value: Double) { values.append(value) }

    var isEmpty: Bool { values.isEmpty }
    var count: Int { values.count }

    var median: Double {
        precondition(!values.isEmpty, "the median of no samples")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var min: Double { values.min()! }
    var max: Double { values.max()! }
}

/// A point on the monotonic clock, in seconds.
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Seconds `body` takes.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// The calling thread's CPU seconds: on a machine shared with other work, what a computation costs, where the
/// wall clock also counts the time other processes had the core.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// CPU seconds the calling thread spends in `body`.
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = threadCPUTime()
    try body()
    return threadCPUTime() - start
}

/// How a figure is written in the table: a unit and a scale from the measured value.
enum Unit {
    case milliseconds, microseconds, megabytes, timesRealtime

    func format(_ value: Double) -> String {
        switch self {
        case .milliseconds: return decimal(value * 1e3, places: value * 1e3 < 10 ? 2 : 1)
        case .microseconds: return decimal(value * 1e6, places: value * 1e6 < 100 ? 1 : 0)
        case .megabytes: return decimal(value, places: 1)
        case .timesRealtime: return decimal(value, places: value < 100 ? 1 : 0)
        }
    }

    /// `median (min–max)`, or `n/a` when nothing was measured.
    func summary(_ samples: Samples?) -> String {
        guard let samples, !samples.isEmpty else { return "n/a" }
        if samples.count == 1 { return format(samples.median) }
        return "\(format(samples.median)) (\(format(samples.min))–\(format(samples.max)))"
    }
}

/// A ratio as `0.42x`, `n/a` when either side is missing.
func ratio(_ value: Samples?, _ anchor: Samples?) -> Double? {
    guard let value, let anchor, !value.isEmpty, !anchor.isEmpty, anchor.median > 0 else { return nil }
    return value.median / anchor.median
}

func formatRatio(_ ratio: Double?) -> String {
    ratio.map { "\(decimal($0, places: 2))x" } ?? "n/a"
}
