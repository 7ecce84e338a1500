// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// Writes `text` in `encoding` with the iconv command, as a person converting a file would.
func iconvBytes(_ text: String, to encoding: String) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
    process.arguments = ["-f", "UTF-8", "-t", encoding]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "iconv -t \(encoding) failed")
    return data
}

/// A request written in one encoding, and the same request in UTF-8 that must render the same samples.
struct EncodedRequest: Sendable, CustomStringConvertible {
    var name: String
    /// What iconv converts to the encoding.
    var text: String
    var encoding: String
    /// The UTF-8 request it must sound like: the same text, its declaration naming UTF-8.
    var reference: String
    var voice = "org.concatsynth.en"
    /// Whether the decoded request is the reference character for character, so the markers match too.
    var hasSameText: Bool { text == reference }

    var description: String { name }

    static let bom = "\u{FEFF}"
    static let ssml = "<speak>hello, nice to meet you. <s>good morning café</s></speak>"

    static func declared(_ encoding: String, _ body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n" + body
    }

    static let all: [EncodedRequest] = [
        EncodedRequest(
            name: "UTF-8 with a byte-order mark", text: bom + ssml, encoding: "UTF-8", reference: bom + ssml),
        EncodedRequest(
            name: "UTF-16LE with a byte-order mark", text: bom + ssml, encoding: "UTF-16LE", reference: bom + ssml),
        EncodedRequest(
            name: "UTF-16BE with a byte-order mark", text: bom + ssml, encoding: "UTF-16BE", reference: bom + ssml),
        EncodedRequest(
            name: "UTF-16LE declared, without a byte-order mark", text: declared("UTF-16", ssml), encoding: "UTF-16LE",
            reference: declared("UTF-8", ssml)),
        EncodedRequest(
            name: "plain text in UTF-16 with a byte-order mark (iconv's own)", text: "Hello, good morning café!",
            encoding: "UTF-16", reference: bom + "Hello, good morning café!"),
        EncodedRequest(
            name: "ISO-8859-1 declared", text: declared("ISO-8859-1", ssml), encoding: "ISO-8859-1",
            reference: declared("UTF-8", ssml)),
        EncodedRequest(
            name: "windows-1252 declared",
            text: declared("windows-1252", "<speak>hello “good morning” café € nice</speak>"), encoding: "CP1252",
            reference: declared("UTF-8", "<speak>hello “good morning” café € nice</speak>")),
        EncodedRequest(
            name: "Shift_JIS declared", text: declared("Shift_JIS", "<speak>設定、開くにはダブルタップします。猫 声</speak>"),
            encoding: "SHIFT_JIS", reference: declared("UTF-8", "<speak>設定、開くにはダブルタップします。猫 声</speak>"),
            voice: "org.concatsynth.ja"),
    ]
}

/// Bytes invalid in their encoding, between words, and the valid request the rest of them reads as.
struct InvalidBytes: Sendable, CustomStringConvertible {
    var name: String
    var bytes: [UInt8]
    var encoding: String
    var offset: Int
    var shown: String
    var rest: String
    var voice = "org.concatsynth.en"

    var description: String { name }

    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let all: [InvalidBytes] = {
        let declaration1252 = ascii("<?xml version=\"1.0\" encoding=\"windows-1252\"?><speak>hello ")
        let declarationSJIS = ascii("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><speak>")
        let settei: [UInt8] = [0x90, 0xDD, 0x92, 0xE8]  // 設定 in Shift_JIS
        return [
            InvalidBytes(
                name: "UTF-8", bytes: ascii("hello ") + [0xC3, 0x28] + ascii(" good morning"), encoding: "UTF-8",
                offset: 6, shown: "0xC3", rest: "hello ( good morning"),
            InvalidBytes(
                name: "windows-1252", bytes: declaration1252 + [0x81] + ascii(" good morning</speak>"),
                encoding: "windows-1252", offset: declaration1252.count, shown: "0x81",
                rest: "<speak>hello good morning</speak>"),
            InvalidBytes(
                name: "Shift_JIS", bytes: declarationSJIS + settei + [0x82, 0x20] + settei + ascii("</speak>"),
                encoding: "Shift_JIS", offset: declarationSJIS.count + 4, shown: "0x82",
                rest: "<speak>設定 設定</speak>", voice: "org.concatsynth.ja"),
            InvalidBytes(
                name: "UTF-16LE (a lone surrogate)",
                bytes: [0xFF, 0xFE] + ascii("hello ").flatMap { [$0, 0] } + [0x00, 0xD8]
                    + ascii(" good morning").flatMap { [$0, 0] },
                encoding: "UTF-16LE", offset: 14, shown: "0x00 0xD8", rest: "hello good morning"),
        ]
    }()
}

