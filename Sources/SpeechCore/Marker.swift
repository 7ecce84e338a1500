// SPDX-License-Identifier: GPL-3.0-or-later
/// A point or span in the audio and the text it speaks, like Apple's `AVSpeechSynthesisMarker`.
public struct Marker: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case phrase, sentence, paragraph, mark
    }

    public var kind: Kind
    /// The words spoken, or the mark's name.
    public var text: String
    /// The first frame, in the 22050 Hz output.
    public var frame: Int
    /// Frames it lasts; 0 for a mark.
    public var frameCount: Int
    /// UTF-16 offsets in the request as given.
    public var textRange: Range<Int>
    /// For a phrase spoken for words no clip covers, how it was spoken: the fallback clip, letter clips or the
    /// fallback voice; `nil` for a phrase's own clip and for the other kinds.
    public var fallback: FallbackMode?

    public init(
        kind: Kind, text: String, frame: Int, frameCount: Int, textRange: Range<Int>, fallback: FallbackMode? = nil
    ) {
        self.kind = kind
        self.text = text
        self.frame = frame
        self.frameCount = frameCount
        self.textRange = textRange
        self.fallback = fallback
    }

    /// Where `frame` starts in the Float32 output: what Apple's `byteSampleOffset` carries.
    public var byteOffset: Int { frame * MemoryLayout<Float>.size }

    /// One line of JSON with the fields SPEC.md lists, in its order.
    public var jsonLine: String { jsonLine(bytesPerFrame: MemoryLayout<Float>.size) }

    /// One line of JSON whose `byteOffset` counts `bytesPerFrame`, the output encoding's frame size; a fallback's
    /// phrase ends with `"fallback"` and how it was spoken.
    ///
    /// Written here rather than by the tools' `JSONWriter`: a marker's fields come in SPEC.md's order, the same on
    /// every run, and JSONEncoder gives them either sorted (another order) or in an order that changes from run to
    /// run; and SpeechCore, which every speaking program links, loads no Foundation.
    public func jsonLine(bytesPerFrame: Int) -> String {
        #"{"kind":"\#(kind.rawValue)","text":\#(jsonString(text)),"frame":\#(frame),"frames":\#(frameCount),"#
            + #""byteOffset":\#(frame * bytesPerFrame),"textRange":[\#(textRange.lowerBound),\#(textRange.count)]"#
            + (fallback.map { #","fallback":"\#($0.rawValue)"}"# } ?? "}")
    }

    /// The marker in output converted to `sampleRate`: its start and end at `RenderFormat.frame(_:atSampleRate:)`,
    /// so markers that tile the 22050 Hz output tile the converted output, which ends at the converted length.
    public func atSampleRate(_ sampleRate: Int) -> Marker {
        let start = RenderFormat.frame(frame, atSampleRate: sampleRate)
        let end = RenderFormat.frame(frame + frameCount, atSampleRate: sampleRate)
        return Marker(
            kind: kind, text: text, frame: start, frameCount: end - start, textRange: textRange, fallback: fallback)
    }

    public var description: String { jsonLine }
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
public func jsonString(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        case "\t": escaped += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped + "\""
}

/// A marker and its place among a request's markers in frame order (where several start at one frame, the
/// enclosing one first).
public struct IndexedMarker: Equatable, Sendable {
    public var index: Int
    public var marker: Marker

    public init(index: Int, marker: Marker) {
        self.index = index
        self.marker = marker
    }
}

/// Puts markers that arrive in the order they complete back into frame order, holding only those that wait for an
/// earlier one (the markers inside a sentence wait for the sentence's own, made at its end).
///
/// A caller that cannot hold every waiting marker (a book in one paragraph) sets aside those that follow the missing
/// one without a gap (`setAsideFollowers`), and puts them back right after it (`popNext` says when).
public struct MarkerSequence {
    private var waiting: [Int: Marker] = [:]
    /// The place in frame order of the next marker.
    private var next = 0
    /// The last place of the markers set aside, which follow `next` without a gap; `nil` when none are.
    private var setAsideThrough: Int?

    public init() {}

    /// How many markers wait for an earlier one, those set aside not counted.
    public var waitingCount: Int { waiting.count }

    public mutating func add(_ marker: IndexedMarker) { waiting[marker.index] = marker.marker }

    /// The next marker in frame order, removed, if it has come; `releasesSetAside` when the markers set aside come
    /// right after it, and the sequence goes on after them.
    public mutating func popNext() -> (marker: Marker, releasesSetAside: Bool)? {
        guard let marker = waiting.removeValue(forKey: next) else { return nil }
        next += 1
        guard let through = setAsideThrough else { return (marker, false) }
        next = through + 1
        setAsideThrough = nil
        return (marker, true)
    }

    /// The markers now in order, removed (for a caller that never sets any aside).
    public mutating func takeReady() -> [Marker] {
        var ready: [Marker] = []
        while let (marker, _) = popNext() { ready.append(marker) }
        return ready
    }

    /// Removes the waiting markers that follow the missing one (after those set aside already) without a gap, in
    /// order: the caller keeps them and puts them back where `popNext` says.
    public mutating func setAsideFollowers() -> [Marker] {
        var index = (setAsideThrough ?? next) + 1
        var followers: [Marker] = []
        while let marker = waiting.removeValue(forKey: index) {
            followers.append(marker)
            setAsideThrough = index
            index += 1
        }
        return followers
    }
}
