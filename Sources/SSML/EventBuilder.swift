// SPDX-License-Identifier: GPL-3.0-or-later
/// Turns the scanner's tokens into events, element by element, following SPEC.md's SSML table.
///
/// Text that no `<s>` holds is cut into inferred sentences (`SentenceInference`), each with the events and pause of an
/// explicit `<s>`. Markup between words separates them as white space does; `<p>` and `<s>` tags, and the end of the
/// request, end an inferred sentence whatever its punctuation; a `say-as` run, a `<sub>` alias and an `<audio>` are
/// words of it that are never cut. The content of an `<audio>` (what is spoken when the file cannot play) is not cut:
/// the element is one word of its sentence.
///
/// Invalid attribute values are warnings in lenient mode (the attribute is ignored); in strict mode the
/// first one is kept in `firstError` and reading goes on, so that a malformed request is reported as
/// malformed even when a bad value comes before the XML error.
struct EventBuilder {
    let sampleRate: Int
    let isLenient: Bool
    /// The context of the root element: the request's own prosody.
    let requestContext: SpeechContext
    /// Every text run is spelled, whatever `say-as` the markup gives (speech-dispatcher's spelling mode).
    let isSpelling: Bool
    private(set) var warnings: [SSMLWarning] = []
    private(set) var firstError: SSMLError?
    private var elements: [ElementFrame] = []
    /// The request's events, then one more for each `<audio>` being read (its fallback content).
    private var sinks: [EventSink] = [EventSink()]
    private var lastBreakTime: (value: String, frames: Int)?
    private var inference: SentenceInference
    /// How many spoken `<s>` elements are open: inside one, no sentence is inferred.
    private var explicitSentenceCount = 0

    init(sampleRate: Int, isLenient: Bool, context: SpeechContext = SpeechContext(), isSpelling: Bool = false) {
        self.sampleRate = sampleRate
        self.isLenient = isLenient
        self.isSpelling = isSpelling
        self.requestContext = context
        inference = SentenceInference(sampleRate: sampleRate)
    }

    /// Whether text here is cut into inferred sentences: no `<s>` holds it, and it is not an `<audio>`'s content.
    private var isInferring: Bool { explicitSentenceCount == 0 && sinks.count == 1 }

    mutating func handle(_ token: XMLToken) {
        switch token {
        case .startTag(let tag):
            start(tag)
            if tag.isEmpty { end(endOffset: tag.endOffset) }
        case .endTag(let tag):
            end(endOffset: tag.endOffset)
        case .text(let data):
            guard let element = elements.last, !element.isContentSilent else { return }
            let run = TextRun(
                text: data.text, sourceRange: data.sourceRange, context: element.context, sourceMap: data.sourceMap)
            if !isInferring {
                sinks[sinks.count - 1].appendContent(.text(run))
            } else if run.context.sayAs != nil {
                inference.appendWord(
                    .text(run), sourceRange: run.contentSourceRange, context: run.context, to: &sinks[0])
            } else {
                inference.startText(run)
            }
        }
    }

    /// Reads the next window of a text run being cut into inferred sentences; `false` when there is none, and the
    /// next token may be handled.
    mutating func readMoreText() -> Bool { inference.readMoreText(to: &sinks[0]) }

    /// How many events wait in the builder, those of `<audio>` content included.
    var heldEventCount: Int { sinks.reduce(0) { $0 + $1.count } }

    /// Moves the warnings met so far into `taken`.
    mutating func takeWarnings(into taken: inout [SSMLWarning]) {
        guard !warnings.isEmpty else { return }
        taken += warnings
        warnings.removeAll(keepingCapacity: true)
    }

    /// Forgets the warnings met so far.
    mutating func dropWarnings() { warnings.removeAll(keepingCapacity: true) }

    /// Moves the events that nothing later can change into `ready`: all but those after a sentence or
    /// paragraph pause that is still pending (the next content says whether it is made) and from a `<mark>`
    /// whose end tag has not come yet.
    mutating func takeReady(into ready: inout [SSMLEvent]) {
        let heldMark = elements.first { $0.openerSink == 0 && $0.openerIndex != nil }?.openerIndex
        sinks[0].take(before: heldMark, into: &ready)
    }

    /// Moves the rest of the request's events into `ready`, the end of an inferred sentence still open among them; a
    /// sentence or paragraph pause still pending at the end is dropped.
    mutating func finish(into ready: inout [SSMLEvent]) {
        inference.end(to: &sinks[0])
        sinks[0].takeAll(into: &ready)
    }