/// Whether two renders wrote the same bytes, computed outside `#expect`, which would print both arrays when not.
func sameSamples(_ first: Binary.Result, _ second: Binary.Result) -> Bool {
    first.standardOutputBytes == second.standardOutputBytes
}

@Suite struct RequestEncodingTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("request-encodings")

    @Test(
        "a request file in any encoding renders the samples, fallbacks and markers of its UTF-8 version",
        arguments: EncodedRequest.all)
    func encodedFile(request: EncodedRequest) throws {
        let file = directory.file("request.txt")
        try iconvBytes(request.text, to: request.encoding).write(to: URL(fileURLWithPath: file))
        let reference = directory.file("reference.txt")
        try Data(request.reference.utf8).write(to: URL(fileURLWithPath: reference))
        let markers = (directory.file("markers.jsonl"), directory.file("reference.jsonl"))

        let encoded = try concatSynth.run(
            ["render", "--voice", request.voice, "--markers", markers.0, "-o", "-", "--file", file])
        let utf8 = try concatSynth.run(
            ["render", "--voice", request.voice, "--markers", markers.1, "-o", "-", "--file", reference])

        #expect(encoded.status == 0, "\(encoded.standardError)")
        #expect(utf8.status == 0, "\(utf8.standardError)")
        #expect(encoded.standardOutputBytes.count > 22_050)
        let isSame = sameSamples(encoded, utf8)
        #expect(isSame, "\(encoded.standardOutputBytes.count) bytes, \(utf8.standardOutputBytes.count) from UTF-8")
        // The fallback lines name the decoded words ("café", "猫"), so they show the characters came out right.
        #expect(encoded.standardError == utf8.standardError)
        #expect(encoded.standardError.contains("fallback: no clip for"))
        if request.hasSameText {
            #expect(
                try String(contentsOfFile: markers.0, encoding: .utf8)
                    == String(contentsOfFile: markers.1, encoding: .utf8))
        }
    }

    @Test("standard input in UTF-16BE with a byte-order mark renders like its UTF-8 version")
    func standardInput() throws {
        let text = EncodedRequest.bom + EncodedRequest.ssml
        let encoded = try concatSynth.run(["render", "-o", "-", "-"], input: try iconvBytes(text, to: "UTF-16BE"))
        let utf8 = try concatSynth.run(["render", "-o", "-", "-"], input: Data(text.utf8))
        #expect(encoded.status == 0, "\(encoded.standardError)")
        let isSame = sameSamples(encoded, utf8)
        #expect(isSame)
    }

    @Test(
        "an invalid byte: one line naming its offset and the encoding, and nothing written",
        arguments: InvalidBytes.all)
    func strict(invalid: InvalidBytes) throws {
        let file = directory.file("invalid.txt")
        try Data(invalid.bytes).write(to: URL(fileURLWithPath: file))
        let output = directory.file("out.wav")

        let result = try concatSynth.run(["render", "--voice", invalid.voice, "-o", output, "--file", file])

        #expect(result.status == 1)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(
            lines.first?.contains(
                "the request in \(file) is not valid \(invalid.encoding) at byte offset \(invalid.offset) (\(invalid.shown))"
            )
                == true, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test(
        "--lenient speaks each invalid sequence as U+FFFD, with a warning, and the rest as it reads",
        arguments: InvalidBytes.all)
    func lenient(invalid: InvalidBytes) throws {
        let file = directory.file("invalid.txt")
        try Data(invalid.bytes).write(to: URL(fileURLWithPath: file))

        let result = try concatSynth.run(["render", "--lenient", "--voice", invalid.voice, "-o", "-", "--file", file])
        let rest = try concatSynth.run(["render", "--voice", invalid.voice, "-o", "-", invalid.rest])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError.contains(
                "warning: the request in \(file) holds 1 byte sequence that is not valid \(invalid.encoding), the first at byte offset \(invalid.offset); each is spoken as U+FFFD"
            ), "\(result.standardError)")
        #expect(result.standardOutputBytes.count > 22_050)
        let isSame = sameSamples(result, rest)
        #expect(isSame)
    }

    @Test("an encoding iconv does not know is named, with what would be accepted")
    func unknownEncoding() throws {
        let file = directory.file("unknown.ssml")
        try Data(EncodedRequest.declared("x-klingon", EncodedRequest.ssml).utf8).write(to: URL(fileURLWithPath: file))
        let result = try concatSynth.run(["render", "-o", "-", "--file", file])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "the request in \(file) declares the encoding \"x-klingon\", which iconv does not know"),
            "\(result.standardError)")
    }
}
