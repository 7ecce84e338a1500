// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore

/// Where each segment of a request lands in the output: the one place that works out output lengths (after
/// time-stretching), crossfades and markers. The planner appends segments; the renderer takes them placed.
///
/// It moves through the request with a window of one clip: a clip of a voice that crossfades is held until the next
/// sounding segment says whether the two crossfade, with the points (marks, sentence starts and ends) that follow
/// it; a clip that crossfades with nothing is placed at once, so that it can play while the next is chosen.
///
/// The fallback voice's speech that arrives while it plays (`SynthesizedSpeech.arrivesWhilePlaying`) is placed at
/// once, at its start, with no length (`PlanSegment.isArriving`), and crossfades with nothing. What is appended after
/// it waits; its length, its phrase marker and where the next segment starts are settled when the segment after it
/// is asked for, which waits for the run to be spoken. The renderer asks for that only once the run has played, so
/// it never waits.
///
/// ```swift
/// var timeline = Timeline()
/// timeline.append(PlanSegment(kind: .phrase(hello), frameCount: 11_025, speed: 2))
/// timeline.finish()
/// timeline.nextSegment()   // @0 phrase #1 "hello" 11025 frames → 5513 frames
/// ```
public struct Timeline {
    /// The output frame where the next segment starts.
    private var position = 0
    /// The last clip, while it is not yet known whether it crossfades into the next.
    private var held: TimedSegment?
    /// Points that came after the held clip.
    private var heldPoints: [PlanSegment] = []
    private var placed = Queue<TimedSegment>()
    /// How many segments have been placed so far.
    private(set) var placedCount = 0
    private var markers = Queue<IndexedMarker>()
    /// Sentences and paragraphs begun and not yet ended, innermost last.
    private var open: [OpenStructure] = []
    private var markerCount = 0
    /// The fallback voice's speech placed while it arrives, with the index its phrase marker will have.
    private var arriving: (timed: TimedSegment, markerIndex: Int, speech: SynthesizedSpeech)?
    /// Segments appended after it, placed once it is whole, from `waitingStart`; and whether the request ended there.
    private var waiting: [PlanSegment] = []
    private var waitingStart = 0
    private var isEndWaiting = false

    fileprivate struct OpenStructure {
        var index: Int
        var marker: Marker
        /// The words spoken in it so far, up to `structureTextLimit` bytes.
        var text = ""
        var range: Range<Int>?
    }

    public init() {}

    /// How much of its words a sentence's or paragraph's marker holds: a paragraph may be a whole book, and its
    /// marker is made only at its end.
    public static let structureTextLimit = 65_536

    /// How long `segment` lasts in the output: a clip, `<audio>` or a pause that follows the rate lasts its
    /// source's frames divided by its speed, rounded half away from zero; points last no frames.
    public static func outputFrameCount(of segment: PlanSegment) -> Int {
        guard segment.isSounding, !segment.isArriving else { return 0 }
        guard segment.speed != 1 else { return segment.frameCount }
        return Int((Double(segment.frameCount) / segment.speed).rounded())
    }

    /// Places the next segment of the request.
    public mutating func append(_ segment: PlanSegment) {
        guard arriving == nil else {
            waiting.append(segment)
            return
        }
        lay(segment)
    }

    private mutating func lay(_ segment: PlanSegment) {
        let frameCount = Self.outputFrameCount(of: segment)
        if segment.isArriving {
            if let previous = held { release(previous) }
            place(TimedSegment(segment: segment, frame: position, frameCount: 0))
        } else if segment.isClip {
            var overlap = 0
            if var previous = held {
                // A crossfade is the smaller voice's, at most half of either clip.
                overlap = min(
                    previous.segment.crossfadeFrames, segment.crossfadeFrames, previous.frameCount / 2, frameCount / 2)
                previous.overlapWithNext = overlap
                release(previous)
            }
            let timed = TimedSegment(
                segment: segment, frame: position, frameCount: frameCount, overlapWithPrevious: overlap)
            if segment.crossfadeFrames == 0 {
                release(timed)
            } else {
                held = timed
            }
        } else if segment.isSounding {
            if let previous = held { release(previous) }
            place(TimedSegment(segment: segment, frame: position, frameCount: frameCount))
            position += frameCount
        } else if held != nil {
            heldPoints.append(segment)
        } else {
            place(TimedSegment(segment: segment, frame: position, frameCount: 0))
        }
    }

    /// Ends the request: what is held is placed.
    public mutating func finish() {
        guard arriving == nil else {
            isEndWaiting = true
            return
        }
        if let previous = held { release(previous) }
    }

