// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// The sentences of text that no `<s>` holds, inferred from its punctuation as SSML 1.1 (3.1.8.1) asks: each is
/// written into the sink between a `structureStart` and a `structureEnd` of kind sentence, exactly as an explicit
/// `<s>` would be, so the sink adds the same pause between them and the planner makes the same markers.
///
/// `SentenceBoundaries` says where a sentence ends. A text run is cut there: the part before the end (its terminal
/// punctuation and closers included) ends one sentence, the white space after it belongs to neither (nor does it at
/// the end of a run, while the next word is still to say whether the sentence ended), and the next sentence starts at
/// its first scalar that is not white space. An inferred sentence's source range runs from its first scalar to its
/// last that is not white space. Long runs are read a window at a time (`readMoreText(to:)`), so that a book in one
/// run never becomes all its sentences' events at once; the part read up to a window's end goes on (`isContinued`)
/// into the next.
struct SentenceInference {
    /// The pause after a sentence: a medium break (750 ms), as after an explicit `<s>`.
    let pauseFrames: Int
    private var boundaries = SentenceBoundaries()
    private var sentence: OpenSentence?
    /// The run being read, and how far.
    private var text: TextInProgress?

    /// How much of a run is read at a time (UTF-8 bytes; a window ends where a piece may be cut).
    static var windowBytes: Int { 8_192 }

    private struct OpenSentence {
        /// Source offsets of its first content and of the end of its last content that is not white space.
        var start: Int
        var end: Int
        /// The context of its last content: the pause after it follows that content's rate.
        var context: SpeechContext
    }

    private struct TextInProgress {
        var run: TextRun
        var position: String.Index
        var utf16Offset: Int
    }

    init(sampleRate: Int) {
        pauseFrames = AttributeValue.frames(milliseconds: 750, sampleRate: sampleRate)
    }

    /// Starts reading `run`, which `readMoreText(to:)` then reads a window at a time.
    mutating func startText(_ run: TextRun) {
        precondition(text == nil, "a text run is read to its end before the next starts")
        text = TextInProgress(run: run, position: run.text.startIndex, utf16Offset: 0)
    }

    /// Reads the next window of the run started last into `sink`; `false` when all of it is read.
    mutating func readMoreText(to sink: inout EventSink) -> Bool {
        guard var reading = text else { return false }
        let run = reading.run
        let end = Self.windowEnd(in: run.text.utf8, from: reading.position)
        let isLast = end == run.text.endIndex
        reading.utf16Offset = read(
            run, from: reading.position, utf16Offset: reading.utf16Offset, to: end,
            isContinued: isLast ? run.isContinued : true, sink: &sink)
        reading.position = end
        text = isLast ? nil : reading
        return true
    }

    /// Adds content whose text the rule does not look into, whole (a `say-as` run, a `<sub>` alias, an `<audio>`):
    /// one word of the sentence, from `sourceRange`.
    mutating func appendWord(
        _ event: SSMLEvent, sourceRange: Range<Int>, context: SpeechContext, to sink: inout EventSink
    ) {
        if boundaries.readWord() { close(to: &sink) }
        if sentence == nil { open(at: sourceRange.lowerBound, context: context, to: &sink) }
        sink.appendContent(event)
        sentence!.end = sourceRange.upperBound
        sentence!.context = context
    }

    /// Markup between words: it separates them as white space does.
    mutating func separate(to sink: inout EventSink) {
        if boundaries.readSeparator() { close(to: &sink) }
    }

    /// Ends the open sentence whatever its punctuation: the end of the text, or a `<p>` or `<s>` tag.
    mutating func end(to sink: inout EventSink) {
        close(to: &sink)
        boundaries.reset()
    }

    /// Where the window of `utf8` that starts at `start` ends: at the first place past `windowBytes` after white space
    /// and before an ASCII character that is not, where no token reaches across (`PlainTextStream.isCut`), or at the
    /// end of the text. So every window after the first holds a word, and a run's last part is never one that goes on
    /// into a next run which is not its own (another element's text, in another context).
    private static func windowEnd(in utf8: String.UTF8View, from start: String.Index) -> String.Index {
        guard var index = utf8.index(start, offsetBy: windowBytes, limitedBy: utf8.endIndex) else {
            return utf8.endIndex
        }
        while index < utf8.endIndex {
            let after = utf8[index]
            if PlainTextStream.isCut(between: utf8[utf8.index(before: index)], and: after) && after != 0x20
                && !(0x09...0x0D).contains(after)
            {
                return index
            }
            index = utf8.index(after: index)
        }
        return index
    }

