// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import Voicebank

/// `voicebank studio` as a process, driven with curl: its address and token, who it refuses, the takes it keeps and
/// the ones it refuses. Each test starts its own studio on a free port, with its own copy of the default pack.
@Suite struct StudioServerTests {
    let directory = TemporaryDirectory("studio")
    let voicebank = Binary("voicebank")
    static let voice = "org.concatsynth.en"
    /// The words the default English voice lacks: `bob says the weather is fine`, `bob`, `the`, `carol`.
    static let texts = "Hello Bob, good morning. Bob says the weather is fine.\nOpen the settings, Carol.\n"

    var pack: String { directory.file("pack.sqlite") }
    var textsFile: String { directory.file("texts.txt") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
        try Self.texts.write(toFile: textsFile, atomically: true, encoding: .utf8)
    }

    // MARK: Helpers

    /// `voicebank studio` on this suite's pack and texts, with its address read from the first line it prints.
    struct Studio {
        let server: ServerProcess
        /// The first line: `http://127.0.0.1:PORT/?token=…`.
        var url: String { server.address }
        var base: String { String(url[..<url.range(of: "/?token=")!.lowerBound]) }
        var token: String { String(url[url.range(of: "token=")!.upperBound...]) }
        var port: String { String(base.split(separator: ":").last!) }
    }

    func studio(
        _ arguments: [String] = [], pack: String? = nil, environment: [String: String?] = [:]
    ) throws -> Studio {
        let arguments =
            ["studio", "--bank", pack ?? self.pack, "--voice", Self.voice]
            + (arguments.contains("--prompts") ? [] : ["--texts", textsFile]) + arguments
        return Studio(
            server: try ServerProcess(
                voicebank, arguments, environment: environment, isAddressOnStandardOutput: true
            ) {
                $0.hasPrefix("http://") ? String($0) : nil
            })
    }

    /// The API with the studio's token.
    func api(_ studio: Studio, _ arguments: [String]) throws -> (status: Int, body: String) {
        try curl(["-H", "X-Studio-Token: \(studio.token)"] + arguments)
    }

    /// Raw f32le samples in a file: 0.3 s of silence, 0.5 s of a tone at -6 dBFS, 0.3 s of silence, at 48 kHz; and the
    /// same samples as a Float32 WAV file.
    func take(frequency: Double = 300) throws -> (raw: String, wav: String, samples: [Float]) {
        let silence = [Float](repeating: 0, count: 14_400)
        let tone = Signal.sine(frequency: frequency, sampleRate: 48_000, frameCount: 24_000).map { $0 * 0.5 }
        let samples = silence + tone + silence
        let raw = directory.file("take-\(frequency).raw")
        try Data(samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
            .write(to: URL(fileURLWithPath: raw))
        let wav = try Fixture.write(
            samples, to: directory.file("take-\(frequency).wav"), format: .init(.wav, .float32), sampleRate: 48_000)
        return (raw, wav, samples)
    }

    /// Sends a take's raw samples as the page does.
    func send(_ studio: Studio, prompt: String, raw: String, headers: [String: String] = [:]) throws -> (
        status: Int, body: String
    ) {
        let defaults = [
            "Content-Type": "application/octet-stream", "X-Sample-Rate": "48000", "X-Sample-Format": "f32le",
        ]
        let all = defaults.merging(headers) { $1 }.filter { !$0.value.isEmpty }
        return try api(
            studio,
            all.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0.key): \($0.value)"] }
                + ["--data-binary", "@\(raw)", "\(studio.base)/api/takes?prompt=\(prompt)"])
    }

    func clips(_ path: String? = nil) throws -> [Clip] {
        try VoicePack(path: path ?? pack, access: .readOnly).clips(voice: Self.voice)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: Tests

    @Test("the first line is the page's address with a random token; the page sets its cookie; its files load with it")
    func address() throws {
        let studio = try studio()
        #expect(studio.url.hasPrefix("http://127.0.0.1:"))
        #expect(studio.token.count == 48 && studio.token.allSatisfy(\.isHexDigit))
        #expect(try self.studio().token != studio.token)
        let cookies = directory.file("cookies")
        let page = try curl(["-c", cookies, studio.url])
        #expect(page.status == 200)
        #expect(page.body.contains(#"aria-live="polite""#))
        #expect(
            try String(contentsOfFile: cookies, encoding: .utf8).contains(
                "studio-token-\(studio.port)\t\(studio.token)"))
        var firstLoad = page.body.utf8.count
        for file in ["studio.css", "recorder.js"] + (try modules(studio, cookies: cookies)) {
            let answer = try curl(["-b", cookies, "\(studio.base)/\(file)"])
            #expect(answer.status == 200, "\(file)")
            firstLoad += answer.body.utf8.count
        }
        #expect(firstLoad <= 200 * 1_024)
        #expect(!studio.server.log.contains(studio.token), "the log keeps no token")
    }