    // MARK: Elements

    private mutating func start(_ tag: StartTag) {
        let parent = elements.last
        let isSpoken = !(parent?.isContentSilent ?? false)
        var context = parent?.context ?? requestContext
        var role = ElementFrame.Role.container
        var isContentSilent = !isSpoken
        if isSpoken && isInferring { inference.separate(to: &sinks[0]) }
        if parent == nil && tag.name != "speak" {
            report(
                .unexpectedRoot(element: tag.name, line: tag.position.line, column: tag.position.column),
                consequence: "it is read as if it were <speak>")
        }
        if let language = tag.value(of: "xml:lang") {
            let value = AttributeValue.trimmed(language)
            if value.isEmpty {
                context.language = nil  // xml:lang="" means "no language", as in XML.
            } else if AttributeValue.isLanguageTag(value) {
                context.language = value
            } else {
                reportInvalid(tag, "xml:lang", language, expected: AttributeValue.acceptedLanguage)
            }
        }
        // A prefixed name (mstts:express-as, amazon:effect) is a vendor element: ignored, its text kept.
        if !tag.name.utf8.contains(0x3A) {
            // The most frequent elements first: a switch on strings compares case by case.
            switch tag.name {
            case "s", "sentence":
                role = .structure(.sentence)
            case "break":
                let (frames, origin) = breakFrames(tag)
                if isSpoken { sinks[sinks.count - 1].appendBreak(frames: frames, origin: origin, context: context) }
            case "p", "paragraph":
                role = .structure(.paragraph)
            case "prosody":
                readProsody(tag, into: &context)
            case "speak", "phoneme", "token", "w", "lookup":
                break
            case "emphasis":
                var decibels = 3.0
                if let level = tag.value(of: "level") {
                    if let value = AttributeValue.emphasisDecibels(level) {
                        decibels = value
                    } else {
                        reportInvalid(
                            tag, "level", level, expected: AttributeValue.acceptedEmphasis,
                            consequence: "the emphasis is moderate (+3 dB)")
                    }
                }
                context.volumeDecibels += decibels
            case "say-as":
                let sayAs = readSayAs(tag)
                if !isSpelling { context.sayAs = sayAs }
            case "sub":
                if let alias = readAlias(tag) {
                    role = .sub(alias: alias)
                    isContentSilent = true
                }
            case "mark":
                let name = readRequired(
                    tag, "name", expected: "a mark name such as \"intro\"", consequence: "no marker is made")
                if let name { role = .mark(name: name) }
            case "voice":
                if let name = tag.value(of: "name") {
                    let value = AttributeValue.trimmed(name)
                    if value.isEmpty {
                        reportInvalid(tag, "name", name, expected: "a voice name or identifier")
                    } else {
                        context.voiceName = value
                    }
                }
            case "lang":
                if tag.value(of: "xml:lang") == nil {
                    warn(tag, "<lang> without xml:lang at \(place(tag)): the language is unchanged")
                }
            case "audio":
                let source = readRequired(
                    tag, "src", expected: "the path or URI of an audio file", consequence: "its content is spoken")
                if let source { role = .audio(source: source) }
            case "desc", "meta", "metadata", "lexicon":
                // Descriptions and metadata are about the request, not part of what is said.
                isContentSilent = true
            default:
                // Inside unspoken content (metadata holds RDF, say) any element may sit.
                guard isSpoken else { break }
                warn(tag, "unknown element <\(tag.name)> at \(place(tag)): its text is spoken and the tag ignored")
            }
        }
        var frame = ElementFrame(
            role: role, context: context, isSpoken: isSpoken, isContentSilent: isContentSilent,
            startOffset: tag.position.utf16Offset)
        if isSpoken {
            switch role {
            case .structure(let kind):
                if isInferring { inference.end(to: &sinks[0]) }
                if kind == .sentence { explicitSentenceCount += 1 }
                sinks[sinks.count - 1].appendOpener(.structureStart(kind))
            case .mark(let name):
                // A mark goes in now with an empty range at its start; end(endOffset:) gives it its whole range.
                let placeholder = frame.startOffset..<frame.startOffset
                frame.openerIndex = sinks[sinks.count - 1].appendOpener(.mark(name: name, sourceRange: placeholder))
                frame.openerSink = sinks.count - 1
            case .audio:
                sinks.append(EventSink())
            case .container, .sub:
                break
            }
        }
        elements.append(frame)
    }

