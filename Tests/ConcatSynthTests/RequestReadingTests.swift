// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Reading a request from a file or a descriptor, in process: what is streamed and what is read whole, encodings,
/// and errors that name the input.
@Suite struct RequestReadingTests {
    func write(_ bytes: [UInt8], in directory: TemporaryDirectory, name: String = "request") throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func content(_ read: ReadRequest) -> String {
        switch read.request.content {
        case .ssml(let text): return "ssml \(text)"
        case .textStream: return "stream"
        case .text(let text): return "text \(text)"
        case .characters(let text): return "characters \(text)"
        }
    }

    @Test("plain UTF-8 text is streamed unless asked whole; SSML is read whole")
    func streamedOrWhole() throws {
        let directory = TemporaryDirectory()
        let text = try write(Array("  Hello, good morning".utf8), in: directory)
        #expect(content(try SpeechRequest.read(from: .file(text))) == "stream")
        #expect(content(try SpeechRequest.read(from: .file(text), whole: true)) == "ssml   Hello, good morning")
        let ssml = try write(Array("\n<speak>Hello</speak>".utf8), in: directory, name: "r.ssml")
        #expect(content(try SpeechRequest.read(from: .file(ssml))) == "ssml \n<speak>Hello</speak>")
    }

    @Test("UTF-16 with a byte-order mark and a declared encoding are decoded whole")
    func encodings() throws {
        let directory = TemporaryDirectory()
        let utf16 = try write(
            [0xFF, 0xFE] + Array("Hi".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, in: directory)
        #expect(content(try SpeechRequest.read(from: .file(utf16))) == "ssml \u{FEFF}Hi")
        let latin1 = #"<?xml version="1.0" encoding="ISO-8859-1"?><speak>caf"#.utf8 + [0xE9] + "</speak>".utf8
        let declared = try write(Array(latin1), in: directory, name: "latin1.ssml")
        #expect(content(try SpeechRequest.read(from: .file(declared))).hasSuffix("<speak>café</speak>"))
    }

    @Test("invalid UTF-8 is an error naming the file and offset; lenient reading warns once and speaks U+FFFD")
    func invalidBytes() throws {
        let directory = TemporaryDirectory()
        let path = try write(Array("<speak>ab".utf8) + [0xFF] + Array("c</speak>".utf8), in: directory)
        #expect {
            try SpeechRequest.read(from: .file(path))
        } throws: { error in
            "\(error)".hasPrefix("the request in \(path) is not valid UTF-8 at byte offset 9")
        }
        let read = try SpeechRequest.read(from: .file(path), isLenient: true)
        #expect(content(read) == "ssml <speak>ab\u{FFFD}c</speak>")
        #expect(
            read.warning?.hasPrefix("warning: the request in \(path) holds 1 byte sequence that is not valid") == true)
    }

    @Test("a file that cannot be opened is an error that names it")
    func unreadable() {
        #expect(throws: ConcatSynthError.request(.unreadable(path: "/nonexistent/request.ssml"))) {
            try SpeechRequest.read(from: .file("/nonexistent/request.ssml"))
        }
        #expect(
            ConcatSynthError.request(.unreadable(path: "x")).description
                == "cannot read the request file x; expected a readable text or SSML file")
    }

    @Test("a descriptor is read as standard input is, streamed as the writer writes")
    func descriptor() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let written = "Hello, good morning. "
        #expect(written.withCString { Glibc.write(ends[1], $0, strlen($0)) } == written.utf8.count)
        close(ends[1])
        defer { close(ends[0]) }
        let read = try SpeechRequest.read(from: .descriptor(ends[0], name: "the pipe"))
        let stream = try #require(read.request.textStream)
        #expect(stream.source == "the pipe")
        let plan = try Synthesizer(bank: RequestTests.defaultPack).renderPlan(read.request)
        #expect(plan.segments.contains { $0.text == "good morning" })
    }

    @Test("a converted pull gives round(frames × rate ÷ 22050) frames and markers at the output rate")
    func convertedPull() throws {
        let synthesizer = try Synthesizer(bank: RequestTests.defaultPack)
        let request = SpeechRequest(.text("Hello, good morning"))
        let frames = try synthesizer.renderPlan(request).frameCount
        let chain = try ConvertedPull(try synthesizer.renderer(for: request), sampleRate: 16_000, blockFrames: 512)
        var converted = 0
        var rendered = 0
        var markers: [Marker] = []
        while !chain.isComplete {
            try chain.pull({ converted += $0.count }) { rendered += $0.count }
            markers += chain.reachedMarkers.map(\.marker)
        }
        #expect(rendered == frames)
        #expect(converted == Int((Double(frames) * 16_000 / 22_050).rounded()))
        let last = try #require(markers.max { $0.frame + $0.frameCount < $1.frame + $1.frameCount })
        #expect(abs(last.frame + last.frameCount - converted) <= 1)
    }
}
