// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import Rendering
import SpeechCore

/// A picture of a render, drawn as SVG: the waveform, each phrase's text and extent (fallbacks in a warning
/// colour), pauses, `<mark>`s, sentences and paragraphs, and the joins between clips, rough ones flagged with the
/// join-click measure.
///
/// It is built as the render is pulled, keeping one minimum and maximum per 10 ms column of audio and a few
/// milliseconds around each join still to be measured, so a long render needs no copy of its samples. The picture
/// wraps into rows of `secondsPerRow` seconds, like lines on a page.
///
/// ```swift
/// var picture = RenderPicture()
/// while true {
///     let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
///     buffer.withUnsafeBufferPointer { picture.add(UnsafeBufferPointer(rebasing: $0[..<pulled.frameCount]), pulledFrom: renderer) }
///     if pulled.isComplete { break }
/// }
/// let svg = picture.svg
/// ```
public struct RenderPicture {
    /// Columns of the waveform per second: each one 10 ms of audio.
    public static let columnsPerSecond = 100
    /// Seconds of audio in one row of the picture.
    public static let secondsPerRow = 8
    /// Horizontal pixels per second.
    public static let pixelsPerSecond = 150
    /// The smallest sample step at a join that can be heard as a click (-34 dBFS): below it a join is clean
    /// whatever the audio around it does, so near-silent joins are not flagged for steps no one hears.
    public static let audibleJoinStep: Float = 0.02

    /// The kind of a span drawn along the time axis.
    enum SpanKind: String {
        /// A clip of a phrase.
        case phrase
        /// Words no phrase covers: the voice's fallback clip, a letter clip spelling them, or the fallback voice.
        case fallback
        /// Silence: a `<break>`, or the pause after a sentence or paragraph.
        case pause
        /// An `<audio>` file.
        case audio
    }

    /// A stretch of the output and what plays in it.
    struct Span {
        var kind: SpanKind
        /// The words spoken, what a fallback stands for, or the `<audio>` file's fallback text.
        var text: String
        var frame: Int
        var frameCount: Int
        /// How a fallback spoke, and the words it stood for.
        var fallback: PlanSegment.Fallback?
        /// The take a phrase played, and why, where it had a choice.
        var take: ClipTake?
        var selection: TakeSelection?
    }

    /// A join between two sounding segments, and how hard it steps.
    public struct Join: Equatable, Sendable {
        /// The first frame of the segment after the join.
        public var frame: Int
        /// The join-click measure of the 10 ms either side of the join.
        public var measure: JoinClickMeasure

        /// The step at the join is audible and larger than any step in the audio around it.
        public var isRough: Bool {
            measure.largestJoinStep >= RenderPicture.audibleJoinStep
                && measure.largestJoinStep > measure.largestInnerStep
        }
    }

    /// The lowest and highest sample of each column so far.
    private var minima: [Float] = []
    private var maxima: [Float] = []
    /// Frames added so far.
    private var frameCount = 0
    private var spans: [Span] = []
    /// Sentences, paragraphs and marks, in the order they were reached.
    private var markers: [Marker] = []
    /// Joins measured so far; those whose audio is still to come wait in `pendingJoins`.
    private var measuredJoins: [Join] = []
    private var pendingJoins: [PendingJoin] = []
    /// The last `joinRadius` frames, for a join whose window starts before the frames it comes with.
    private var recent: [Float] = []
    private var hasSoundingSegment = false

    /// Frames either side of a join that its measure looks at: 10 ms.
    private static let joinRadius = RenderFormat.sampleRate / columnsPerSecond

    private struct PendingJoin {
        var frame: Int
        /// The window's first frame.
        var start: Int
        var samples: [Float] = []

        var end: Int { frame + RenderPicture.joinRadius }

        var measure: JoinClickMeasure { JoinClickMeasure(samples: samples, joinFrames: [frame - start]) }
    }

    public init() {}

    /// Adds one pull of `renderer`: the segments it started and the markers it reached, then the frames it wrote
    /// (at 22050 Hz, before any conversion to the output rate).
    public mutating func add(_ frames: UnsafeBufferPointer<Float>, pulledFrom renderer: Renderer) {
        for segment in renderer.startedSegments { add(segment) }
        for reached in renderer.reachedMarkers where reached.marker.kind != .phrase {
            // Phrases are drawn from their segments, which say which ones fell back.
            markers.append(reached.marker)
        }
        add(frames)
    }

