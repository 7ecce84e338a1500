// SPDX-License-Identifier: GPL-3.0-or-later
import SSML

/// Plain text read a piece at a time from any reader (a file, a socket), for `SpeechRequest.Content.textStream`:
/// spoken as it is read, so memory stays small however long the text is.
public final class StreamedText {
    let plain: PlainTextStream

    /// - Parameters:
    ///   - source: what errors call the input: a path, or "standard input".
    ///   - read: the next bytes of the input, UTF-8; empty at its end. What it throws fails the request
    ///     (`ConcatSynthError.request`) with the error's description.
    public convenience init(source: String, read: @escaping () throws -> [UInt8]) {
        self.init(PlainTextStream(source: source, read: read))
    }

    package init(_ plain: PlainTextStream) { self.plain = plain }

    /// What errors call the input.
    public var source: String { plain.source }
}