    private mutating func end(endOffset: Int) {
        let frame = elements.removeLast()
        guard frame.isSpoken else { return }
        let range = frame.startOffset..<endOffset
        let sink = sinks.count - 1
        switch frame.role {
        case .structure(let kind):
            if kind == .sentence {
                explicitSentenceCount -= 1
            } else if isInferring {
                inference.end(to: &sinks[0])
            }
            let milliseconds = kind == .sentence ? 750 : 1000
            sinks[sink].endStructure(
                kind, sourceRange: range,
                pauseFrames: AttributeValue.frames(milliseconds: milliseconds, sampleRate: sampleRate),
                context: frame.context)
        case .mark:
            completeMark(of: frame, range: range)
            if isInferring { inference.separate(to: &sinks[0]) }
        case .sub(let alias):
            let run = TextRun(text: alias, sourceRange: range, context: frame.context, sourceMap: .whole)
            if isInferring {
                inference.appendWord(.text(run), sourceRange: range, context: frame.context, to: &sinks[0])
            } else {
                sinks[sink].appendContent(.text(run))
            }
        case .audio(let source):
            var fallback: [SSMLEvent] = []
            var content = sinks.removeLast()
            content.takeAll(into: &fallback)
            let audio = SSMLEvent.audio(source: source, fallback: fallback, sourceRange: range, context: frame.context)
            if isInferring {
                inference.appendWord(audio, sourceRange: range, context: frame.context, to: &sinks[0])
            } else {
                sinks[sink - 1].appendContent(audio)
            }
        case .container:
            if isInferring { inference.separate(to: &sinks[0]) }
        }
    }

    /// Gives a `<mark>` its whole-element range.
    private mutating func completeMark(of frame: ElementFrame, range: Range<Int>) {
        guard let index = frame.openerIndex else { return }
        let sink = sinks.count - 1
        // A sentence pause inserted before a held mark moves it one place later, and only once.
        let position = sinks[sink][index].isMark(startingAt: frame.startOffset) ? index : index + 1
        guard case .mark(let name, _) = sinks[sink][position] else {
            preconditionFailure("the mark of the element at \(frame.startOffset) was lost")
        }
        sinks[sink][position] = .mark(name: name, sourceRange: range)
    }

    // MARK: Attributes

    /// `time` wins over `strength`; a bare `<break/>` is medium (750 ms).
    private mutating func breakFrames(_ tag: StartTag) -> (frames: Int, origin: PauseOrigin) {
        var strengthFrames: Int?
        if let strength = tag.value(of: "strength") {
            if let milliseconds = AttributeValue.breakMilliseconds(strength: strength) {
                strengthFrames = AttributeValue.frames(milliseconds: milliseconds, sampleRate: sampleRate)
            } else {
                reportInvalid(tag, "strength", strength, expected: AttributeValue.acceptedStrength)
            }
        }
        if let time = tag.value(of: "time") {
            // Requests repeat their break times; remember the last one read.
            if let last = lastBreakTime, last.value == time { return (last.frames, .breakElement) }
            if let frames = AttributeValue.breakFrames(time: time, sampleRate: sampleRate) {
                lastBreakTime = (time, frames)
                return (frames, .breakElement)
            }
            reportInvalid(
                tag, "time", time, expected: AttributeValue.acceptedTime,
                consequence: strengthFrames == nil ? "the break is medium (750 ms)" : "its strength is used")
        }
        return (strengthFrames ?? AttributeValue.frames(milliseconds: 750, sampleRate: sampleRate), .breakStrength)
    }

    /// `volume` adds dB, `rate` multiplies, `pitch` adds semitones; `contour`, `range` and `duration` are not
    /// used by a concatenative voice and are ignored without a check.
    private mutating func readProsody(_ tag: StartTag, into context: inout SpeechContext) {
        if let volume = tag.value(of: "volume") {
            if let decibels = AttributeValue.volumeDecibels(volume) {
                context.volumeDecibels += decibels
            } else {
                reportInvalid(tag, "volume", volume, expected: AttributeValue.acceptedVolume)
            }
        }
        if let rate = tag.value(of: "rate") {
            if let multiplier = AttributeValue.rate(rate) {
                context.rate = (context.rate ?? 1) * multiplier
            } else {
                reportInvalid(tag, "rate", rate, expected: AttributeValue.acceptedRate)
            }
        }
        if let pitch = tag.value(of: "pitch") {
            if let value = AttributeValue.pitch(pitch) {
                if let semitones = value.semitones {
                    context.pitchSemitones += semitones
                } else {
                    warn(
                        tag,
                        "<prosody pitch=\"\(pitch)\"> at \(place(tag)): a voice of recorded clips has no base "
                            + "frequency to measure Hz against, so the pitch is unchanged; use semitones (+2st) or a "
                            + "percentage (-10%)")
                }
            } else {
                reportInvalid(tag, "pitch", pitch, expected: AttributeValue.acceptedPitch)
            }
        }
    }

