// SPDX-License-Identifier: GPL-3.0-or-later
import JSONWriter
import NIOCore
import Testing

@testable import WyomingService

/// The one JSON writer the servers and the tools share, and Wyoming's events written through it.
@Suite struct JSONWriterTests {
    struct Answer: Encodable {
        var path = "/tmp/pack.sqlite"
        var frames = 22_050
        var voice = "org.concatsynth.en"
    }

    @Test("one line with the keys sorted and slashes as they are, or indented for a person")
    func written() throws {
        #expect(
            String(decoding: try JSONWriter.bytes(Answer()), as: UTF8.self)
                == #"{"frames":22050,"path":"/tmp/pack.sqlite","voice":"org.concatsynth.en"}"#)
        #expect(
            String(decoding: try JSONWriter.bytes(Answer(), pretty: true), as: UTF8.self)
                == "{\n  \"frames\" : 22050,\n  \"path\" : \"/tmp/pack.sqlite\",\n  \"voice\" : \"org.concatsynth.en\"\n}"
        )
    }

    @Test("a Wyoming event is a header line of sorted keys with the lengths of its data and payload, then both")
    func wyomingEvent() throws {
        var payload = ByteBufferAllocator().buffer(capacity: 4)
        payload.writeBytes([1, 2, 3, 4])
        let event = WyomingEvent(type: "audio-chunk", data: .object(["rate": .number(22_050)]), payload: payload)
        let wire = event.encoded(allocator: ByteBufferAllocator())
        let header = #"{"data_length":14,"payload_length":4,"type":"audio-chunk","version":"1.10.2"}"#
        #expect(Array(wire.readableBytesView) == Array((header + "\n" + #"{"rate":22050}"#).utf8) + [1, 2, 3, 4])
        let bare = WyomingEvent(type: "describe").encoded(allocator: ByteBufferAllocator())
        #expect(String(buffer: bare) == #"{"type":"describe","version":"1.10.2"}"# + "\n")
    }
}
