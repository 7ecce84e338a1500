// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechCore
import TestSupport
import Testing

@testable import CommandLineSupport

/// The markers file: frame order whatever order markers complete in, and bounded memory for a long paragraph.
@Suite struct MarkerFileTests {
    /// A paragraph (place 0) of `sentences` sentences of four phrases each, in frame order.
    static func paragraph(sentences: Int) -> [Marker] {
        var markers = [Marker(kind: .paragraph, text: "p", frame: 0, frameCount: 100 * sentences, textRange: 0..<1)]
        for sentence in 0..<sentences {
            let frame = 100 * sentence
            markers.append(
                Marker(kind: .sentence, text: "s\(sentence)", frame: frame, frameCount: 100, textRange: 0..<1))
            for phrase in 0..<4 {
                markers.append(
                    Marker(
                        kind: .phrase, text: "w\(sentence).\(phrase)", frame: frame + 25 * phrase, frameCount: 25,
                        textRange: 0..<1))
            }
        }
        return markers
    }

    /// The order a render completes them in: each phrase, then its sentence; the paragraph last.
    static func completionOrder(sentences: Int) -> [[Int]] {
        (0..<sentences).map { sentence in
            let first = 1 + 5 * sentence
            return [first + 1, first + 2, first + 3, first + 4, first]
        } + [[0]]
    }

    @Test(
        "lines come out in frame order, and markers after a paragraph still to come wait on disk, not in memory",
        arguments: [3, Int.max])
    func order(memoryLimit: Int) throws {
        let directory = TemporaryDirectory("marker-file")
        let path = directory.file("out.markers")
        let markers = Self.paragraph(sentences: 400)
        let file = try MarkerFile(path: path, bytesPerFrame: 4, memoryLimit: memoryLimit)
        var mostInMemory = 0
        for batch in Self.completionOrder(sentences: 400) {
            try file.add(batch.map { (index: $0, marker: markers[$0]) })
            mostInMemory = max(mostInMemory, file.markersInMemory)
        }
        #expect(file.markersInMemory == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        try file.commit()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == markers.map { $0.jsonLine(bytesPerFrame: 4) })
        if memoryLimit == 3 {
            // At most the limit, and a sentence's markers that cannot follow the paragraph yet.
            #expect(mostInMemory <= 3 + 5)
        } else {
            #expect(mostInMemory == 2_000)
        }
    }
}