    /// A known `interpret-as` (with a known `format`, if any); otherwise `nil` and a warning, and the content
    /// is spoken as plain text.
    private mutating func readSayAs(_ tag: StartTag) -> SayAs? {
        guard let interpretAs = tag.value(of: "interpret-as") else {
            warn(tag, "<say-as> without interpret-as at \(place(tag)): its content is spoken as plain text")
            return nil
        }
        let known = SayAs.Interpretation.allCases.map(\.rawValue).joined(separator: ", ")
        guard let interpretation = SayAs.Interpretation(rawValue: AttributeValue.trimmed(interpretAs).lowercased())
        else {
            warn(
                tag,
                "unknown <say-as interpret-as=\"\(interpretAs)\"> at \(place(tag)): its content is spoken as plain "
                    + "text (known: \(known))")
            return nil
        }
        let format = tag.value(of: "format").map(AttributeValue.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        if let format, !AttributeValue.isKnownFormat(format, for: interpretation) {
            warn(
                tag,
                "unknown <say-as interpret-as=\"\(interpretAs)\" format=\"\(format)\"> at \(place(tag)): its content "
                    + "is spoken as plain text (known formats: \(AttributeValue.knownFormats(for: interpretation)))")
            return nil
        }
        let detail = tag.value(of: "detail").map(AttributeValue.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        return SayAs(interpretAs: interpretation, format: format, detail: detail)
    }

    private mutating func readAlias(_ tag: StartTag) -> String? {
        guard let alias = tag.value(of: "alias") else {
            warn(tag, "<sub> without alias at \(place(tag)): its content is spoken instead")
            return nil
        }
        guard !AttributeValue.trimmed(alias).isEmpty else {
            reportInvalid(
                tag, "alias", alias, expected: "the text to speak instead, such as alias=\"World Wide Web Consortium\"",
                consequence: "its content is spoken instead")
            return nil
        }
        return alias
    }

    /// The trimmed value of an attribute the element needs: missing is a warning, empty an invalid value.
    private mutating func readRequired(
        _ tag: StartTag, _ attribute: String, expected: String, consequence: String
    ) -> String? {
        guard let raw = tag.value(of: attribute) else {
            warn(tag, "<\(tag.name)> without \(attribute) at \(place(tag)): \(consequence)")
            return nil
        }
        let value = AttributeValue.trimmed(raw)
        guard !value.isEmpty else {
            reportInvalid(tag, attribute, raw, expected: expected, consequence: consequence)
            return nil
        }
        return value
    }

    // MARK: Problems

    private func place(_ tag: StartTag) -> String {
        "line \(tag.position.line), column \(tag.position.column)"
    }

    private mutating func warn(_ tag: StartTag, _ message: String) {
        warnings.append(SSMLWarning(line: tag.position.line, column: tag.position.column, message: message))
    }

    private mutating func reportInvalid(
        _ tag: StartTag, _ attribute: String, _ value: String, expected: String,
        consequence: String = "the attribute is ignored"
    ) {
        let error = SSMLError.invalidValue(
            element: tag.name, attribute: attribute, value: value, expected: expected, line: tag.position.line,
            column: tag.position.column)
        report(error, consequence: consequence)
    }

    /// Lenient: a warning naming what was done instead. Strict: the first error is kept to be thrown.
    private mutating func report(_ error: SSMLError, consequence: String) {
        if isLenient {
            warnings.append(SSMLWarning(line: error.line, column: error.column, message: "\(error); \(consequence)"))
        } else if firstError == nil {
            firstError = error
        }
    }
}

/// An open element and what it asked for.
private struct ElementFrame {
    enum Role {
        case container
        case structure(StructureKind)
        case mark(name: String)
        case sub(alias: String)
        case audio(source: String)
    }

    var role: Role
    /// The context of the element's content.
    var context: SpeechContext
    /// Whether the element itself makes events (it is not inside a `<sub alias>`, `<desc>`, …).
    var isSpoken: Bool
    /// Whether its content is left unspoken.
    var isContentSilent: Bool
    /// UTF-16 offset of its `<`.
    var startOffset: Int
    /// Where its `mark` went: the index among all the events of sink `openerSink`.
    var openerIndex: Int?
    var openerSink = 0
}

/// Events in order, with the sentence and paragraph pause rule.
///
/// The end of an `<s>` asks for a 750 ms (`medium`) pause and the end of a `<p>` for a 1000 ms (`strong`)
/// one. The pause is held pending and only made when spoken content (a text run or an `<audio>`) follows,
/// so that:
/// - there is none at the very end of the request (nor of an `<audio>`'s fallback content);
/// - there is none before any spoken content (`<s></s><s>Hi</s>` starts with "Hi");
/// - when several boundaries meet, only the longest pause is made (`</s></p><p><s>` gives one of 1000 ms);
/// - there is none when a `<break>` sits at the boundary: as the last content inside the element (marks,
///   tags and whitespace do not count) or as the first content after it; the break alone is the pause,
///   even one of 0 frames.
///
/// The pause goes right after the last `structureEnd` of the boundary, so the `structureStart`s and marks
/// that come before the next content follow it and share that content's first frame.
struct EventSink {
    /// The events not yet taken.
    private var events: [SSMLEvent] = []
    /// How many events were taken before `events[0]`; indices count from the sink's first event.
    private var taken = 0
    private var pendingPause: PendingPause?
    private var hasSpokenContent = false
    private var isLastContentBreak = false

    private struct PendingPause {
        var frames: Int
        var origin: PauseOrigin
        var context: SpeechContext
        /// Where the pause goes.
        var index: Int
    }

    /// How many events wait to be taken.
    var count: Int { events.count }

    subscript(index: Int) -> SSMLEvent {
        get { events[index - taken] }
        set { events[index - taken] = newValue }
    }

    mutating func appendContent(_ event: SSMLEvent) {
        if let pause = pendingPause {
            events.insert(
                .pause(frames: pause.frames, origin: pause.origin, context: pause.context), at: pause.index - taken)
            pendingPause = nil
        }
        events.append(event)
        hasSpokenContent = true
        isLastContentBreak = false
    }

    mutating func appendBreak(frames: Int, origin: PauseOrigin, context: SpeechContext) {
        pendingPause = nil
        events.append(.pause(frames: frames, origin: origin, context: context))
        isLastContentBreak = true
    }

    /// A `structureStart` or `mark`; returns its index.
    @discardableResult
    mutating func appendOpener(_ event: SSMLEvent) -> Int {
        events.append(event)
        return taken + events.count - 1
    }

    mutating func endStructure(
        _ kind: StructureKind, sourceRange: Range<Int>, pauseFrames: Int, context: SpeechContext
    ) {
        events.append(.structureEnd(kind, sourceRange: sourceRange))
        guard hasSpokenContent, !isLastContentBreak else { return }
        let origin: PauseOrigin = kind == .sentence ? .sentence : .paragraph
        var pause = pendingPause ?? PendingPause(frames: pauseFrames, origin: origin, context: context, index: 0)
        if pauseFrames > pause.frames {
            pause.frames = pauseFrames
            pause.origin = origin
            pause.context = context
        }
        pause.index = taken + events.count
        pendingPause = pause
    }

    /// Moves the events before `limit` and before a pending pause's place into `ready`.
    mutating func take(before limit: Int?, into ready: inout [SSMLEvent]) {
        let end = min(limit ?? .max, pendingPause?.index ?? .max, taken + events.count)
        take(end - taken, into: &ready)
    }

    /// Moves every event into `ready`, without a pause still pending.
    mutating func takeAll(into ready: inout [SSMLEvent]) {
        take(events.count, into: &ready)
    }

    private mutating func take(_ count: Int, into ready: inout [SSMLEvent]) {
        guard count > 0 else { return }
        if count == events.count {
            ready += events
            events.removeAll(keepingCapacity: true)
        } else {
            ready += events[..<count]
            events.removeFirst(count)
        }
        taken += count
    }
}

extension SSMLEvent {
    /// A mark not yet completed: one with an empty range at `offset`.
    fileprivate func isMark(startingAt offset: Int) -> Bool {
        guard case .mark(_, let range) = self else { return false }
        return range == offset..<offset
    }
}
