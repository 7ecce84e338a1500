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

    public init(kind: Kind, text: String, frame: Int, frameCount: Int, textRange: Range<Int>) {
        self.kind = kind
        self.text = text
        self.frame = frame
        self.frameCount = frameCount
        self.textRange = textRange
    }

    /// Where `frame` starts in the Float32 output: what Apple's `byteSampleOffset` carries.
    public var byteOffset: Int { frame * MemoryLayout<Float>.size }

    /// One line of JSON with the fields SPEC.md lists, in its order.
    public var jsonLine: String {
        #"{"kind":"\#(kind.rawValue)","text":\#(jsonString(text)),"frame":\#(frame),"frames":\#(frameCount),"#
            + #""byteOffset":\#(byteOffset),"textRange":[\#(textRange.lowerBound),\#(textRange.count)]}"#
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