    /// `studio.js` and every module it imports, and they import, as the browser loads them: paths from the root.
    func modules(_ studio: Studio, cookies: String) throws -> [String] {
        var found = ["studio.js"]
        var index = 0
        while index < found.count {
            let file = found[index]
            index += 1
            let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) + "/" : ""
            let source = try curl(["-b", cookies, "\(studio.base)/\(file)"]).body
            for line in source.split(separator: "\n") where line.hasPrefix("import ") {
                guard let start = line.range(of: "'./")?.upperBound, let end = line[start...].firstIndex(of: "'") else {
                    continue
                }
                let imported = folder + line[start..<end]
                if !found.contains(imported) { found.append(imported) }
            }
        }
        return found
    }

    @Test("the page's script is ES modules, each served with its own route as text/javascript, none of them cached")
    func pageModules() throws {
        let studio = try studio()
        let cookies = directory.file("cookies")
        _ = try curl(["-c", cookies, studio.url])
        let modules = try self.modules(studio, cookies: cookies)
        #expect(modules.count >= 10, "\(modules)")
        #expect(modules.contains("modules/keyboard.js") && modules.contains("modules/recording.js"))
        for module in modules {
            let head = try curl(["-b", cookies, "-D", "-", "-o", "/dev/null", "\(studio.base)/\(module)"])
            #expect(head.status == 200, "\(module)")
            #expect(head.body.lowercased().contains("content-type: text/javascript; charset=utf-8"), "\(module)")
            #expect(head.body.lowercased().contains("cache-control: no-store"), "\(module)")
        }
        #expect(try curl(["-b", cookies, "\(studio.base)/modules/nothing.js"]).status == 404)
        #expect(try curl(["-b", cookies, "-X", "POST", "\(studio.base)/modules/takes.js"]).status == 405)
    }

    @Test(
        "the script is what coverage says is missing, the run covering the most words first; the figure is coverage's")
    func script() throws {
        let studio = try studio()
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let prompts = try #require(state["prompts"] as? [[String: Any]])
        #expect(prompts.map { $0["text"] as? String } == ["bob says the weather is fine", "bob", "the", "carol"])
        #expect(prompts.map { $0["id"] as? String } == ["1", "2", "3", "4"])
        let coverage = try voicebank.run(["coverage", "--bank", pack, "--voice", Self.voice, "--file", textsFile])
        let summary = try #require(coverage.standardOutput.split(separator: "\n").last.map(String.init))
        #expect((state["coverage"] as? [String: Any])?["summary"] as? String == summary)
    }

    @Test(
        "without the token, with another, from a foreign Origin or to another Host: 403, and nothing written",
        arguments: [
            ("no token", [String]()), ("another token", ["-H", "X-Studio-Token: 0123"]),
            ("a foreign Origin", ["-H", "X-Studio-Token: TOKEN", "-H", "Origin: http://evil.example"]),
            ("another port's Origin", ["-H", "X-Studio-Token: TOKEN", "-H", "Origin: http://127.0.0.1:1"]),
            ("a rebound Host", ["-H", "X-Studio-Token: TOKEN", "-H", "Host: evil.example:PORT"]),
            ("localhost as the Host", ["-H", "X-Studio-Token: TOKEN", "-H", "Host: localhost:PORT"]),
            ("the token in a cookie", ["-H", "Cookie: studio-token-PORT=TOKEN"]),
        ])
    func refused(name: String, headers: [String]) throws {
        let studio = try studio()
        let before = try clips()
        let take = try take()
        let filled = headers.map {
            $0.replacingOccurrences(of: "TOKEN", with: studio.token).replacingOccurrences(of: "PORT", with: studio.port)
        }
        let requests: [[String]] = [
            ["\(studio.base)/api/state"],
            [
                "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: 48000", "-H",
                "X-Sample-Format: f32le", "--data-binary", "@\(take.raw)", "\(studio.base)/api/takes?prompt=1",
            ],
            ["-X", "DELETE", "\(studio.base)/api/takes/\(before[0].id)"],
            [
                "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: 48000", "-H",
                "X-Sample-Format: f32le", "--data-binary", "@\(take.raw)", "\(studio.base)/api/recordings",
            ],
            [
                "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: 48000", "-H",
                "X-Sample-Format: f32le", "--data-binary", "@\(take.raw)",
                "\(studio.base)/api/recordings/1/end?frame=0",
            ],
            ["-X", "DELETE", "\(studio.base)/api/recordings/1"],
            ["-X", "POST", "\(studio.base)/api/takes?prompt=1&recording=1"],
        ]
        for request in requests {
            let answer = try curl(filled + request)
            #expect(answer.status == 403, "\(name): \(request.last!) \(answer.body)")
            #expect((try? json(answer.body))?["error"] != nil, "\(answer.body)")
        }
        #expect(try clips() == before)
        #expect(!studio.server.log.contains(" 201 "))
        #expect(!studio.server.log.contains("recording 1"))
    }

    @Test("the page and its files are refused without their token", arguments: ["/?token=0123", "/", "/studio.js"])
    func pageRefused(target: String) throws {
        let studio = try studio()
        #expect(try curl(["\(studio.base)\(target)"]).status == 403)
        #expect(try curl(["-H", "Host: evil.example:\(studio.port)", studio.url]).status == 403)
    }

    @Test("a take is imported as voicebank import imports the same file: trimmed, converted, its original kept")
    func takeIsAnImport() throws {
        let studio = try studio()
        let take = try take()
        let answer = try send(studio, prompt: "2", raw: take.raw)
        #expect(answer.status == 201, "\(answer.body)")
        let change = try json(answer.body)
        #expect((change["prompts"] as? [[String: Any]])?.map { $0["text"] as? String } == ["bob"])
        #expect((change["coverage"] as? [String: Any])?["summary"] as? String == "covered: 7 of 14 tokens (50.0 %)")

        let imported = directory.file("imported.sqlite")
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: imported)
        let result = try voicebank.run(["import", "--bank", imported, "--voice", Self.voice, "--text", "bob", take.wav])
        #expect(result.status == 0, "\(result.standardError)")

        let kept = try #require(try clips().last)
        let reference = try #require(try clips(imported).last)
        #expect(kept.phrase == "bob" && kept.phraseKey == "bob")
        #expect(kept.sourceName == "bob.wav")
        #expect(kept.source == reference.source)
        #expect(kept.frameCount == reference.frameCount)
        // Trimmed: the 0.5 s tone and the pack's 30 ms pad at each end, not the 0.6 s of silence around it.
        #expect(abs(kept.durationSeconds - 0.56) < 0.005, "\(kept.durationSeconds)")
        let store = try VoicePack(path: pack, access: .readOnly)
        let referenceStore = try VoicePack(path: imported, access: .readOnly)
        #expect(try store.renderReadyPCM(clipID: kept.id) == referenceStore.renderReadyPCM(clipID: reference.id))
        #expect(try store.originalPCM(clipID: kept.id) == referenceStore.originalPCM(clipID: reference.id))

        let audio = directory.file("audio.raw")
        let played = try api(studio, ["-o", audio, "-D", "-", "\(studio.base)/api/takes/\(kept.id)/audio"])
        #expect(played.status == 200)
        #expect(played.body.lowercased().contains("x-sample-rate: 22050"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: audio)).count == kept.frameCount * 4)

        let discarded = try api(studio, ["-X", "DELETE", "\(studio.base)/api/takes/\(kept.id)"])
        #expect(discarded.status == 200, "\(discarded.body)")
        #expect(try clips().contains { $0.id == kept.id } == false)
        #expect(try api(studio, ["-X", "DELETE", "\(studio.base)/api/takes/\(kept.id)"]).status == 404)
        // A clip of the voice that is no prompt's take is not the studio's to remove.
        let other = try #require(try clips().first)
        #expect(try api(studio, ["-X", "DELETE", "\(studio.base)/api/takes/\(other.id)"]).status == 404)
        #expect(try clips().contains(other))
    }

    /// `GET /api/takes/ID/WHAT` once it is no longer pending (the listener's or the aligner's answer).
    func settled(_ studio: Studio, take id: Int, _ what: String) throws -> [String: Any] {
        var answer: [String: Any] = [:]
        for _ in 0..<1_200 {
            answer = try json(try api(studio, ["\(studio.base)/api/takes/\(id)/\(what)"]).body)
            if answer["status"] as? String != "pending" { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return answer
    }

    @Test("a kept English take is aligned behind the keep and says so; one alignment refuses stays in the pack")
    func keptTakesAreAligned() throws {
        let promptFile = directory.file("prompts.txt")
        try "bob\nyork\n".write(toFile: promptFile, atomically: true, encoding: .utf8)
        // "bob" as a person would say it (espeak-ng's program), sent as the page sends a take: f32le at 48 kHz.
        let spoken = directory.file("bob.wav")
        let raw = directory.file("bob.raw")
        let espeak = try Binary(path: "/usr/bin/espeak-ng").run(["-v", "en-us", "-w", spoken, "bob"])
        try #require(espeak.status == 0, "\(espeak.standardError)")
        let sox = try Binary(path: "/usr/bin/sox").run([
            spoken, "-r", "48000", "-e", "floating-point", "-b", "32", "-t", "raw", raw, "pad", "0.3", "0.3",
        ])
        try #require(sox.status == 0, "\(sox.standardError)")
        let studio = try studio(["--prompts", promptFile], environment: ["VOICEBANK_ALIGN": nil])
        let kept = try send(studio, prompt: "1", raw: raw)
        #expect(kept.status == 201, "\(kept.body)")
        let take = try #require(try json(kept.body)["take"] as? [String: Any])
        let id = try #require(take["id"] as? Int)
        #expect(take["alignment"] != nil, "the keep's answer has the take's alignment, pending or done: \(take)")

        let alignment = try settled(studio, take: id, "alignment")
        #expect(alignment["status"] as? String == "aligned", "\(alignment)")
        #expect((alignment["message"] as? String)?.hasPrefix("Aligned take 1 of “bob”") == true, "\(alignment)")
        #expect(try rows("SELECT label FROM aligned_word WHERE clip_id = \(id)", on: pack) == [["bob"]])
        #expect(try rows("SELECT count(*) > 0 FROM aligned_phone WHERE clip_id = \(id)", on: pack) == [["1"]])
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let prompts = try #require(state["prompts"] as? [[String: Any]])
        let listed = try #require((prompts.first?["takes"] as? [[String: Any]])?.first)
        #expect((listed["alignment"] as? [String: Any])?["status"] as? String == "aligned", "\(listed)")

        // A tone says no word: alignment fails or finds it unusable, and the take is kept all the same.
        let tone = try send(studio, prompt: "2", raw: try self.take(frequency: 300).raw)
        #expect(tone.status == 201, "\(tone.body)")
        let toneID = try #require((try json(tone.body)["take"] as? [String: Any])?["id"] as? Int)
        let refused = try settled(studio, take: toneID, "alignment")
        #expect(["failed", "unusable"].contains(refused["status"] as? String), "\(refused)")
        #expect(try clips().contains { $0.id == toneID })
        #expect(try api(studio, ["\(studio.base)/api/takes/999999/alignment"]).status == 404)
    }

    @Test(
        "a take kept for a position is tagged with it, the prompt's or the page's; then listened to, behind the answer"
    )
    func positionAndHearing() throws {
        let promptFile = directory.file("prompts.txt")
        try "e.bob\nbob\n".write(toFile: promptFile, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", promptFile])
        let first = try send(studio, prompt: "1", raw: try take(frequency: 300).raw)
        #expect(first.status == 201, "\(first.body)")
        let change = try json(first.body)
        // Both prompts of the phrase come back: the final one is done, the one for no particular place too.
        let prompts = try #require(change["prompts"] as? [[String: Any]])
        #expect(prompts.map { $0["readText"] as? String } == ["bob.", "bob"])
        #expect(prompts.map { $0["isDone"] as? Bool } == [true, true])
        let keptTake = try #require(change["take"] as? [String: Any])
        #expect(keptTake["position"] as? String == "final")
        let second = try send(studio, prompt: "1&position=question", raw: try take(frequency: 400).raw)
        #expect(second.status == 201, "\(second.body)")
        let third = try send(studio, prompt: "1&position=none", raw: try take(frequency: 500).raw)
        #expect(third.status == 201, "\(third.body)")
        let kept = try clips().suffix(3)
        #expect(kept.map(\.position) == [.final, .question, nil])
        #expect(kept.map(\.sourceName) == ["e.bob.wav", "q.bob.wav", "bob.wav"])

        // A tone is no phrase: whatever the recogniser makes of it, the page is told, once the listener is done.
        let id = try #require(keptTake["id"] as? Int)
        var hearing: [String: Any] = [:]
        for _ in 0..<100 {
            hearing = try json(try api(studio, ["\(studio.base)/api/takes/\(id)/hearing"]).body)
            if hearing["status"] as? String != "pending" { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(hearing["status"] as? String == "differs", "\(hearing)")
        let message = try #require(hearing["message"] as? String)
        #expect(message.hasPrefix("Heard ") && message.contains(" in take 1 of “bob.”"), "\(hearing)")
        #expect(message.hasSuffix("It stays in the pack unless you discard it."), "\(hearing)")
        let logged = "listened to take #\(id) \"bob\" in "
        for _ in 0..<50 where !studio.server.log.contains(logged) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(studio.server.log.contains(logged), "\(studio.server.log)")
        #expect(try api(studio, ["\(studio.base)/api/takes/999999/hearing"]).status == 404)
    }

    @Test(
        "a take the studio cannot read is refused with a clear error, and nothing is written",
        arguments: [
            (
                "2", ["X-Sample-Format": "s16le"], "raw", 400,
                #"X-Sample-Format "s16le" is not a format the studio takes"#
            ),
            ("2", ["X-Sample-Format": ""], "raw", 400, "the request has no X-Sample-Format header"),
            ("2", ["X-Sample-Rate": "1000"], "raw", 400, #"X-Sample-Rate "1000" is not a rate in Hz from 8000"#),
            ("2", ["Content-Type": "audio/wav"], "raw", 415, #"a take sent as "audio/wav" is not one the studio"#),
            ("2", [:], "wav", 400, "the body is a WAV file, not raw samples"),
            ("2", [:], "text", 400, "not a number from -2.0 to 2.0"),
            ("2", [:], "odd", 400, "the body is 5 bytes, not a whole number of 4-byte samples"),
            ("9", [:], "raw", 404, #"no prompt "9" in this studio's script; expected the id of one of its 4 prompts"#),
            (
                "2&position=last", [:], "raw", 400,
                #"the position "last" is not one; expected initial, medial, final, question or none"#
            ),
            ("2", [:], "large", 413, "over the 33554432 this server takes"),
        ])
    func badTake(prompt: String, headers: [String: String], body: String, status: Int, message: String) throws {
        let studio = try studio()
        let before = try clips()
        let take = try take()
        let bodies = [
            "raw": take.raw, "wav": take.wav, "text": directory.file("text"), "odd": directory.file("odd"),
            "large": directory.file("large"),
        ]
        try Data("This is not audio, it's text".utf8).write(to: URL(fileURLWithPath: bodies["text"]!))
        try Data("12345".utf8).write(to: URL(fileURLWithPath: bodies["odd"]!))
        try Data(count: (32 << 20) + 4).write(to: URL(fileURLWithPath: bodies["large"]!))
        let answer = try send(studio, prompt: prompt, raw: bodies[body]!, headers: headers)
        #expect(answer.status == status, "\(answer.body)")
        let error = try #require((try json(answer.body))["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains(message) == true, "\(error)")
        #expect(try clips() == before)
        try studio.server.waitForLog(" \(status)")
    }

    /// Sends samples to one of the recording endpoints (`/api/recordings`, `/api/recordings/ID?frame=F`, …) as the
    /// page does, with the page's headers unless `headers` changes them.
    func sendPiece(_ studio: Studio, _ target: String, _ samples: ArraySlice<Float>, headers: [String: String] = [:])
        throws -> (status: Int, body: String)
    {
        let piece = directory.file("piece.raw")
        try Data(samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
            .write(to: URL(fileURLWithPath: piece))
        let defaults = [
            "Content-Type": "application/octet-stream", "X-Sample-Rate": "48000", "X-Sample-Format": "f32le",
        ]
        let all = defaults.merging(headers) { $1 }
        return try api(
            studio,
            all.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0.key): \($0.value)"] }
                + ["--data-binary", "@\(piece)", "\(studio.base)\(target)"])
    }

    /// Sends `samples` as a recording in pieces of the sizes given (the first with the start, the last with the end)
    /// and answers its id.
    func sendInPieces(_ studio: Studio, _ samples: [Float], sizes: [Int]) throws -> Int {
        var start = min(sizes[0], samples.count)
        let started = try sendPiece(studio, "/api/recordings", samples[..<start])
        #expect(started.status == 201, "\(started.body)")
        let id = try #require(try json(started.body)["id"] as? Int)
        for size in sizes.dropFirst() {
            let end = min(start + size, samples.count)
            let answer = try sendPiece(studio, "/api/recordings/\(id)?frame=\(start)", samples[start..<end])
            #expect(answer.status == 200, "\(answer.body)")
            #expect(try json(answer.body)["frames"] as? Int == end)
            start = end
        }
        let ended = try sendPiece(studio, "/api/recordings/\(id)/end?frame=\(start)", samples[start...])
        #expect(ended.status == 200, "\(ended.body)")
        let state = try json(ended.body)
        #expect(state["frames"] as? Int == samples.count && state["isEnded"] as? Bool == true, "\(state)")
        return id
    }

    @Test(
        "a take sent in pieces as it is recorded is kept as the same take sent whole: the same clip, the same check")
    func piecesAreTheWholeTake() throws {
        let whole = try studio()
        let piecesPack = directory.file("pieces.sqlite")
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: piecesPack)
        let pieces = try studio(pack: piecesPack)
        let before = try clips(piecesPack)
        let take = try take()

        let wholeCheck = try api(
            whole,
            [
                "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: 48000", "-H",
                "X-Sample-Format: f32le", "--data-binary", "@\(take.raw)", "\(whole.base)/api/takes/check",
            ])
        #expect(wholeCheck.status == 200, "\(wholeCheck.body)")
        let kept = try send(whole, prompt: "2&position=final", raw: take.raw)
        #expect(kept.status == 201, "\(kept.body)")
        // What P plays of it before it is kept: the tone and its pads, as long as the take the pack then holds.
        let played = try #require(try json(wholeCheck.body)["played"] as? [Int], "\(wholeCheck.body)")
        let keptSeconds = try #require((try json(kept.body)["take"] as? [String: Any])?["seconds"] as? Double)
        #expect(played.count == 2 && played[0] > 0 && played[0] <= 14_400 && played[1] >= 38_400)
        #expect(played.count == 2 && abs(Double(played[1] - played[0]) / 48_000 - keptSeconds) < 0.002, "\(played)")

        // Odd sizes, an empty start: the pieces of a page whose timer and audio thread do not keep step.
        let id = try sendInPieces(pieces, take.samples, sizes: [0, 4_801, 7, 12_000, 1, 20_000])
        let check = try api(pieces, ["-X", "POST", "\(pieces.base)/api/takes/check?recording=\(id)"])
        #expect(check.status == 200, "\(check.body)")
        #expect(try json(check.body) as NSDictionary == json(wholeCheck.body) as NSDictionary)
        #expect(try clips(piecesPack) == before, "nothing is in the pack before the keep")
        let keptPieces = try api(
            pieces, ["-X", "POST", "\(pieces.base)/api/takes?prompt=2&position=final&recording=\(id)"])
        #expect(keptPieces.status == 201, "\(keptPieces.body)")
        let keptChange = try json(keptPieces.body)
        let wholeChange = try json(kept.body)
        // What listening found depends on when the listener got to it, not on how the take came.
        var keptTake = try #require(keptChange["take"] as? [String: Any])
        var wholeTake = try #require(wholeChange["take"] as? [String: Any])
        keptTake["hearing"] = nil
        wholeTake["hearing"] = nil
        keptTake["alignment"] = nil
        wholeTake["alignment"] = nil
        #expect(keptTake as NSDictionary == wholeTake as NSDictionary)
        #expect((keptChange["coverage"] as? NSDictionary) == (wholeChange["coverage"] as? NSDictionary))

        let wholeClip = try #require(try clips().last)
        let piecesClip = try #require(try clips(piecesPack).last)
        #expect(piecesClip == wholeClip)
        #expect(piecesClip.position == .final && piecesClip.sourceName == "e.bob.wav")
        let store = try VoicePack(path: pack, access: .readOnly)
        let piecesStore = try VoicePack(path: piecesPack, access: .readOnly)
        #expect(
            try piecesStore.renderReadyPCM(clipID: piecesClip.id).map(\.bitPattern)
                == store.renderReadyPCM(clipID: wholeClip.id).map(\.bitPattern))
        #expect(try piecesStore.originalPCM(clipID: piecesClip.id) == store.originalPCM(clipID: wholeClip.id))
        // Kept, the recording is gone: keeping it again finds none.
        let again = try api(pieces, ["-X", "POST", "\(pieces.base)/api/takes?prompt=2&recording=\(id)"])
        #expect(again.status == 404, "\(again.body)")
        #expect(again.body.contains("no recording \(id) in progress"), "\(again.body)")
    }

    @Test(
        "pieces of another rate, out of order, past the cap, of a recording ended or unknown: clear errors, nothing kept"
    )
    func badPieces() throws {
        let studio = try studio()
        let before = try clips()
        let samples = try take().samples
        let message = { (answer: (status: Int, body: String)) throws -> String in
            try #require((try json(answer.body)["error"] as? [String: Any])?["message"] as? String)
        }
        let started = try sendPiece(studio, "/api/recordings", samples[..<4_800])
        let id = try #require(try json(started.body)["id"] as? Int)

        let otherRate = try sendPiece(
            studio, "/api/recordings/\(id)?frame=4800", samples[4_800..<9_600], headers: ["X-Sample-Rate": "44100"])
        #expect(otherRate.status == 400)
        #expect(
            try message(otherRate)
                == "a piece of recording \(id) is not in its format: the piece's X-Sample-Rate is 44100, the recording's 48000; expected every piece at the rate and in the format its start named"
        )
        let otherFormat = try sendPiece(
            studio, "/api/recordings/\(id)?frame=4800", samples[4_800..<9_600], headers: ["X-Sample-Format": "s16le"])
        #expect(otherFormat.status == 400, "\(otherFormat.body)")
        #expect(try message(otherFormat).contains(#""s16le" is not a format"#))
        let skipped = try sendPiece(studio, "/api/recordings/\(id)?frame=9600", samples[9_600..<14_400])
        #expect(skipped.status == 409)
        #expect(
            try message(skipped)
                == "a piece of recording \(id) starts at frame 9600, but its samples end at frame 4800; expected its pieces in order, each with frame=4800 for the next"
        )
        let noFrame = try sendPiece(studio, "/api/recordings/\(id)", samples[4_800..<9_600])
        #expect(noFrame.status == 400, "\(noFrame.body)")
        #expect(try message(noFrame).contains("names no frame it starts at"))
        let unknown = try sendPiece(studio, "/api/recordings/\(id + 1)?frame=4800", samples[4_800..<9_600])
        #expect(unknown.status == 404, "\(unknown.body)")
        #expect(try message(unknown).hasPrefix("no recording \(id + 1) in progress"))
        let early = try api(studio, ["-X", "POST", "\(studio.base)/api/takes?prompt=2&recording=\(id)"])
        #expect(early.status == 409, "\(early.body)")
        #expect(try message(early).contains("recording \(id) is still in progress"))
        // A piece refused changes nothing: the next one in order is taken.
        let next = try sendPiece(studio, "/api/recordings/\(id)?frame=4800", samples[4_800..<9_600])
        #expect(next.status == 200, "\(next.body)")
        #expect(try json(next.body)["frames"] as? Int == 9_600)

        // Past the cap over all pieces: 16 MiB and then 16 MiB more, each within a body's.
        let half = [Float](repeating: 0, count: 4 << 20)
        let large = try sendPiece(studio, "/api/recordings/\(id)?frame=9600", half[...])
        #expect(large.status == 200, "\(large.body)")
        let tooLarge = try sendPiece(studio, "/api/recordings/\(id)?frame=\(9_600 + half.count)", half[...])
        #expect(tooLarge.status == 413)
        #expect(try message(tooLarge).contains("more than a take may have; expected at most 33554432 bytes"))

        let ended = try sendPiece(studio, "/api/recordings/\(id)/end?frame=\(9_600 + half.count)", [][...])
        #expect(ended.status == 200, "\(ended.body)")
        let afterEnd = try sendPiece(studio, "/api/recordings/\(id)?frame=\(9_600 + half.count)", samples[..<10])
        #expect(afterEnd.status == 409, "\(afterEnd.body)")
        #expect(try message(afterEnd).hasPrefix("recording \(id) has ended"))
        let withBody = try send(studio, prompt: "2&recording=\(id)", raw: try take().raw)
        #expect(withBody.status == 400, "\(withBody.body)")
        #expect(try message(withBody).contains("expected one or the other"))

        // A new recording replaces the one in progress; a discarded one is gone.
        let newer = try sendPiece(studio, "/api/recordings", samples[..<100])
        let newerID = try #require(try json(newer.body)["id"] as? Int)
        #expect(newerID == id + 1)
        let replaced = try api(studio, ["-X", "POST", "\(studio.base)/api/takes/check?recording=\(id)"])
        #expect(replaced.status == 404, "\(replaced.body)")
        #expect(try api(studio, ["-X", "DELETE", "\(studio.base)/api/recordings/\(newerID)"]).status == 200)
        let discarded = try sendPiece(studio, "/api/recordings/\(newerID)/end?frame=100", [][...])
        #expect(discarded.status == 404, "\(discarded.body)")
        #expect(try clips() == before)
    }

    @Test(
        "a kept take's position changed in place: its row tagged and named anew, the rest of it as kept; bad ones refused"
    )
    func reposition() throws {
        let studio = try studio()
        let kept = try send(studio, prompt: "2", raw: try take().raw)
        #expect(kept.status == 201, "\(kept.body)")
        let before = try #require(try clips().last)
        #expect(before.position == nil && before.sourceName == "bob.wav")
        let move = { (target: String) throws -> (status: Int, body: String) in
            try api(studio, ["-X", "POST", "\(studio.base)/api/takes/\(target)"])
        }

        let final = try move("\(before.id)/position?position=final")
        #expect(final.status == 200, "\(final.body)")
        let change = try json(final.body)
        #expect((change["take"] as? [String: Any])?["position"] as? String == "final")
        #expect((change["prompts"] as? [[String: Any]])?.map { $0["text"] as? String } == ["bob"])
        #expect(change["coverage"] != nil)
        var expected = before
        expected.position = .final
        expected.sourceName = "e.bob.wav"
        #expect(try clips().last == expected)
        let store = try VoicePack(path: pack, access: .readOnly)
        #expect(try store.renderReadyPCM(clipID: before.id).count == before.frameCount)

        let none = try move("\(before.id)/position?position=none")
        #expect(none.status == 200, "\(none.body)")
        #expect(try clips().last == before)

        let others = try clips().dropLast()
        for (target, status, message) in [
            (
                "\(before.id)/position?position=last", 400,
                "is not one; expected initial, medial, final, question or none"
            ),
            ("\(before.id)/position", 400, "the request names no position"),
            ("999999/position?position=final", 404, "no take 999999 of a prompt of this studio"),
            ("\(others.first!.id)/position?position=final", 404, "no take \(others.first!.id) of a prompt"),
        ] {
            let answer = try move(target)
            #expect(answer.status == status, "\(target): \(answer.body)")
            #expect(answer.body.contains(message), "\(target): \(answer.body)")
        }
        #expect(try clips().last == before)
        #expect(try Array(clips().dropLast()) == Array(others))
    }

    @Test("the same audio again is refused as the take it is; another take of the prompt is kept beside the first")
    func severalTakes() throws {
        let studio = try studio()
        let first = try take()
        #expect(try send(studio, prompt: "3", raw: first.raw).status == 201)
        let again = try send(studio, prompt: "3", raw: first.raw)
        #expect(again.status == 409)
        #expect(again.body.contains(#"of \"the\" already"#))
        #expect(try send(studio, prompt: "3", raw: try take(frequency: 450).raw).status == 201)
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let prompts = try #require(state["prompts"] as? [[String: Any]])
        #expect((prompts[2]["takes"] as? [Any])?.count == 2)
    }

    @Test("two studios on one pack: each keeps its takes, and each page's state shows the other's")
    func twoStudios() throws {
        let (one, two) = (try studio(), try studio())
        #expect(try send(one, prompt: "2", raw: try take().raw).status == 201)
        #expect(try send(two, prompt: "4", raw: try take(frequency: 500).raw).status == 201)
        for studio in [one, two] {
            let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
            let prompts = try #require(state["prompts"] as? [[String: Any]])
            #expect(prompts.map { ($0["takes"] as? [Any])?.count } == [0, 1, 0, 1])
        }
    }

    @Test(
        "two pages on one studio: the page opened last records; an older page's recording is dropped, its changes refused with 409 and logged, its reads answered; registering again makes it record"
    )
    func twoPages() throws {
        let studio = try studio()
        let before = try clips()
        let samples = try take().samples
        let open = { () throws -> [String: Any] in
            let answer = try api(studio, ["-X", "POST", "\(studio.base)/api/pages"])
            #expect(answer.status == 201, "\(answer.body)")
            return try json(answer.body)
        }
        let page = { (id: Any?) in ["X-Studio-Page": "\(id ?? "")"] }
        let first = try open()
        #expect(first["id"] as? Int == 1)
        let since = try #require(first["since"] as? String)
        #expect(since.wholeMatch(of: /\d\d:\d\d:\d\d/) != nil, "\(since)")

        // The first page starts a recording; a second page is opened, and the recording is dropped.
        let started = try sendPiece(studio, "/api/recordings", samples[..<4_800], headers: page(first["id"]))
        #expect(started.status == 201, "\(started.body)")
        let recording = try #require(try json(started.body)["id"] as? Int)
        let second = try open()
        #expect(second["id"] as? Int == 2)
        try studio.server.waitForLog(
            "page 2 opened: it records from now on; recording \(recording), an older page's, dropped")
        let secondSince = try #require(second["since"] as? String)

        // Every change from the first page is refused, with the sentence its page shows, and logged.
        let refusal = "the studio is open in another page since \(secondSince); press Use here to record in this one"
        let firstPage = ["-H", "X-Studio-Page: \(first["id"]!)"]
        let kept = try send(studio, prompt: "2", raw: try take(frequency: 500).raw, headers: page(first["id"]))
        let existing = before[0].id
        for answer in [
            try sendPiece(
                studio, "/api/recordings/\(recording)?frame=4800", samples[4_800..<9_600], headers: page(first["id"])),
            try sendPiece(studio, "/api/recordings", samples[..<4_800], headers: page(first["id"])),
            try api(studio, firstPage + ["-X", "DELETE", "\(studio.base)/api/recordings/\(recording)"]),
            kept,
            try api(studio, firstPage + ["-X", "POST", "\(studio.base)/api/takes/check?recording=\(recording)"]),
            try api(studio, firstPage + ["-X", "DELETE", "\(studio.base)/api/takes/\(existing)"]),
            try api(
                studio, firstPage + ["-X", "POST", "\(studio.base)/api/takes/\(existing)/position?position=final"]),
            try api(
                studio,
                firstPage + [
                    "-H", "Content-Type: text/plain; charset=utf-8", "--data-binary", "Dave says hello.",
                    "\(studio.base)/api/texts",
                ]),
        ] {
            #expect(answer.status == 409, "\(answer.body)")
            let error = try #require(try json(answer.body)["error"] as? [String: Any])
            #expect(error["message"] as? String == refusal && error["type"] as? String == "page_error", "\(error)")
        }
        #expect(studio.server.log.contains(" 409: \(refusal)"), "\(studio.server.log)")
        // Its reads are answered.
        let state = try api(studio, firstPage + ["\(studio.base)/api/state"])
        #expect(state.status == 200, "\(state.body)")
        #expect((try json(state.body)["texts"] as? [Any])?.count == 1)

        // The recording the first page had is gone: nothing of it can be ended, checked or kept, by anyone.
        let ended = try sendPiece(studio, "/api/recordings/\(recording)/end?frame=4800", [][...])
        #expect(ended.status == 404, "\(ended.body)")
        #expect(try clips() == before)

        // The second page records; a number no page was given is refused.
        #expect(
            try send(studio, prompt: "2", raw: try take(frequency: 600).raw, headers: page(second["id"])).status == 201)
        let unknown = try send(studio, prompt: "3", raw: try take(frequency: 700).raw, headers: page(9))
        #expect(unknown.status == 404 && unknown.body.contains(#"no page \"9\" of this studio"#), "\(unknown.body)")
        // Use here: the first page registers again and records; now the second page's changes are refused.
        let again = try open()
        #expect(again["id"] as? Int == 3)
        #expect(
            try send(studio, prompt: "3", raw: try take(frequency: 800).raw, headers: page(again["id"])).status == 201)
        let late = try send(studio, prompt: "4", raw: try take(frequency: 900).raw, headers: page(second["id"]))
        #expect(late.status == 409, "\(late.body)")
        // A script names no page, and is taken as before.
        #expect(try send(studio, prompt: "4", raw: try take(frequency: 1_000).raw).status == 201)
        #expect(try clips().dropFirst(before.count).map(\.phrase) == ["bob", "the", "carol"])
    }

    @Test("--prompts: piper-recording-studio's id<TAB>text lines are the script, with their ids, in their order")
    func promptFile() throws {
        let prompts = directory.file("prompts.tsv")
        try "rec_0002\tThe washing is done.\nrec_0001\tGood evening, Carol.\n".write(
            toFile: prompts, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", prompts])
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let script = try #require(state["prompts"] as? [[String: Any]])
        #expect(script.map { $0["id"] as? String } == ["rec_0002", "rec_0001"])
        #expect(script.map { $0["text"] as? String } == ["The washing is done.", "Good evening, Carol."])
        #expect(state["coverage"] == nil)
        #expect(try send(studio, prompt: "rec_0001", raw: try take().raw).status == 201)
        #expect(try clips().last?.phrase == "Good evening, Carol.")
    }

    @Test("--words: the words of a voicebank words list the voice has no take of are prompts, after --prompts")
    func words() throws {
        let prompts = directory.file("prompts.txt")
        try "The washing is done.\nJanuary\n".write(toFile: prompts, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", prompts, "--words", "dates", "--words", "times"])
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let script = try #require(state["prompts"] as? [[String: Any]]).compactMap { $0["text"] as? String }
        let missing = try ["dates", "times"].flatMap { kind in
            try voicebank.run(["words", "--bank", pack, "--voice", Self.voice, "--for", kind, "--missing"])
                .standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(missing.count > 30 && missing.contains("january"))
        // The prompt file's lines first; then the words, without january, which the file has already.
        #expect(script == ["The washing is done.", "January"] + missing.filter { $0 != "january" }.uniqued)
        let ids = try #require(state["prompts"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids == (1...script.count).map(String.init))
    }

    @Test(
        "a text pasted into the page: its missing words are prompts at the end, its coverage is shown, a reload keeps it"
    )
    func pastedText() throws {
        let studio = try studio()
        let pasted = "Dave says hello. Carol says goodbye."
        let answer = try api(
            studio,
            ["-H", "Content-Type: text/plain; charset=utf-8", "--data-binary", pasted, "\(studio.base)/api/texts"])
        #expect(answer.status == 201, "\(answer.body)")
        let change = try json(answer.body)
        #expect((change["text"] as? [String: Any])?["name"] as? String == "pasted text 1")
        // Alone, the text would give the prompts "says" (twice missing), "dave" and "carol", a prompt already.
        let state = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        let script = try #require(state["prompts"] as? [[String: Any]])
        #expect(
            script.map { $0["text"] as? String } == [
                "bob says the weather is fine", "bob", "the", "carol", "says", "dave",
            ], "\(script)")
        #expect(change["addedPrompts"] as? [String] == ["5", "6"])
        let texts = try #require(state["texts"] as? [[String: Any]])
        #expect(texts.map { $0["name"] as? String } == [textsFile, "pasted text 1"])
        #expect(texts.last?["excerpt"] as? String == pasted.split(separator: " ").joined(separator: " "))
        let pastedFile = directory.file("pasted.txt")
        try pasted.write(toFile: pastedFile, atomically: true, encoding: .utf8)
        let coverage = try voicebank.run([
            "coverage", "--bank", pack, "--voice", Self.voice, "--file", textsFile, "--file", pastedFile,
        ])
        #expect(
            (state["coverage"] as? [String: Any])?["summary"] as? String
                == coverage.standardOutput.split(separator: "\n").last.map(String.init))
        // A new prompt takes a take like any other.
        #expect(try send(studio, prompt: "6", raw: try take().raw).status == 201)
        #expect(try clips().last?.phrase == "dave")

        let refused: [(headers: [String], body: String, status: Int, message: String)] = [
            (["Content-Type: text/plain"], pasted, 409, "the same text is pasted text 1 already"),
            (["Content-Type: application/json"], "{}", 415, "a text sent as "),
            (["Content-Type: text/plain"], " ... !", 400, "the pasted text cannot be added: it has no words"),
            (
                ["Content-Type: text/plain"], #"<speak>Hi <break time="fast"/></speak>"#, 400,
                "pasted text 2: invalid <break time="
            ),
        ]
        for (headers, body, status, message) in refused {
            let answer = try api(
                studio, headers.flatMap { ["-H", $0] } + ["--data-binary", body, "\(studio.base)/api/texts"])
            #expect(answer.status == status, "\(body): \(answer.body)")
            #expect(answer.body.contains(message), "\(body): \(answer.body)")
        }
        let latin1 = directory.file("latin1.txt")
        try Data([0x63, 0x61, 0x66, 0xE9]).write(to: URL(fileURLWithPath: latin1))
        let notUTF8 = try api(
            studio, ["-H", "Content-Type: text/plain", "--data-binary", "@\(latin1)", "\(studio.base)/api/texts"])
        #expect(notUTF8.status == 400 && notUTF8.body.contains("it is not UTF-8 text"), "\(notUTF8.body)")
        let after = try json(try api(studio, ["\(studio.base)/api/state"]).body)
        #expect((after["texts"] as? [Any])?.count == 2)
        #expect((after["prompts"] as? [Any])?.count == 6)
    }

    @Test("keep does not wait for the fallback voice's settings to be chosen: they are, a moment after the last keep")
    func fallbackVoiceAfterKeep() throws {
        let fresh = directory.file("fresh.sqlite")
        let take = try take(frequency: 200)
        try voicebank.run(["create", "--bank", fresh, "--voice", Self.voice, "--name", "Fresh", "--language", "en-US"])
        #expect(try voicebank.run(["import", "--bank", fresh, "--fallback", take.wav]).status == 0)
        #expect(try voicebank.run(["configure", "--bank", fresh, "--fallback", "voice"]).status == 0)
        // With no phrase to listen to, espeak-ng's own settings; with one, a narrower range (four are needed to tell
        // the clips' spread).
        let fallbackLine = { () throws -> String in
            try voicebank.run(["info", "--bank", fresh]).standardOutput.split(separator: "\n")
                .first { $0.contains("fallback: voice") }.map(String.init) ?? ""
        }
        #expect(try fallbackLine().contains("range 50"))
        let promptFile = directory.file("prompts.txt")
        try "hello\n".write(toFile: promptFile, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", promptFile], pack: fresh)
        #expect(try send(studio, prompt: "1", raw: take.raw).status == 201)
        #expect(try fallbackLine().contains("range 50"))
        var line = ""
        for _ in 0..<300 {
            line = try fallbackLine()
            if !line.contains("range 50") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(line.contains("range 25"), "\(line)")
    }

    @Test("check: a take's loudness against the voice's median, as verify would say it; nothing is kept")
    func loudnessCheck() throws {
        let studio = try studio()
        let before = try clips()
        let check = { (raw: String) throws -> [String: Any] in
            let answer = try api(
                studio,
                [
                    "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: 48000", "-H",
                    "X-Sample-Format: f32le", "--data-binary", "@\(raw)", "\(studio.base)/api/takes/check",
                ])
            #expect(answer.status == 200, "\(answer.body)")
            return try json(answer.body)
        }
        // A tone at -6 dBFS is within 6 LU of the default English voice's median; at -46 dBFS it is far quieter.
        let fine = try check(try take(frequency: 300).raw)
        let median = try #require(fine["voiceMedianLUFS"] as? Double)
        let level = try #require(fine["loudnessLUFS"] as? Double)
        #expect(abs(level - median) < 6 && fine["message"] == nil, "\(fine)")
        let quiet = directory.file("quiet.raw")
        let samples = try take(frequency: 300).samples.map { $0 * 0.01 }
        try Data(samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
            .write(to: URL(fileURLWithPath: quiet))
        let message = try #require(try check(quiet)["message"] as? String)
        #expect(
            message.hasPrefix("It is ") && message.contains(" LU quieter than the voice's other takes"), "\(message)")
        #expect(try clips() == before)
    }

    @Test("listen: a sentence rendered with the pack as it stands, its audio and picture served to the page only")
    func listen() throws {
        let studio = try studio()
        let sentence = "Hello Bob, good morning."
        let listen = { (body: String, type: String) throws -> (status: Int, body: String) in
            try api(studio, ["-H", "Content-Type: \(type)", "--data-binary", body, "\(studio.base)/api/listen"])
        }
        let before = try json(try listen(sentence, "text/plain; charset=utf-8").body)
        #expect(before["fallbacks"] as? [String] == ["bob"])
        #expect(try send(studio, prompt: "2", raw: try take().raw).status == 201)
        let answer = try listen(sentence, "text/plain")
        #expect(answer.status == 201, "\(answer.body)")
        let render = try json(answer.body)
        #expect(render["fallbacks"] as? [String] == [], "the take of bob kept since speaks")
        #expect(render["audio"] as? String == "/renders/2.wav" && render["picture"] as? String == "/renders/2.svg")

        let cookies = directory.file("cookies")
        #expect(try curl(["-c", cookies, studio.url]).status == 200)
        let wav = directory.file("listened.wav")
        let audio = try curl(["-b", cookies, "-o", wav, "-D", "-", "\(studio.base)/renders/2.wav"])
        #expect(audio.status == 200 && audio.body.lowercased().contains("content-type: audio/wav"))
        let reference = directory.file("reference.wav")
        let rendered = try Binary("concat-synth").run([
            "render", "--bank", pack, "--voice", Self.voice, "-o", reference, sentence,
        ])
        try #require(rendered.status == 0, "\(rendered.standardError)")
        let frames = { (path: String) throws -> String in
            try requireTool("soxi", package: "sox").run(["-s", path]).standardOutput
        }
        #expect(try frames(wav) == frames(reference) && "\(render["frameCount"] as? Int ?? 0)\n" == (try frames(wav)))
        let picture = try curl(["-b", cookies, "\(studio.base)/renders/2.svg"])
        #expect(picture.status == 200 && picture.body.contains("<svg"))

        #expect(try curl(["\(studio.base)/renders/2.wav"]).status == 403, "not without the page's cookie")
        #expect(try curl(["-b", cookies, "\(studio.base)/renders/9.wav"]).status == 404)
        #expect(try curl(["-b", cookies, "\(studio.base)/renders/2.mp3"]).status == 404)
        let refused: [(body: String, type: String, status: Int, message: String)] = [
            (" ", "text/plain", 400, "the sentence cannot be rendered: it is empty"),
            (String(repeating: "word ", count: 1_000), "text/plain", 400, "more than the 4096 a render takes"),
            (#"<speak>Hi <break time="fast"/></speak>"#, "text/plain", 400, "invalid <break time="),
            (sentence, "application/json", 415, "a text sent as "),
        ]
        for (body, type, status, message) in refused {
            let answer = try listen(body, type)
            #expect(answer.status == status, "\(body.prefix(40)): \(answer.body)")
            #expect(answer.body.contains(message), "\(body.prefix(40)): \(answer.body)")
        }
    }

    @Test(
        "voicebank studio refuses what it cannot serve, with the status and a message that says so",
        arguments: [
            (
                ["--voice", "org.concatsynth.en"], 64,
                "Nothing to record: give --texts FILE, --prompts FILE, --words KIND or --script phone-pairs."
            ),
            (["--voice", "org.concatsynth.en", "--prompts", "P", "--listen", "0.0.0.0:0"], 64, "add --allow-remote"),
            (["--voice", "org.concatsynth.en", "--prompts", "P", "--listen", "nowhere"], 64, #"invalid HTTP address"#),
            (["--voice", "com.example.nobody", "--prompts", "P"], 1, "com.example.nobody"),
            (["--prompts", "P"], 1, "several voices"),
            (["--voice", "org.concatsynth.en", "--texts", "COVERED"], 1, "covers every word of"),
            (["--voice", "org.concatsynth.en", "--prompts", "MISSING"], 1, "cannot read"),
            (
                ["--voice", "org.concatsynth.en", "--words", "numbers"], 1,
                "has a take of every word of --words numbers"
            ),
            (
                ["--voice", "org.concatsynth.en", "--words", "weekdays"], 64,
                "The value 'weekdays' is invalid for '--words"
            ),
        ])
    func refusedToStart(arguments: [String], status: Int32, message: String) throws {
        let prompts = directory.file("p.txt")
        try "Good evening\n".write(toFile: prompts, atomically: true, encoding: .utf8)
        let covered = directory.file("covered.txt")
        try "Hello, good morning.\n".write(toFile: covered, atomically: true, encoding: .utf8)
        let filled = arguments.map {
            ["P": prompts, "COVERED": covered, "MISSING": directory.file("missing.txt")][$0] ?? $0
        }
        let result = try voicebank.run(["studio", "--bank", pack] + filled)
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a port another studio listens on is refused with the servers' one message; SIGTERM closes a studio with 0")
    func portInUse() throws {
        let prompts = directory.file("p.txt")
        try "Good evening\n".write(toFile: prompts, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", prompts])
        let result = try voicebank.run(
            [
                "studio", "--bank", pack, "--voice", Self.voice, "--prompts", prompts, "--listen",
                "127.0.0.1:\(studio.port)",
            ])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "cannot listen on tcp://127.0.0.1:\(studio.port): port \(studio.port) is in use by another program"),
            "\(result.standardError)")
        kill(studio.server.process.processIdentifier, SIGTERM)
        studio.server.process.waitUntilExit()
        #expect(studio.server.process.terminationReason == .exit && studio.server.process.terminationStatus == 0)
    }

    @Test("--listen beyond loopback with --allow-remote serves, and warns that the pack can be changed from afar")
    func remote() throws {
        let prompts = directory.file("p.txt")
        try "Good evening\n".write(toFile: prompts, atomically: true, encoding: .utf8)
        let studio = try studio(["--prompts", prompts, "--listen", "0.0.0.0:0", "--allow-remote"])
        #expect(studio.url.hasPrefix("http://127.0.0.1:"))
        try studio.server.waitForLog("warning: the studio on 0.0.0.0:0 is reachable from other machines")
        #expect(try api(studio, ["\(studio.base)/api/state"]).status == 200)
        #expect(try api(studio, ["-H", "Host: evil.example:\(studio.port)", "\(studio.base)/api/state"]).status == 403)
    }
}
