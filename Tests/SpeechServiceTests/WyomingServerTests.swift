// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import Voicebank

/// `concat-synth serve` driven by the real client: the `wyoming` package from PyPI (tools/python-env), through
/// Fixtures/wyoming_driver.py. Each test starts its own server on a free port, with its own copy of the default pack.
@Suite(.serialized) struct WyomingServerTests {
    let directory = TemporaryDirectory("concat-synth-wyoming")
    let concatSynth = Binary("concat-synth")

    var pack: String { directory.file("pack.sqlite") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
    }

    /// What `concat-synth render` makes of the request, converted to 16-bit as the server converts.
    func rendered(_ text: String, voice: String = "org.concatsynth.en") throws -> [Int16] {
        let output = directory.file("render-\(UUID().uuidString).raw")
        let result = try concatSynth.run(["render", "--bank", pack, "--voice", voice, "-o", output, text])
        #expect(result.status == 0, "\(result.standardError)")
        let floats = try Data(contentsOf: URL(fileURLWithPath: output)).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        return floats.map(PCM16.sample)
    }

    func samples(atPath path: String) throws -> [Int16] {
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes {
            $0.bindMemory(to: Int16.self).map { Int16(littleEndian: $0) }
        }
    }

    @Test("describe lists every voice of the pack in one text-to-speech program that streams")
    func describe() throws {
        let server = try WyomingTestServer(pack: pack)
        let answer = try Driver.run(["describe", server.uri])
        #expect(answer["type"] as? String == "info")
        let voices = try VoicePack(path: pack, access: .readOnly).voices()
        #expect(answer["voices"] as? [String] == voices.map(\.identifier))
        let data = try #require(answer["data"] as? [String: Any])
        let program = try #require((data["tts"] as? [[String: Any]])?.first)
        #expect(program["supports_synthesize_streaming"] as? Bool == true)
        let listed = try #require(program["voices"] as? [[String: Any]])
        #expect(listed.map { $0["languages"] as? [String] } == voices.map(\.supportedLanguages))
        #expect(listed.map { $0["description"] as? String } == voices.map(\.name))
        #expect(listed.allSatisfy { $0["installed"] as? Bool == true && $0["speakers"] is NSNull })
    }

    @Test(
        "synthesize answers with render's samples in 16-bit chunks of at most 100 ms",
        arguments: [
            ("Hello, nice to meet you. Good morning!", "text"),
            (#"<speak>Hello <break time="250ms"/> goodbye</speak>"#, "ssml"),
        ])
    func synthesize(text: String, format: String) throws {
        let server = try WyomingTestServer(pack: pack)
        let output = directory.file("received.raw")
        let answer = try Driver.run(["synthesize", server.uri, output, "--format", format, text])
        #expect(answer["error"] == nil, "\(answer)")
        #expect(answer["formats"] as? [[Int]] == [[22_050, 2, 1]])
        let chunks = try #require(answer["chunks"] as? [Int])
        #expect(chunks.allSatisfy { $0 <= 2_205 * 2 } && chunks.dropLast().allSatisfy { $0 == 2_205 * 2 })
        let expected = try rendered(text)
        #expect(expected.count > 22_050 / 2)
        #expect(try samples(atPath: output) == expected)
        #expect(server.log.contains("characters: first chunk"))
    }

    @Test("words no clip covers are spoken by the fallback voice: render's samples, sounding where its phrase is")
    func fallbackVoice() throws {
        let server = try WyomingTestServer(pack: pack)
        let output = directory.file("fallback.raw")
        let text = "Hello Bob, the weather today is sunny."
        let answer = try Driver.run(["synthesize", server.uri, output, text])
        #expect(answer["error"] == nil, "\(answer)")
        let received = try samples(atPath: output)
        let reference = try FallbackReference(text, options: ["--bank", pack], directory: directory)
        #expect(reference.fallbackFrames.count == 1)
        let expected = reference.bytes.withUnsafeBytes { $0.bindMemory(to: Float.self).map(PCM16.sample) }
        #expect(received.count == expected.count)
        #expect(received == expected)
        let peaks = reference.fallbackPeaks(received)
        #expect(peaks.count == 1 && peaks.allSatisfy { $0 > 0.05 }, "\(peaks)")
        try server.waitForLog(", 1 fallback")
    }

    @Test("a Unix socket serves as a TCP port does")
    func unixSocket() throws {
        let socket = directory.file("tts.socket")
        let server = try WyomingTestServer(pack: pack, address: "unix://\(socket)")
        #expect(server.uri == "unix://\(socket)")
        let output = directory.file("unix.raw")
        let answer = try Driver.run(["synthesize", server.uri, output, "Good morning"])
        #expect(answer["error"] == nil, "\(answer)")
        #expect(try samples(atPath: output) == rendered("Good morning"))
    }

    @Test("SIGTERM closes both servers: the process exits 0, its Unix socket and its HTTP files removed")
    func termination() throws {
        let socket = directory.file("closing.socket")
        let files = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        let server = try WyomingTestServer(
            arguments: ["serve", "--bank", pack, "--uri", "unix://\(socket)", "--http", "127.0.0.1:0"],
            environment: ["TMPDIR": files]
        ) { line in line.hasPrefix("HTTP listening on ") ? String(line.dropFirst("HTTP listening on ".count)) : nil }
        #expect(server.log.contains("listening on unix://\(socket) with the voices of \(pack)"))
        #expect(FileManager.default.fileExists(atPath: socket))
        #expect(try FileManager.default.contentsOfDirectory(atPath: files).count == 1)
        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(try FileManager.default.contentsOfDirectory(atPath: files) == [])
    }

    @Test("a port in use is refused with one message, whichever server asks for it")
    func portInUse() throws {
        let server = try WyomingTestServer(pack: pack)
        let port = try #require(server.uri.split(separator: ":").last.map(String.init))
        for arguments in [["--uri", "tcp://127.0.0.1:\(port)"], ["--http", "127.0.0.1:\(port)"]] {
            let result = try concatSynth.run(["serve", "--bank", pack] + arguments)
            #expect(result.status == 1)
            #expect(
                result.standardError.contains(
                    "cannot listen on tcp://127.0.0.1:\(port): port \(port) is in use by another program; expected a free port (0 for any)"
                ), "\(result.standardError)")
        }
    }

