// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import HTTPService
import TestSupport
import Testing
import Voicebank

/// `concat-synth serve --http` driven by the real clients: the `openai` package and `speak2mary` from PyPI
/// (tools/python-env, through Fixtures/http_driver.py) and curl. Each test starts its own server on a free port, with
/// its own copy of the default pack.
@Suite(.serialized) struct HTTPServerTests {
    let directory = TemporaryDirectory("concat-synth-http")
    let concatSynth = Binary("concat-synth")
    var pack: String { directory.file("pack.sqlite") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
    }

    func server(_ extra: [String] = []) throws -> WyomingTestServer {
        try WyomingTestServer(arguments: ["serve", "--bank", pack, "--http", "127.0.0.1:0"] + extra) { line in
            line.hasPrefix("HTTP listening on ") ? String(line.dropFirst("HTTP listening on ".count)) : nil
        }
    }

    /// What `concat-synth render -o NAME` writes for the request.
    func rendered(_ text: String, name: String, _ options: [String] = []) throws -> Data {
        let output = directory.file("render-\(UUID().uuidString)-\(name)")
        let result = try concatSynth.run(["render", "--bank", pack, "-o", output] + options + [text])
        try #require(result.status == 0, "\(result.standardError)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    func driver(_ arguments: [String]) throws -> [String: Any] {
        try HTTPDriver.http.run(arguments)
    }

    static let text = "Hello, nice to meet you. Good morning!"

    @Test(
        "the openai client's speech is the bytes concat-synth render writes in that format",
        arguments: [
            ("wav", "a.wav", [String]()), ("flac", "a.flac", []), ("mp3", "a.mp3", []), ("opus", "a.opus", []),
            ("pcm", "a.raw", ["--sample-rate", "24000", "--encoding", "s16"]),
        ])
    func openAIFormats(format: String, name: String, options: [String]) throws {
        let server = try server()
        let output = directory.file("received")
        let answer = try driver(["openai", server.uri + "/v1", output, Self.text, "org.concatsynth.en", format, "1"])
        #expect(answer["content_type"] as? String != nil)
        let received = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(received.count > 1_000)
        #expect(received == (try rendered(Self.text, name: name, options)))
    }

    @Test(
        "sample_rate (the openai client's extra_body) gives render's bytes at that rate, in pcm, wav and flac",
        arguments: [
            ("pcm", "a.raw", 16_000, ["--encoding", "s16"]), ("pcm", "b.raw", 48_000, ["--encoding", "s16"]),
            ("pcm", "c.raw", 8_000, ["--encoding", "s16"]), ("wav", "a.wav", 16_000, []),
            ("flac", "a.flac", 48_000, []),
        ])
    func sampleRate(format: String, name: String, rate: Int, options: [String]) throws {
        let server = try server()
        let output = directory.file("received")
        _ = try driver(["openai", server.uri + "/v1", output, Self.text, "org.concatsynth.en", format, "1", "\(rate)"])
        let received = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(received.count > 1_000)
        #expect(received == (try rendered(Self.text, name: name, ["--sample-rate", "\(rate)"] + options)))
        try server.waitForLog(", \(format) at \(rate) Hz, ")
    }

