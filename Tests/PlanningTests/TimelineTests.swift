// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Testing

@testable import Planning

@Suite struct TimelineTests {
    /// The markers of a paragraph holding `count` phrases of 100 bytes each, in the order they complete.
    func paragraphMarkers(phrases count: Int) -> [IndexedMarker] {
        var timeline = Timeline()
        timeline.append(PlanSegment(kind: .structureStart(.paragraph)))
        let words = String(repeating: "word ", count: 19) + "last"
        for index in 0..<count {
            timeline.append(
                PlanSegment(
                    kind: .phrase(ClipTake(clipID: 1, frameCount: 10)), frameCount: 10, text: words,
                    sourceRange: index * 100..<index * 100 + 99))
        }
        timeline.append(PlanSegment(kind: .structureEnd(.paragraph), sourceRange: 0..<count * 100))
        timeline.finish()
        while timeline.nextSegment() != nil {}
        var markers: [IndexedMarker] = []
        while let marker = timeline.nextMarker() { markers.append(marker) }
        return markers
    }

    @Test("a paragraph's marker holds its words, cut with … past the limit, so a whole book in one stays small")
    func structureTextLimit() throws {
        let short = try #require(paragraphMarkers(phrases: 3).first { $0.marker.kind == .paragraph })
        #expect(short.marker.text.split(separator: " ").count == 60)
        #expect(short.marker.frameCount == 30)

        let long = try #require(paragraphMarkers(phrases: 5_000).first { $0.marker.kind == .paragraph })
        #expect(long.marker.text.hasSuffix(" …"))
        #expect(long.marker.text.utf8.count >= Timeline.structureTextLimit)
        #expect(long.marker.text.utf8.count < Timeline.structureTextLimit + 110)
        #expect(long.marker.frameCount == 50_000)
        #expect(long.marker.textRange == 0..<499_999)
    }
}

@Suite struct QueueTests {
    @Test("a queue that is never empty, its reader one element behind, keeps only what it holds")
    func neverEmpty() {
        var queue = Queue<Int>()
        queue.append(0)
        var taken: [Int] = []
        for next in 1...100_000 {
            queue.append(next)
            taken.append(queue.popFirst()!)
            #expect(queue.storageCount <= 2_050, "storage grew to \(queue.storageCount) at \(next)")
            if queue.storageCount > 2_050 { break }
        }
        #expect(taken == Array(0..<100_000))
        #expect(queue.count == 1)
    }
}
