// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An SVG document read with Foundation's XML parser: its groups with their classes, titles, shapes and texts.
public struct SVG {
    public struct Group {
        public var classes: [String]
        public var title = ""
        public var rects: [(x: Double, width: Double)] = []
        public var lines: [(x: Double, y1: Double, y2: Double)] = []
        public var texts: [String] = []
    }

    public struct Path {
        public var classes: [String]
        public var d: String
    }

    public var title = ""
    public var height = 0
    public var groups: [Group] = []
    public var paths: [Path] = []
    public var axisLabels: [String] = []

    init() {}

    /// - Throws: the parser's error when the document is not well formed.
    public init(_ source: String) throws {
        let reader = Reader()
        let parser = XMLParser(data: Data(source.utf8))
        parser.delegate = reader
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        self = reader.svg
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var svg = SVG()
        var open: [String] = []
        var groupStack: [Group?] = []
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            open.append(name)
            text = ""
            let classes = attributes["class"]?.split(separator: " ").map(String.init) ?? []
            switch name {
            case "svg": svg.height = Int(attributes["height"] ?? "") ?? 0
            case "g": groupStack.append(classes.isEmpty ? nil : Group(classes: classes))
            case "rect":
                if groupStack.last??.classes != nil, let x = Double(attributes["x"] ?? ""),
                    let width = Double(attributes["width"] ?? "")
                {
                    groupStack[groupStack.count - 1]!.rects.append((x, width))
                }
            case "line":
                if groupStack.last??.classes != nil, let x = Double(attributes["x1"] ?? ""),
                    let y1 = Double(attributes["y1"] ?? ""), let y2 = Double(attributes["y2"] ?? "")
                {
                    groupStack[groupStack.count - 1]!.lines.append((x, y1, y2))
                }
            case "path": svg.paths.append(Path(classes: classes, d: attributes["d"] ?? ""))
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
            switch name {
            case "title":
                if open == ["svg"] {
                    svg.title = text
                } else if groupStack.last??.classes != nil {
                    groupStack[groupStack.count - 1]!.title = text
                }
            case "text":
                if groupStack.last??.classes == ["axis"] {
                    svg.axisLabels.append(text)
                } else if groupStack.last??.classes != nil {
                    groupStack[groupStack.count - 1]!.texts.append(text)
                }
            case "g":
                // Legend swatches are groups with a shape and no title: not part of the picture.
                if let group = groupStack.removeLast(), !group.title.isEmpty { svg.groups.append(group) }
            default: break
            }
            text = ""
        }
    }
}