    @Test(
        "a sample_rate outside 8000 to 48000 Hz, or with mp3 or opus, is a 400 naming what is taken",
        arguments: [
            ("pcm", 7_999, "sample_rate 7999 is outside what this endpoint takes; expected 8000 to 48000 (Hz)"),
            ("wav", 96_000, "expected 8000 to 48000 (Hz)"),
            (
                "mp3", 16_000,
                "sample_rate is not taken with response_format mp3, which keeps its own rate; expected one of: pcm, wav, flac"
            ),
        ])
    func sampleRateErrors(format: String, rate: Int, message: String) throws {
        let server = try server()
        let answer = try driver([
            "openai-error", server.uri + "/v1", "Hello", "org.concatsynth.en", format, "1", "\(rate)",
        ])
        #expect(answer["status"] as? Int == 400)
        let error = try #require(
            (answer["body"] as? [String: Any]) ?? (answer["body"] as? [String: [String: Any]])?["error"])
        #expect((error["message"] as? String)?.contains(message) == true, "\(error)")
    }

    @Test("with_streaming_response gets pcm in chunks as it is rendered; speed and SSML are the render's")
    func streaming() throws {
        let server = try server()
        let output = directory.file("streamed.raw")
        let long = String(repeating: "Good morning. Double tap to open. ", count: 20)
        let answer = try driver(["stream", server.uri + "/v1", output, long, "Default English", "pcm"])
        #expect(answer["transfer_encoding"] as? String == "chunked")
        #expect((answer["chunks"] as? Int ?? 0) > 10)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == (try rendered(long, name: "long.raw", ["--sample-rate", "24000", "--encoding", "s16"])))

        let ssml = #"<speak>Hello <break time="250ms"/> goodbye</speak>"#
        _ = try driver(["openai", server.uri + "/v1", output, ssml, "org.concatsynth.en", "wav", "2"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output)) == (try rendered(ssml, name: "b.wav", ["--rate", "2"])))
    }

    @Test(
        "speak2mary, as Home Assistant's MaryTTS integration calls it, gets render's 16-bit WAV; a locale finds a voice"
    )
    func mary() throws {
        let server = try server()
        let port = String(server.uri.split(separator: ":").last!)
        let output = directory.file("mary.wav")
        // speak2mary's default voice is MaryTTS's own cmu-slt-hsmm, which no pack has: the locale picks the voice.
        _ = try driver(["mary", "127.0.0.1", port, output, Self.text, "en_US", "cmu-slt-hsmm", "WAVE_FILE"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == (try rendered(Self.text, name: "m.wav", ["--encoding", "s16"])))
        _ = try driver(["mary", "127.0.0.1", port, output, "設定", "ja_JP", "org.concatsynth.ja", "AIFF_FILE"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == (try rendered("設定", name: "j.aiff", ["--encoding", "s16", "--voice", "org.concatsynth.ja"])))

        let voices = try curl([server.uri + "/voices"])
        #expect(voices.body == "org.concatsynth.en en_US unknown\norg.concatsynth.ja ja_JP unknown\n")
        #expect(try curl([server.uri + "/locales"]).body == "en_US\nja_JP\n")
        #expect(try curl([server.uri + "/version"]).body.hasPrefix("Mary TTS server"))
        let get = try curl(["-o", output, server.uri + "/process?INPUT_TEXT=Good+morning&INPUT_TYPE=TEXT&LOCALE=en_US"])
        #expect(get.status == 200)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == (try rendered("Good morning", name: "g.wav", ["--encoding", "s16"])))
    }

    @Test(
        "words no clip covers are spoken by the fallback voice: render's samples, sounding where its phrase is",
        arguments: [
            ("openai", "pcm", ["--sample-rate", "24000", "--encoding", "s16"]), ("openai", "wav", []),
            ("mary", "WAVE_FILE", ["--encoding", "s16"]),
        ])
    func fallbackVoice(client: String, format: String, options: [String]) throws {
        let server = try server()
        let port = String(server.uri.split(separator: ":").last!)
        let output = directory.file("fallback-\(format)")
        let text = "Hello Bob, the weather today is sunny."
        _ = try driver(
            client == "mary"
                ? ["mary", "127.0.0.1", port, output, text, "en_US", "org.concatsynth.en", format]
                : ["openai", server.uri + "/v1", output, text, "org.concatsynth.en", format, "1"])
        let received = try Data(contentsOf: URL(fileURLWithPath: output))
        let reference = try FallbackReference(text, options: ["--bank", pack] + options, directory: directory)
        #expect(reference.fallbackFrames.count == 1)
        // A file's samples are its end, after the header.
        let samples = format == "pcm" ? received : received.suffix(reference.bytes.count)
        #expect(samples.count == reference.bytes.count)
        #expect(samples == reference.bytes)
        let peaks =
            options.contains("s16")
            ? reference.fallbackPeaks(samples.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) })
            : reference.fallbackPeaks(samples.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
        #expect(peaks.count == 1 && peaks.allSatisfy { $0 > 0.05 }, "\(peaks)")
        try server.waitForLog(", 1 fallback")
    }

    @Test("an answer sent whole is logged with its status, not as cancelled, when the client closes on its last byte")
    func closedOnLastByte() throws {
        let server = try server()
        let port = try #require(Int(server.uri.split(separator: ":").last!))
        let speech =
            #"{"model": "tts-1", "input": "Hello Bob", "voice": "org.concatsynth.en", "response_format": "wav"}"#
        let requests = [
            "GET /process?INPUT_TEXT=Hello+Bob&INPUT_TYPE=TEXT&LOCALE=en_US HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "POST /v1/audio/speech HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(speech.utf8.count)\r\n\r\n\(speech)",
        ]
        // As speak2mary and the openai client do, each connection is closed once its content-length of bytes is in:
        // a close that overtook a last, empty step of the answer was taken for a client leaving mid-answer.
        let count = 20
        for index in 0..<count {
            let socket = try TCPClient(port: port)
            try socket.send(requests[index % requests.count])
            let answer = try socket.readAnswer(seconds: 10)
            #expect(answer.head.hasPrefix("HTTP/1.1 200 OK"), "\(answer.head)")
        }
        try server.waitForLog("client \(count) ")
        let log = server.log
        #expect(
            log.split(separator: "\n").filter { $0.contains(" 200 voice org.concatsynth.en") }.count == count, "\(log)")
        #expect(!log.contains("went away"), "\(log)")
    }

    @Test("the model and voice lists say what there is")
    func lists() throws {
        let server = try server()
        let models = try curl([server.uri + "/v1/models"])
        #expect(models.status == 200)
        #expect(models.body.contains(#""id":"concat-synth""#))
        let voices = try curl([server.uri + "/v1/audio/voices"])
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(voices.body.utf8)) as? [String: [[String: Any]]])
        #expect(list["voices"]?.map { $0["id"] as? String } == ["org.concatsynth.en", "org.concatsynth.ja"])
        #expect(list["voices"]?.first?["pack"] as? String == "default")
    }

    @Test(
        "a request the API cannot take is an OpenAI error with the status that fits, and the next one is served",
        arguments: [
            ("Hello", "org.concatsynth.en", "aac", "1", 400, "expected one of: mp3, opus, wav, flac, pcm"),
            ("Hello", "alloy", "wav", "1", 400, #"voice "alloy" is not one this server speaks"#),
            ("Hello", "org.concatsynth.en", "wav", "9", 400, "expected 0.25 to 4"),
            ("<speak>Hello", "org.concatsynth.en", "wav", "1", 400, "line 1"),
        ])
    func apiErrors(text: String, voice: String, format: String, speed: String, status: Int, message: String) throws {
        let server = try server()
        let answer = try driver(["openai-error", server.uri + "/v1", text, voice, format, speed])
        #expect(answer["status"] as? Int == status)
        let error = try #require(
            (answer["body"] as? [String: Any]) ?? (answer["body"] as? [String: [String: Any]])?["error"])
        #expect((error["message"] as? String)?.contains(message) == true, "\(error)")
        #expect(error["type"] as? String == "invalid_request_error")
        let output = directory.file("after.wav")
        _ = try driver(["openai", server.uri + "/v1", output, "Hello", "org.concatsynth.en", "wav", "1"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == (try rendered("Hello", name: "h.wav")))
    }

    @Test(
        "limits: a body over 1 MiB gets 413, headers over 16 KiB 431, an unknown path 404; each followed by a good request"
    )
    func limits() throws {
        let server = try server()
        let big = directory.file("big.json")
        try Data(("{\"input\": \"" + String(repeating: "a", count: 1 << 20) + "\"}").utf8).write(
            to: URL(fileURLWithPath: big))
        let tooLarge = try curl([
            "-H", "content-type: application/json", "--data-binary", "@\(big)", server.uri + "/v1/audio/speech",
        ])
        #expect(tooLarge.status == 413)
        #expect(tooLarge.body.contains("over the 1048576 this server takes"))
        let header = try curl(["-H", "X-Padding: " + String(repeating: "b", count: 17_000), server.uri + "/v1/models"])
        #expect(header.status == 431)
        #expect(try curl([server.uri + "/v2/everything"]).status == 404)
        #expect(try curl(["-X", "DELETE", server.uri + "/v1/models"]).status == 405)
        let wrongMethod = try curl(["-i", "-X", "DELETE", server.uri + "/process"])
        #expect(wrongMethod.body.lowercased().contains("\r\nallow: get, post\r\n"), "\(wrongMethod.body)")
        #expect(wrongMethod.body.hasSuffix("DELETE is not a method of /process; expected GET or POST\n"))
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
        try server.waitForLog("refused: 431")
    }

    @Test("an answer rendered into a file stops at --file-limit with a 400; pcm streams past it")
    func fileLimit() throws {
        let server = try server(["--file-limit", "2"])
        let long = String(repeating: "Good morning. Double tap to open. ", count: 4)
        let answer = try driver(["openai-error", server.uri + "/v1", long, "org.concatsynth.en", "wav", "1"])
        #expect(answer["status"] as? Int == 400)
        let error = try #require(answer["body"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("over 2 seconds of audio") == true, "\(error)")
        let output = directory.file("long.raw")
        _ = try driver(["openai", server.uri + "/v1", output, long, "org.concatsynth.en", "pcm", "1"])
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: output))
                == (try rendered(long, name: "long.raw", ["--sample-rate", "24000", "--encoding", "s16"])))
    }

    @Test("a client that sends a byte at a time is cut off after --request-timeout with 408; the server goes on")
    func slowClient() throws {
        let server = try server(["--request-timeout", "1"])
        let port = String(server.uri.split(separator: ":").last!)
        let answer = try driver(["slow", "127.0.0.1", port])
        #expect((answer["answer"] as? String)?.hasPrefix("HTTP/1.1 408 Request Timeout") == true, "\(answer)")
        #expect((answer["seconds"] as? Double ?? 0) < 5)
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
    }

    @Test(
        "a refusal reaches a client still sending its request: the status and body are read, and a new connection is served",
        arguments: [
            ("http.client", "body", 413, "over the 1048576 this server takes"),
            ("http.client", "head", 431, "over 16384 bytes"),
            ("http.client", "malformed", 400, "not valid HTTP/1.1"),
            ("http.client", "slow", 408, "within 1 s of its first byte"),
            ("openai", "body", 413, "over the 1048576 this server takes"),
            ("openai", "head", 431, "over 16384 bytes"),
            ("openai", "malformed", 400, "not valid HTTP/1.1"),
        ])
    func refusedWhileSending(client: String, kind: String, status: Int, message: String) throws {
        let server = try server(["--request-timeout", "1"])
        let answer = try driver(["refused", client, server.uri + (client == "openai" ? "/v1" : ""), kind])
        #expect(answer["status"] as? Int == status, "\(answer)")
        #expect((answer["body"] as? String)?.contains(message) == true, "\(answer)")
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
        try server.waitForLog("client 2 GET /v1/models 200")
        // One line for the request, its refusal: not a second when the client, having read it, closes.
        #expect(server.log.split(separator: "\n").filter { $0.hasPrefix("client 1 ") }.count == 1, "\(server.log)")
        #expect(!server.log.contains("cut off"), "\(server.log)")
    }

    @Test(
        "curl reads each refusal while still sending: 413, 431, 400 and 408; a new connection is served after each")
    func refusedCurl() throws {
        let server = try server(["--request-timeout", "1"])
        let big = directory.file("big.json")
        try Data(("{\"input\": \"" + String(repeating: "a", count: 6 << 20) + "\"}").utf8).write(
            to: URL(fileURLWithPath: big))
        let header = directory.file("header.txt")
        // Near curl's own bound on a request's headers, 1 MiB.
        let lines = (0..<1_000).map { "X-Padding-\($0): " + String(repeating: "b", count: 1_000) + "\n" }
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: header))
        let small = directory.file("small.json")
        try Data(String(repeating: "a", count: 100 << 10).utf8).write(to: URL(fileURLWithPath: small))
        // Without `Expect:` curl asks for 100-continue before a large body and is refused before it sends it.
        let speech = server.uri + "/v1/audio/speech"
        let requests: [([String], Int, String)] = [
            (["-H", "Expect:", "--data-binary", "@\(big)", speech], 413, "over the 1048576 this server takes"),
            (["-H", "@\(header)", server.uri + "/v1/models"], 431, "over 16384 bytes"),
            (
                [
                    "-H", "Expect:", "-H", "Transfer-Encoding: chunked", "-H", "Content-Length: 5", "--data-binary",
                    "@\(big)", speech,
                ], 400, "not valid HTTP/1.1"
            ),
            (["-H", "Expect:", "--limit-rate", "10K", "--data-binary", "@\(small)", speech], 408, "within 1 s"),
        ]
        for (arguments, status, message) in requests {
            let answer = try curl(arguments)
            #expect(answer.status == status, "\(arguments.prefix(4)): \(answer.body.prefix(300))")
            #expect(answer.body.contains(message), "\(answer.body.prefix(300))")
            #expect(try curl([server.uri + "/v1/models"]).status == 200)
        }
        try server.waitForLog("client 8 GET /v1/models 200")
        #expect(server.log.split(separator: "\n").filter { $0.hasPrefix("client ") }.count == 8, "\(server.log)")
        #expect(!server.log.contains("cut off"), "\(server.log)")
    }

    @Test(
        "a refused client that never stops sending is cut off past the drain's bytes, or its seconds; the server goes on",
        arguments: ["0", "0.1"])
    func drainBounds(pace: String) throws {
        let server = try server()
        let port = String(server.uri.split(separator: ":").last!)
        let answer = try driver(["flood", "127.0.0.1", port, pace])
        #expect(answer["error"] as? String != nil, "\(answer)")
        let limits = HTTPLimits()
        if pace == "0" {
            #expect((answer["sent"] as? Int ?? 0) > limits.drainBytes, "\(answer)")
            try server.waitForLog("cut off: still sending after its refusal, over \(limits.drainBytes) bytes")
        } else {
            try server.waitForLog("cut off: still sending after its refusal, for \(limits.drainSeconds) s")
        }
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
    }

    @Test("a kept-alive connection that sends nothing for --idle-timeout is closed; a new one is served")
    func idleConnection() throws {
        let server = try server(["--idle-timeout", "1"])
        let port = try #require(Int(server.uri.split(separator: ":").last!))
        let socket = try TCPClient(port: port)
        try socket.send("GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try socket.readUntilClosed(seconds: 5).hasPrefix("HTTP/1.1 200 OK"))
        try server.waitForLog("closed: idle for 1 s")
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
    }

    @Test("a client that goes mid-answer has its render cancelled and logged so; the server goes on")
    func hangUp() throws {
        let server = try server()
        let port = String(server.uri.split(separator: ":").last!)
        let long = String(repeating: "Good morning. Double tap to open. ", count: 500)
        let answer = try driver(["hangup", "127.0.0.1", port, long])
        #expect(answer["status_line"] as? String == "HTTP/1.1 200 OK")
        try server.waitForLog("answer cancelled")
        #expect(try curl([server.uri + "/v1/models"]).status == 200)
    }

    @Test("--api-key: a request without Authorization: Bearer KEY gets 401; with it, speech")
    func apiKey() throws {
        let server = try server(["--api-key", "s3cret"])
        let refused = try curl([server.uri + "/v1/models"])
        #expect(refused.status == 401)
        #expect(refused.body.contains("authentication_error"))
        #expect(try curl(["-H", "Authorization: Bearer wrong", server.uri + "/v1/models"]).status == 401)
        #expect(try curl(["-H", "Authorization: Bearer s3cret", server.uri + "/v1/models"]).status == 200)
    }

    @Test("50 clients of 10 requests each are all served")
    func load() throws {
        let server = try server()
        let answer = try driver(["load", server.uri + "/v1", "50", "10", "Hello"])
        #expect(answer["error_count"] as? Int == 0, "\(answer)")
        #expect(
            answer["sizes"] as? [Int] == [
                (try rendered("Hello", name: "l.raw", ["--sample-rate", "24000", "--encoding", "s16"])).count
            ])
    }

    @Test("binding beyond loopback without --api-key warns")
    func exposedWarning() throws {
        let server = try WyomingTestServer(arguments: ["serve", "--bank", pack, "--http", "0.0.0.0:0"]) { line in
            line.hasPrefix("HTTP listening on ") ? String(line.dropFirst("HTTP listening on ".count)) : nil
        }
        #expect(server.log.contains("warning: the HTTP server on 0.0.0.0:0 is reachable from other machines"))
    }
}

/// The Python side of the HTTP tests: tools/python-env's interpreter running Fixtures/http_driver.py.
enum HTTPDriver {
    static let http = PythonDriver("Tests/SpeechServiceTests/Fixtures/http_driver.py")
}