    /// Reads `run.text[start..<end]`; returns the UTF-16 offset of `end`.
    private mutating func read(
        _ run: TextRun, from start: String.Index, utf16Offset: Int, to end: String.Index, isContinued: Bool,
        sink: inout EventSink
    ) -> Int {
        let scalars = run.text.unicodeScalars
        var offsets = UTF16Offsets(utf16: run.text.utf16, index: start, offset: utf16Offset)
        // The open sentence's part not yet written starts at `partStart`; the rule has read the text before `unread`.
        // The text is looked at here only where a sentence starts or ends.
        var partStart = start
        var unread = start
        while true {
            let cut = unread < end ? boundaries.read(scalars[unread..<end]) : nil
            if sentence == nil, let first = Self.firstContent(in: scalars[partStart..<(cut ?? end)]) {
                partStart = first
                let offset = offsets.offset(of: first)
                let source = run.sourceRange(forTextRange: offset..<offset + UTF16.width(scalars[first])).lowerBound
                open(at: source, context: run.context, to: &sink)
            }
            guard let cut else { break }
            // The sentence ends with its last scalar before the cut that is not white space.
            if let last = Self.lastContent(in: scalars[partStart..<cut]) {
                let utf16 = offsets.offset(of: partStart)..<offsets.offset(of: scalars.index(after: last))
                write(run, partStart..<scalars.index(after: last), utf16: utf16, isContinued: false, to: &sink)
            }
            close(to: &sink)
            partStart = cut
            unread = scalars.index(after: cut)
        }
        guard sentence != nil, let last = Self.lastContent(in: scalars[partStart..<end]) else {
            return offsets.offset(of: end)
        }
        let contentEnd = scalars.index(after: last)
        let utf16 = offsets.offset(of: partStart)..<offsets.offset(of: contentEnd)
        if boundaries.mayHaveEnded {
            // The white space after the punctuation belongs to no sentence if the next word ends this one.
            write(run, partStart..<contentEnd, utf16: utf16, isContinued: isContinued, to: &sink)
            return offsets.offset(of: end)
        }
        // The white space after the last word goes with it: the run, or the next window, goes on from it.
        let endOffset = offsets.offset(of: end)
        write(run, partStart..<end, utf16: utf16.lowerBound..<endOffset, isContinued: isContinued, to: &sink)
        sentence!.end = run.sourceRange(forTextRange: utf16).upperBound
        return endOffset
    }

    private static func firstContent(in scalars: Substring.UnicodeScalarView) -> String.Index? {
        scalars.firstIndex { !SentenceBoundaries.isWhiteSpace($0) }
    }

    private static func lastContent(in scalars: Substring.UnicodeScalarView) -> String.Index? {
        scalars.lastIndex { !SentenceBoundaries.isWhiteSpace($0) }
    }

    /// Writes the part of `run` at `range` (`utf16` in UTF-16 offsets) as a text run of the open sentence, which now
    /// ends where it does.
    private mutating func write(
        _ run: TextRun, _ range: Range<String.Index>, utf16: Range<Int>, isContinued: Bool, to sink: inout EventSink
    ) {
        let part = run.part(range, utf16Range: utf16, isContinued: isContinued)
        sink.appendContent(.text(part))
        sentence!.end = part.sourceRange.upperBound
        sentence!.context = run.context
    }

    private mutating func open(at offset: Int, context: SpeechContext, to sink: inout EventSink) {
        sink.appendOpener(.structureStart(.sentence))
        sentence = OpenSentence(start: offset, end: offset, context: context)
    }

    private mutating func close(to sink: inout EventSink) {
        guard let sentence else { return }
        sink.endStructure(
            .sentence, sourceRange: sentence.start..<sentence.end, pauseFrames: pauseFrames, context: sentence.context)
        self.sentence = nil
    }
}

/// Text without markup (plain text, or a malformed request's text read leniently) as events: its runs, all spoken in
/// one context, cut into inferred sentences with a pause between them.
struct UnmarkedText {
    private var sink = EventSink()
    private var inference: SentenceInference

    init(sampleRate: Int) {
        inference = SentenceInference(sampleRate: sampleRate)
    }

    /// Adds the next run of the text: one to spell (`say-as`), whole, its events into `ready`; any other to be read by
    /// `readMore(into:)`.
    mutating func add(_ run: TextRun, into ready: inout [SSMLEvent]) {
        guard run.context.sayAs != nil else { return inference.startText(run) }
        // Spelled white space says nothing, and starts no sentence.
        guard run.text.unicodeScalars.contains(where: { !SentenceBoundaries.isWhiteSpace($0) }) else { return }
        inference.appendWord(.text(run), sourceRange: run.contentSourceRange, context: run.context, to: &sink)
        sink.take(before: nil, into: &ready)
    }

    /// Moves the events of the next window of the run added last into `ready`; `false` when all of it is read.
    mutating func readMore(into ready: inout [SSMLEvent]) -> Bool {
        guard inference.readMoreText(to: &sink) else { return false }
        sink.take(before: nil, into: &ready)
        return true
    }

    /// Ends the text: its last sentence ends, and the rest of its events go into `ready`.
    mutating func finish(into ready: inout [SSMLEvent]) {
        inference.end(to: &sink)
        sink.takeAll(into: &ready)
    }
}

/// UTF-16 offsets of indices of a text, each counted on from the index asked before it.
private struct UTF16Offsets {
    let utf16: String.UTF16View
    var index: String.Index
    var offset: Int

    mutating func offset(of target: String.Index) -> Int {
        offset += utf16.distance(from: index, to: target)
        index = target
        return offset
    }
}

extension TextRun {
    /// The part of the run at `range` (scalar boundaries of `text`; `utf16Range` the same in UTF-16 offsets), spoken
    /// the same way and mapped back to the same place in the request; the whole run itself when it is all of it.
    func part(_ range: Range<String.Index>, utf16Range: Range<Int>, isContinued: Bool) -> TextRun {
        var part = self
        part.isContinued = isContinued
        guard range != text.startIndex..<text.endIndex else { return part }
        part.text = String(text[range])
        part.sourceRange = sourceRange(forTextRange: utf16Range)
        if case .segments(let segments) = sourceMap {
            part.sourceMap = .segments(SourceSegment.slice(segments, utf16Range))
        }
        return part
    }

    /// The source range of the run from its first scalar that is not white space to its last.
    var contentSourceRange: Range<Int> {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !SentenceBoundaries.isWhiteSpace($0) }),
            let last = scalars.lastIndex(where: { !SentenceBoundaries.isWhiteSpace($0) })
        else { return sourceRange }
        let lower = text.utf16.distance(from: text.startIndex, to: first)
        let upper = text.utf16.distance(from: text.startIndex, to: scalars.index(after: last))
        return sourceRange(forTextRange: lower..<upper)
    }
}
