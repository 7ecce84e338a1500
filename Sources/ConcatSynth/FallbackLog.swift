// SPDX-License-Identifier: GPL-3.0-or-later
/// Words that fell back while a request rendered: `--strict`'s record when no first pass checked the request, for a
/// caller that can still take its output back.
public final class FallbackLog {
    /// The starting voice, for the error.
    public let voice: String
    public private(set) var words: [String] = []

    public init(voice: String) { self.voice = voice }

    /// Notes the words of a fallback; ignores warnings.
    public func record(_ note: PlanNote) {
        if case .fallback(let words, _) = note { self.words.append(words) }
    }

    /// The `--strict` failure for the words gathered so far, if any.
    public var strictError: ConcatSynthError? {
        words.isEmpty ? nil : .fallbackInStrictMode(voice: voice, words: words)
    }
}