    /// The next placed segment, in output order; `nil` until more is appended (or at the end). Once every segment
    /// placed is taken, it waits for the fallback voice's speech still arriving to be whole, and places what came
    /// after it.
    public mutating func nextSegment() -> TimedSegment? {
        if let next = placed.popFirst() { return next }
        while arriving != nil {
            settleArriving()
            while waitingStart < waiting.count && arriving == nil {
                waitingStart += 1
                lay(waiting[waitingStart - 1])
            }
            if waitingStart == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingStart = 0
                if isEndWaiting && arriving == nil {
                    isEndWaiting = false
                    finish()
                }
            }
            if let next = placed.popFirst() { return next }
        }
        return nil
    }

    /// Settles the speech placed while it arrived, once it is whole (waits for it): its length, its phrase marker
    /// and where the next segment starts.
    private mutating func settleArriving() {
        guard let (timed, markerIndex, speech) = arriving else { return }
        arriving = nil
        let frameCount = speech.stream.wait(forCount: .max).count
        position = timed.frame + frameCount
        markers.append(IndexedMarker(index: markerIndex, marker: phraseMarker(timed.segment, timed.frame, frameCount)))
    }

    /// The next complete marker, in the order they complete: a sentence's or paragraph's marker completes at
    /// its end, after the markers inside it. `IndexedMarker.index` is its place in frame order.
    public mutating func nextMarker() -> IndexedMarker? { markers.popFirst() }

    private mutating func release(_ clip: TimedSegment) {
        held = nil
        place(clip)
        position = clip.endFrame - clip.overlapWithNext
        for point in heldPoints { place(TimedSegment(segment: point, frame: position, frameCount: 0)) }
        heldPoints.removeAll(keepingCapacity: true)
    }

    private mutating func place(_ timed: TimedSegment) {
        placed.append(timed)
        placedCount += 1
        let segment = timed.segment
        switch segment.kind {
        case .phrase, .fallback, .synthesized, .slice:
            let range = segment.sourceRange ?? 0..<0
            if case .synthesized(let speech) = segment.kind, speech.arrivesWhilePlaying {
                arriving = (timed, markerCount, speech)
                markerCount += 1
            } else {
                emit(phraseMarker(segment, timed.frame, timed.frameCount))
            }
            for level in open.indices {
                open[level].append(words: segment.text)
                open[level].range =
                    open[level].range.map {
                        min($0.lowerBound, range.lowerBound)..<max($0.upperBound, range.upperBound)
                    } ?? range
            }
        case .mark(let name):
            emit(
                Marker(
                    kind: .mark, text: name, frame: timed.frame, frameCount: 0, textRange: segment.sourceRange ?? 0..<0)
            )
        case .structureStart(let structure):
            let marker = Marker(
                kind: structure == .sentence ? .sentence : .paragraph, text: "", frame: timed.frame, frameCount: 0,
                textRange: 0..<0)
            open.append(OpenStructure(index: markerCount, marker: marker))
            markerCount += 1
        case .structureEnd:
            guard var structure = open.popLast() else { break }
            structure.marker.frameCount = timed.frame - structure.marker.frame
            structure.marker.text = structure.text
            // The words spoken, or the whole element where it speaks none.
            structure.marker.textRange = structure.range ?? segment.sourceRange ?? 0..<0
            markers.append(IndexedMarker(index: structure.index, marker: structure.marker))
        case .silence, .audio:
            break
        }
    }

    private func phraseMarker(_ segment: PlanSegment, _ frame: Int, _ frameCount: Int) -> Marker {
        Marker(
            kind: .phrase, text: segment.text, frame: frame, frameCount: frameCount,
            textRange: segment.sourceRange ?? 0..<0, fallback: segment.fallback?.mode)
    }

    private mutating func emit(_ marker: Marker) {
        markers.append(IndexedMarker(index: markerCount, marker: marker))
        markerCount += 1
    }
}

extension Timeline.OpenStructure {
    /// Adds a phrase's words to the text, which ends in "…" once it reaches `Timeline.structureTextLimit` bytes.
    mutating func append(words: String) {
        let limit = Timeline.structureTextLimit
        guard text.utf8.count < limit else { return }
        if !text.isEmpty { text += " " }
        text += words
        if text.utf8.count >= limit { text += " …" }
    }
}

/// A first-in first-out queue that reuses its storage.
///
/// It drops the elements taken once they are most of its storage, not only when it is empty: a queue whose reader
/// always leaves one element in it (the renderer waits for the audio to reach the next marker) would otherwise
/// grow with the request.
struct Queue<Element> {
    private var elements: [Element] = []
    private var head = 0

    /// How many elements it holds.
    var count: Int { elements.count - head }
    /// How many elements its storage holds, those taken included.
    var storageCount: Int { elements.count }

    mutating func append(_ element: Element) {
        if head > 0 && head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024 && head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        elements.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        defer { head += 1 }
        return elements[head]
    }
}