    @Test("a voice by language, and an unknown voice is an error naming the pack's voices")
    func voiceSelection() throws {
        let server = try WyomingTestServer(pack: pack)
        let output = directory.file("ja.raw")
        let answer = try Driver.run(["synthesize", server.uri, output, "--language", "ja_JP", "設定"])
        #expect(answer["error"] == nil, "\(answer)")
        #expect(try samples(atPath: output) == rendered("設定", voice: "org.concatsynth.ja"))

        let refused = try Driver.run(["synthesize", server.uri, output, "--voice", "com.example.nobody", "Hello"])
        let error = try #require(refused["error"] as? String)
        #expect(error.contains("com.example.nobody") && error.contains("org.concatsynth.en, org.concatsynth.ja"))
    }

    @Test(
        "with no --bank it serves the default and the installed packs' voices, each with its pack's attribution and version"
    )
    func installedVoices() throws {
        let home = InstalledPackHome()
        let ann = try home.install(
            name: "ann", voice: "com.example.ann", voiceName: "Ann", version: "1.2.0",
            manifest: ["attribution=Ann Example", "url=https://example.com/ann"])
        let server = try WyomingTestServer(pack: nil, environment: home.environment)
        #expect(server.log.contains("\(home.packFolder)/ann.sqlite"))

        let answer = try Driver.run(["describe", server.uri])
        #expect(answer["voices"] as? [String] == ["org.concatsynth.en", "org.concatsynth.ja", "com.example.ann"])
        let data = try #require(answer["data"] as? [String: Any])
        let listed = try #require((data["tts"] as? [[String: Any]])?.first?["voices"] as? [[String: Any]])
        let installed = try #require(listed.last)
        #expect(
            installed["attribution"] as? [String: String] == ["name": "Ann Example", "url": "https://example.com/ann"])
        #expect(installed["version"] as? String == "1.2.0")
        #expect(installed["languages"] as? [String] == ["en-US"])
        // The default pack (where a clone's server finds it; tools/test builds it) has an attribution and a version,
        // and no url.
        #expect(listed.first?["version"] as? String == "2.0.0")
        #expect(
            listed.first?["attribution"] as? [String: String] == [
                "name": "Allison Smith, recorded for the Asterisk project", "url": "",
            ])
        // Its Japanese voice is not hers (the manifest's attribution-voices): it is credited by its own name.
        #expect(listed[1]["attribution"] as? [String: String] == ["name": "Default Japanese", "url": ""])

        // Each voice is spoken from its own pack.
        for (voice, bank, text) in [
            ("com.example.ann", ann, "Hello, good morning"),
            ("org.concatsynth.en", VoicePackLocation.defaultPackPath, "Good morning"),
        ] {
            let output = directory.file("\(voice).raw")
            let spoken = try Driver.run(["synthesize", server.uri, output, "--voice", voice, text])
            #expect(spoken["error"] == nil, "\(spoken)")
            let expected = try reference(text, options: ["--bank", bank, "--voice", voice], directory: directory)
            #expect(try samples(atPath: output) == expected.samples, "\(voice)")
        }
    }

    @Test("streamed text in three chunks is spoken a sentence at a time, each as render speaks it")
    func streaming() throws {
        let server = try WyomingTestServer(pack: pack)
        let prefix = directory.file("sentence")
        let answer = try Driver.run([
            "stream", server.uri, prefix, "Hello, nice to ", "meet you. Good mor", "ning! Goodbye",
        ])
        #expect(answer["sentences"] as? [Int] != nil, "\(answer)")
        let sentences = ["Hello, nice to meet you.", "Good morning!", "Goodbye"]
        #expect((answer["sentences"] as? [Int])?.count == sentences.count)
        for (index, sentence) in sentences.enumerated() {
            #expect(try samples(atPath: "\(prefix)-\(index).raw") == rendered(sentence), "sentence \(index)")
        }
    }

    @Test("50 clients at once, 10 requests each, all served in full")
    func concurrentClients() throws {
        let server = try WyomingTestServer(pack: pack)
        let text = "Good morning. Double tap to open."
        let answer = try Driver.run(["load", server.uri, "--clients", "50", "--requests", "10", text])
        #expect((answer["errors"] as? [String]) == [], "\(answer["errors"] ?? "")")
        #expect(answer["requests"] as? Int == 500)
        #expect(answer["sizes"] as? [Int] == [try rendered(text).count * 2])
    }

    /// What a faulty client sends, and the error code it gets back.
    static let faults: [String: (bytes: String, code: String)] = [
        "data_length not a number": ("{\"type\": \"describe\", \"data_length\": \"ten\"}\n", "malformed-event"),
        "a header that is not JSON": ("this is not json\n", "malformed-event"),
        "data that is not JSON": ("{\"type\": \"synthesize\", \"data_length\": 5}\n{nope", "malformed-event"),
        "an unknown event type": ("{\"type\": \"transcribe\"}\n", "unknown-event"),
        "data_length over the limit": ("{\"type\": \"synthesize\", \"data_length\": 99999999}\n", "too-long"),
        "a 70,000-byte header line": (String(repeating: "x", count: 70_000), "too-long"),
    ]

    @Test(
        "a fault closes only that client's connection, with an error event; the next client is served",
        arguments: faults.keys.sorted())
    func fault(name: String) throws {
        let (bytes, code) = try #require(Self.faults[name])
        let server = try WyomingTestServer(pack: pack)
        let answer = try Driver.run(["raw", server.uri], input: Data(bytes.utf8))
        let events = try #require(answer["events"] as? [[String: Any]])
        #expect(events.count == 1)
        #expect(events.first?["type"] as? String == "error")
        #expect((events.first?["data"] as? [String: Any])?["code"] as? String == code)

        let output = directory.file("after.raw")
        let served = try Driver.run(["synthesize", server.uri, output, "Good morning"])
        #expect(served["error"] == nil, "\(served)")
        #expect(try samples(atPath: output) == rendered("Good morning"))
        #expect(server.log.contains("closed: "))
    }

    @Test(
        "a client that goes mid-request, by closing or by a reset, has its render cancelled and logged so; the server goes on",
        arguments: [false, true])
    func disconnect(byReset: Bool) throws {
        let server = try WyomingTestServer(pack: pack)
        // About 13 minutes of audio: far more than the socket buffers hold, so the render waits for the client.
        let long = String(repeating: "Good morning. Double tap to open. ", count: 500)
        let answer = try Driver.run(["hangup", server.uri, long] + (byReset ? ["--reset"] : []))
        #expect(answer["hung_up"] as? Bool == true)
        let output = directory.file("after.raw")
        let served = try Driver.run(["synthesize", server.uri, output, "Hello"])
        #expect(served["error"] == nil, "\(served)")
        try server.waitForLog("render cancelled")
    }
}