    /// The joins, each measured on the audio around it (as far as the render went).
    public var joins: [Join] {
        measuredJoins + pendingJoins.map { Join(frame: $0.frame, measure: $0.measure) }
    }

    private mutating func add(_ segment: TimedSegment) {
        let kind: SpanKind
        switch segment.segment.kind {
        case .phrase, .fallback, .synthesized, .slice: kind = segment.fallback == nil ? .phrase : .fallback
        case .silence: kind = .pause
        case .audio: kind = .audio
        case .mark, .structureStart, .structureEnd: return
        }
        spans.append(
            Span(
                kind: kind, text: segment.text, frame: segment.frame, frameCount: segment.frameCount,
                fallback: segment.fallback, take: segment.take, selection: segment.selection))
        if hasSoundingSegment {
            // The window's frames that came before the segment was started are among the recent ones.
            let recentStart = frameCount - recent.count
            let start = max(0, recentStart, segment.frame - Self.joinRadius)
            var join = PendingJoin(frame: segment.frame, start: start)
            if start < frameCount { join.samples = Array(recent[(start - recentStart)...]) }
            pendingJoins.append(join)
        }
        hasSoundingSegment = true
    }

    private mutating func add(_ frames: UnsafeBufferPointer<Float>) {
        guard !frames.isEmpty else { return }
        let first = frameCount
        let end = first + frames.count
        var index = 0
        while index < frames.count {
            let frame = first + index
            let column = frame * Self.columnsPerSecond / RenderFormat.sampleRate
            // The first frame of the next column: ⌈(column + 1) × rate ÷ columns per second⌉.
            let next = ((column + 1) * RenderFormat.sampleRate + Self.columnsPerSecond - 1) / Self.columnsPerSecond
            let upTo = min(frames.count, next - first)
            var low = frames[index]
            var high = low
            for sample in frames[index..<upTo] {
                low = min(low, sample)
                high = max(high, sample)
            }
            if column == minima.count {
                minima.append(low)
                maxima.append(high)
            } else {
                minima[column] = min(minima[column], low)
                maxima[column] = max(maxima[column], high)
            }
            index = upTo
        }
        var waiting: [PendingJoin] = []
        for var join in pendingJoins {
            let from = max(join.start + join.samples.count, first)
            let to = min(join.end, end)
            if from < to { join.samples += frames[(from - first)..<(to - first)] }
            if join.start + join.samples.count >= join.end {
                measuredJoins.append(Join(frame: join.frame, measure: join.measure))
            } else {
                waiting.append(join)
            }
        }
        pendingJoins = waiting
        recent += frames.suffix(Self.joinRadius)
        recent.removeFirst(max(0, recent.count - Self.joinRadius))
        frameCount = end
    }

    /// The picture as a standalone SVG document.
    public var svg: String {
        var drawing = Drawing(frameCount: frameCount)
        let joins = self.joins
        drawing.heading(spans: spans, roughJoinCount: joins.filter(\.isRough).count)
        for row in 0..<drawing.rowCount { drawing.lanes(row: row) }
        for span in spans { drawing.span(span) }
        for row in 0..<drawing.rowCount { drawing.waveform(row: row, minima: minima, maxima: maxima) }
        // Marks name their lines before rough joins do, where the two labels would overlap.
        for marker in markers where marker.kind == .mark { drawing.marker(marker) }
        drawing.joins(joins)
        for marker in markers where marker.kind != .mark { drawing.marker(marker) }
        for row in 0..<drawing.rowCount { drawing.axis(row: row) }
        return drawing.document
    }
}

/// The SVG text of a picture, drawn piece by piece in absolute coordinates: rows of `RenderPicture.secondsPerRow`
/// seconds, each a lane for marks and rough joins, the waveform, the phrase labels, sentences, paragraphs and the
/// time axis, top to bottom.
private struct Drawing {
    let frameCount: Int
    let rowCount: Int
    let width: Int
    private var body = ""
    /// The x ranges of each row's mark and join labels so far, so that none is drawn over another.
    private var topLabels: [Int: [Range<Double>]] = [:]

