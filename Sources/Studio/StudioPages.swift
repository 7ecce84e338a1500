// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The pages open on a studio, and which of them records: the newest. Each page load registers (`POST /api/pages`)
/// and gets a number; a change that names an older page's number is refused, so that two pages on one pack do not
/// record over each other's takes. The older page says so, and offers to record there again, which registers it anew.
///
/// A request that names no page (curl, a script, the benchmark) is not a page's, and is taken as before.
struct StudioPages: Sendable {
    /// The number of the page opened last, which records; 0 before any.
    private(set) var active = 0
    /// When it was opened, in the studio's local time, as the older pages show it: `12:03:11`.
    private(set) var since = ""

    /// A page opened: it records from now on.
    mutating func open(at time: time_t = time(nil)) -> StudioPage {
        active += 1
        since = Self.clockTime(time)
        return StudioPage(id: active, since: since)
    }

    /// Checks that a change comes from the page that records, or from no page.
    ///
    /// - Parameter page: the request's `X-Studio-Page` header.
    /// - Throws: `StudioError.anotherPage` for an older page, `.unknownPage` for a number no page was given.
    func check(_ page: String?) throws(StudioError) {
        guard let page else { return }
        guard let number = Int(page), number >= 1, number <= active else { throw .unknownPage(id: page) }
        guard number == active else { throw .anotherPage(since: since) }
    }

    /// `12:03:11`.
    static func clockTime(_ time: time_t) -> String {
        var seconds = time
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "?" }
        let two = { (value: Int32) in value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}

/// A page registered with the studio: its number, which it sends as `X-Studio-Page` with each change, and when it
/// became the page that records.
struct StudioPage: Encodable, Sendable, Equatable {
    var id: Int
    var since: String
}