/// The Python side: tools/python-env's interpreter running Fixtures/wyoming_driver.py.
enum Driver {
    static let wyoming = PythonDriver("Tests/SpeechServiceTests/Fixtures/wyoming_driver.py")

    static func run(_ arguments: [String], input: Data = Data()) throws -> [String: Any] {
        try wyoming.run(arguments, input: input)
    }
}

/// `concat-synth serve` on a free port of the loopback interface, stopped when released.
final class WyomingTestServer: Sendable {
    private let server: ServerProcess
    var process: Process { server.process }
    var uri: String { server.address }

    /// - Parameters:
    ///   - pack: the pack it serves; with none, the default and every installed pack.
    ///   - address: where to listen; a free port of the loopback interface by default.
    ///   - environment: added to this process's (`Binary.start`).
    init(pack: String?, address: String = "tcp://127.0.0.1:0", environment: [String: String?] = [:]) throws {
        let bank = pack.map { ["--bank", $0] } ?? []
        server = try ServerProcess(
            Binary("concat-synth"), ["serve"] + bank + ["--uri", address], environment: environment
        ) {
            $0.hasPrefix("listening on ") ? $0.split(separator: " ").dropFirst(2).first.map(String.init) : nil
        }
    }

    /// `concat-synth serve` with `arguments`, its address as `address(line)` finds it in a line of its log.
    init(arguments: [String], environment: [String: String?] = [:], address: @escaping (Substring) -> String?) throws {
        server = try ServerProcess(Binary("concat-synth"), arguments, environment: environment, address: address)
    }

    /// What the server wrote on standard error so far.
    var log: String { server.log }

    /// Waits up to 10 s for the server to log `text`.
    func waitForLog(_ text: String) throws {
        try server.waitForLog(text)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}