    static let left = 16
    static let top = 44
    static let rowHeight = 178
    static let fontSize = 11
    static let rowFrames = RenderPicture.secondsPerRow * RenderFormat.sampleRate
    // Lanes of a row, as offsets from its top.
    static let markLane = 0..<14
    static let waveLane = 16..<96
    static let labelLane = 96..<118
    static let sentenceLane = 122..<134
    static let paragraphLane = 136..<148
    static let axisLane = 152..<170

    init(frameCount: Int) {
        self.frameCount = frameCount
        rowCount = max(1, (frameCount + Self.rowFrames - 1) / Self.rowFrames)
        // A render shorter than a row is as wide as its whole seconds, so a short picture is not mostly empty.
        let seconds = min(
            RenderPicture.secondsPerRow, max(1, (frameCount + RenderFormat.sampleRate - 1) / RenderFormat.sampleRate))
        // Never narrower than the heading and the legend.
        width = max(640, 2 * Self.left + seconds * RenderPicture.pixelsPerSecond)
    }

    var height: Int { Self.top + rowCount * Self.rowHeight }

    var document: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
        font-family="DejaVu Sans, Verdana, sans-serif" font-size="\(Self.fontSize)">
        <style>
        .page { fill: #ffffff; }
        .lane { fill: #f4f6f8; }
        .phrase rect { fill: #dbe8f6; stroke: #4a78a8; stroke-width: 0.75; }
        .fallback rect { fill: #ffd7a8; stroke: #d9480f; stroke-width: 1.5; }
        .fallback text { fill: #a8380a; font-weight: bold; }
        .pause rect { fill: #eceff1; stroke: #b0bec5; stroke-width: 0.5; stroke-dasharray: 2 2; }
        .audio rect { fill: #d8f0dc; stroke: #2f8a46; stroke-width: 0.75; }
        .wave { stroke: #1f3550; fill: none; }
        .joins { stroke: #7a8a99; stroke-width: 1; }
        .join.rough line { stroke: #d62828; stroke-width: 2; }
        .join.rough text { fill: #d62828; font-weight: bold; }
        .mark line { stroke: #7b2cbf; stroke-width: 1.5; stroke-dasharray: 4 2; }
        .mark text { fill: #7b2cbf; }
        .sentence rect { fill: #c8e6c9; stroke: #43a047; stroke-width: 0.5; }
        .paragraph rect { fill: #fff3c4; stroke: #c9a227; stroke-width: 0.5; }
        .sentence text, .paragraph text { font-size: 9px; fill: #37474f; }
        .axis line, .axis path { stroke: #607080; stroke-width: 1; fill: none; }
        .axis text { font-size: 9px; fill: #607080; }
        .heading { font-size: 13px; fill: #1f3550; }
        .legend { font-size: 10px; fill: #37474f; }
        </style>
        <rect class="page" x="0" y="0" width="\(width)" height="\(height)"/>

        """ + body + "</svg>\n"
    }

    // MARK: Geometry

    /// The row a frame is drawn in; the render's last frame belongs to the last row.
    func row(of frame: Int) -> Int { min(rowCount - 1, max(0, frame) / Self.rowFrames) }

    /// The x of `frame` within `row`.
    func x(_ frame: Int, row: Int) -> Double {
        Double(Self.left)
            + Double(frame - row * Self.rowFrames) * Double(RenderPicture.pixelsPerSecond)
            / Double(RenderFormat.sampleRate)
    }

    func y(row: Int, _ offset: Int) -> Int { Self.top + row * Self.rowHeight + offset }

    /// The pieces of `frame..<frame + count` in each row it crosses, clipped to the render.
    func pieces(_ frame: Int, _ count: Int) -> [(row: Int, start: Int, end: Int)] {
        var pieces: [(row: Int, start: Int, end: Int)] = []
        var start = max(0, frame)
        let end = min(frame + count, frameCount)
        while start < end {
            let row = self.row(of: start)
            let rowEnd = min(end, (row + 1) * Self.rowFrames)
            pieces.append((row, start, rowEnd))
            start = rowEnd
        }
        return pieces
    }

    // MARK: Pieces

    mutating func heading(spans: [RenderPicture.Span], roughJoinCount: Int) {
        let phrases = spans.filter { $0.kind == .phrase || $0.kind == .fallback }
        // A spelled run has a span for each character and counts once.
        let fallbacks = spans.filter { $0.fallback?.startsRun == true }.count
        let summary =
            "\(seconds(frameCount, places: 2)) s · \(count(phrases.count, "phrase")) · "
            + "\(count(fallbacks, "fallback")) · \(count(roughJoinCount, "rough join"))"
        body += "<title>concat-synth render: \(summary)</title>\n"
        body += #"<text class="heading" x="\#(Self.left)" y="18">concat-synth render: \#(summary)</text>"# + "\n"
        // The legend: a swatch of each colour and what it means.
        var x = Self.left
        let y = 28
        for (kind, label) in [("phrase", "phrase"), ("fallback", "fallback"), ("pause", "pause"), ("audio", "audio")] {
            body += #"<g class="\#(kind)"><rect x="\#(x)" y="\#(y)" width="14" height="10"/></g>"#
            body += #"<text class="legend" x="\#(x + 18)" y="\#(y + 9)">\#(label)</text>"# + "\n"
            x += 18 + 7 * label.count + 14
        }
        for (kind, label) in [("mark", "mark"), ("join rough", "rough join")] {
            body += #"<g class="\#(kind)"><line x1="\#(x + 7)" y1="\#(y - 1)" x2="\#(x + 7)" y2="\#(y + 11)"/></g>"#
            body += #"<text class="legend" x="\#(x + 14)" y="\#(y + 9)">\#(label)</text>"# + "\n"
            x += 14 + 7 * label.count + 14
        }
    }

    mutating func lanes(row: Int) {
        let rowWidth = x(min(frameCount, (row + 1) * Self.rowFrames), row: row) - Double(Self.left)
        body +=
            #"<rect class="lane" x="\#(Self.left)" y="\#(y(row: row, Self.waveLane.lowerBound))" "#
            + #"width="\#(format(rowWidth))" height="\#(Self.waveLane.count)"/>"# + "\n"
    }

    /// A phrase, fallback, pause or `<audio>` file: a box over the waveform and its label lane, in each row it
    /// crosses, labelled with as much of its text as fits; its whole text is its title.
    mutating func span(_ span: RenderPicture.Span) {
        let pieces = self.pieces(span.frame, span.frameCount)
        guard !pieces.isEmpty else { return }
        let title: String
        switch span.kind {
        case .phrase:
            title = span.selection.map { "\(span.text): take \(span.take!), \($0)" } ?? span.text
        case .fallback:
            switch span.fallback?.mode {
            case .voice: title = "the fallback voice for \u{201C}\(span.text)\u{201D}"
            case .units: title = "\u{201C}\(span.text)\u{201D} cut from the voice's takes"
            case .spell: title = "\u{201C}\(span.text)\u{201D}, spelling \u{201C}\(span.fallback!.words)\u{201D}"
            case .clip, nil: title = "fallback for \u{201C}\(span.text)\u{201D}"
            }
        case .pause: title = "pause \(seconds(span.frameCount, places: 3)) s"
        case .audio: title = "audio \u{201C}\(span.text)\u{201D}"
        }
        var mode = span.fallback.map { #" data-fallback="\#($0.mode.rawValue)""# } ?? ""
        if let selection = span.selection, let take = span.take {
            mode += #" data-take="\#(take.clipID)" data-place="\#(selection.place)""#
            if let joinCost = selection.joinCost { mode += #" data-join-cost="\#(TakeSelection.formatted(joinCost))""# }
        }
        body +=
            #"<g class="\#(span.kind.rawValue)" data-frame="\#(span.frame)" data-frames="\#(span.frameCount)"\#(mode)>"#
            + "<title>\(escaped(title))</title>"
        let top = span.kind == .pause ? Self.labelLane.lowerBound : Self.waveLane.lowerBound
        for piece in pieces {
            let left = x(piece.start, row: piece.row)
            let right = x(piece.end, row: piece.row)
            body +=
                #"<rect x="\#(format(left))" y="\#(y(row: piece.row, top))" width="\#(format(right - left))" "#
                + #"height="\#(Self.labelLane.upperBound - top)"/>"#
        }
        // The label goes in the widest piece; a pause is labelled only by its title.
        let widest = pieces.max { ($0.end - $0.start) < ($1.end - $1.start) }!
        let left = x(widest.start, row: widest.row)
        let label = span.kind == .pause ? "" : fitted(span.text, width: x(widest.end, row: widest.row) - left - 4)
        if !label.isEmpty {
            body +=
                #"<text x="\#(format(left + 2))" y="\#(y(row: widest.row, Self.labelLane.upperBound - 7))">"#
                + "\(escaped(label))</text>"
        }
        body += "</g>\n"
    }

    /// One row's waveform: a vertical line from each column's lowest sample to its highest, full scale filling
    /// the lane.
    mutating func waveform(row: Int, minima: [Float], maxima: [Float]) {
        let columnsPerRow = RenderPicture.secondsPerRow * RenderPicture.columnsPerSecond
        let columns = (row * columnsPerRow)..<min(minima.count, (row + 1) * columnsPerRow)
        guard !columns.isEmpty else { return }
        let columnWidth = Double(RenderPicture.pixelsPerSecond) / Double(RenderPicture.columnsPerSecond)
        let middle = Double(y(row: row, Self.waveLane.lowerBound)) + Double(Self.waveLane.count) / 2
        let halfHeight = Double(Self.waveLane.count) / 2 - 1
        var path = ""
        for column in columns {
            let x = Double(Self.left) + (Double(column - columns.lowerBound) + 0.5) * columnWidth
            let high = middle - Double(max(-1, min(1, maxima[column]))) * halfHeight
            var low = middle - Double(max(-1, min(1, minima[column]))) * halfHeight
            // A silent column still shows as a dot on the centre line.
            low = max(low, high + 0.5)
            path += "M\(format(x)) \(format(high))V\(format(low))"
        }
        body += #"<path class="wave" stroke-width="\#(format(columnWidth))" d="\#(path)"/>"# + "\n"
    }

    /// Clean joins as short ticks under the waveform; rough ones as a red line through it, with the measure.
    mutating func joins(_ joins: [RenderPicture.Join]) {
        var ticks = ""
        for join in joins where !join.isRough {
            let row = self.row(of: join.frame)
            let bottom = y(row: row, Self.waveLane.upperBound)
            ticks += "M\(format(x(join.frame, row: row))) \(bottom - 5)V\(bottom)"
        }
        if !ticks.isEmpty { body += #"<path class="joins" d="\#(ticks)"/>"# + "\n" }
        for join in joins where join.isRough {
            let row = self.row(of: join.frame)
            let x = format(self.x(join.frame, row: row))
            let measure = join.measure
            let ratio = measure.largestInnerStep > 0 ? "\(decimal(Double(measure.ratio), places: 1))×" : "∞"
            let title =
                "rough join at \(seconds(join.frame, places: 3)) s: a step of "
                + "\(decimal(Double(measure.largestJoinStep), places: 3)), \(ratio) the largest step within 10 ms of it"
            body +=
                #"<g class="join rough" data-frame="\#(join.frame)"><title>\#(escaped(title))</title>"#
                + #"<line x1="\#(x)" y1="\#(y(row: row, Self.markLane.lowerBound))" x2="\#(x)" "#
                + #"y2="\#(y(row: row, Self.waveLane.upperBound))"/>"#
                + topLabel("click \(ratio)", row: row, frame: join.frame) + "</g>\n"
        }
    }

    /// A sentence or paragraph as a bar in its lane, labelled with its words; a mark as a line with its name.
    mutating func marker(_ marker: Marker) {
        switch marker.kind {
        case .mark:
            let row = self.row(of: marker.frame)
            let x = format(self.x(marker.frame, row: row))
            body +=
                #"<g class="mark" data-frame="\#(marker.frame)"><title>mark \#(escaped(marker.text))</title>"#
                + #"<line x1="\#(x)" y1="\#(y(row: row, Self.markLane.lowerBound))" x2="\#(x)" "#
                + #"y2="\#(y(row: row, Self.labelLane.upperBound))"/>"#
                + topLabel(marker.text, row: row, frame: marker.frame) + "</g>\n"
        case .sentence, .paragraph:
            let lane = marker.kind == .sentence ? Self.sentenceLane : Self.paragraphLane
            let pieces = self.pieces(marker.frame, marker.frameCount)
            guard !pieces.isEmpty else { return }
            body +=
                #"<g class="\#(marker.kind.rawValue)" data-frame="\#(marker.frame)" data-frames="\#(marker.frameCount)">"#
                + "<title>\(marker.kind.rawValue): \(escaped(marker.text))</title>"
            for piece in pieces {
                let left = x(piece.start, row: piece.row)
                let right = x(piece.end, row: piece.row)
                body +=
                    #"<rect x="\#(format(left))" y="\#(y(row: piece.row, lane.lowerBound))" "#
                    + #"width="\#(format(right - left))" height="\#(lane.count)"/>"#
                let label = fitted(marker.text, width: right - left - 4, fontSize: 9)
                if !label.isEmpty {
                    body +=
                        #"<text x="\#(format(left + 2))" y="\#(y(row: piece.row, lane.upperBound - 3))">"#
                        + "\(escaped(label))</text>"
                }
            }
            body += "</g>\n"
        case .phrase:
            break
        }
    }

    /// The time axis under a row: a tick each second labelled with the seconds from the render's start, and a
    /// small one each tenth.
    mutating func axis(row: Int) {
        let top = y(row: row, Self.axisLane.lowerBound)
        let rowStart = row * Self.rowFrames
        let rowEnd = min(frameCount, rowStart + Self.rowFrames)
        body += #"<g class="axis">"#
        body +=
            #"<line x1="\#(Self.left)" y1="\#(top)" x2="\#(format(x(max(rowEnd, rowStart), row: row)))" y2="\#(top)"/>"#
        var ticks = ""
        var labels = ""
        let tenth = RenderFormat.sampleRate / 10
        var tick = 0
        while rowStart + tick * tenth <= rowEnd {
            let frame = rowStart + tick * tenth
            let x = format(self.x(frame, row: row))
            let isSecond = tick % 10 == 0
            ticks += "M\(x) \(top)V\(top + (isSecond ? 6 : 3))"
            if isSecond {
                let anchor = tick == 0 ? "start" : "middle"
                labels +=
                    #"<text x="\#(x)" y="\#(top + 16)" text-anchor="\#(anchor)">\#(frame / RenderFormat.sampleRate) s</text>"#
            }
            tick += 1
        }
        body += #"<path d="\#(ticks)"/>"# + labels + "</g>\n"
    }

    // MARK: Text

    /// A label right of `frame` in the row's top lane, or nothing where it would overlap one drawn already (the
    /// line and its title still say what it is).
    mutating func topLabel(_ text: String, row: Int, frame: Int) -> String {
        let left = x(frame, row: row) + 3
        let extent = left..<(left + width(of: text, fontSize: Self.fontSize))
        guard !(topLabels[row] ?? []).contains(where: { $0.overlaps(extent) }) else { return "" }
        topLabels[row, default: []].append(extent)
        return #"<text x="\#(format(left))" y="\#(y(row: row, Self.markLane.upperBound - 3))">\#(escaped(text))</text>"#
    }

    /// About how wide `text` is drawn: 0.6 em for Latin letters, 1 em for wide (CJK) characters.
    func width(of text: String, fontSize: Int) -> Double { text.reduce(0) { $0 + advance($1, fontSize: fontSize) } }

    func advance(_ character: Character, fontSize: Int) -> Double {
        let isWide = character.unicodeScalars.first.map { $0.value >= 0x1100 } ?? false
        return Double(fontSize) * (isWide ? 1 : 0.6)
    }

    /// As much of `text` as fits in `width` pixels, ending in "…" where cut; empty where not even that fits.
    func fitted(_ text: String, width: Double, fontSize: Int = Self.fontSize) -> String {
        func advance(_ character: Character) -> Double { self.advance(character, fontSize: fontSize) }
        var used = 0.0
        var fitted = ""
        let ellipsis = advance("…")
        for character in text {
            let next = advance(character)
            guard used + next <= width else {
                while !fitted.isEmpty && used + ellipsis > width {
                    used -= advance(fitted.removeLast())
                }
                return fitted.isEmpty ? "" : fitted + "…"
            }
            used += next
            fitted.append(character)
        }
        return fitted
    }
}

/// `text` with XML's special characters as entities and control characters, which XML 1.0 cannot carry, as
/// spaces: fit for element content and attribute values.
func escaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        case "\t", "\n", "\r": escaped += " "
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: escaped += " "
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}

/// `frames` as seconds with `places` decimals.
private func seconds(_ frames: Int, places: Int) -> String {
    decimal(Double(frames) / Double(RenderFormat.sampleRate), places: places)
}

/// A coordinate with one decimal, without a trailing ".0".
private func format(_ value: Double) -> String {
    let text = decimal(value, places: 1)
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
}

/// "1 phrase", "3 phrases".
private func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
