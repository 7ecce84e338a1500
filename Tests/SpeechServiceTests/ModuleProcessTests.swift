// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechService
import TestSupport
import Testing
import Voicebank

/// The module process over pipes, as speech-dispatcher drives it.
@Suite struct ModuleProcessTests {
    @Test("INIT, AUDIO, LOGLEVEL, LIST VOICES, SET, SPEAK, QUIT: the replies and events speechd 0.11 expects")
    func transcript() throws {
        let directory = TemporaryDirectory("sd-transcript")
        let session = try ModuleSession(directory: directory)
        let replies = try session.initialize()
        #expect(replies[0].code == 299)
        #expect(replies[0].lines.first?.contains(ModuleSession.defaultPack) == true)
        #expect(replies[0].lines.last == "OK LOADED SUCCESSFULLY")
        #expect(
            replies[1...].map(\.description) == [
                "207 OK RECEIVING AUDIO SETTINGS", "203 OK AUDIO INITIALIZED", "207 OK RECEIVING LOGLEVEL SETTINGS",
                "203 OK LOGLEVEL SET",
            ])
        session.send("LIST VOICES\n")
        let voices = try session.next()
        #expect(voices.code == 200)
        #expect(
            voices.lines == ["Default English\ten-US\tnone", "Default Japanese\tja-JP\tnone", "OK VOICE LIST SENT"])
        session.send("LIST VOICES ja\n")
        #expect(try session.next().lines == ["Default Japanese\tja-JP\tnone", "OK VOICE LIST SENT"])
        session.send("LIST VOICES de\n")
        #expect(try session.next().description == "304 CANT LIST VOICES")

        let request = "<speak>hello, nice to meet you</speak>"
        let speakReplies = try session.speak(request, settings: ["rate=0", "volume=100", "language=en-us"])
        #expect(
            speakReplies.map(\.description) == [
                "203 OK RECEIVING SETTINGS", "203 OK SETTINGS RECEIVED", "202 OK RECEIVING MESSAGE", "200 OK SPEAKING",
            ])
        let events = try session.messages(until: [702, 703])
        #expect(events.first?.code == 701)
        #expect(events.last?.code == 702)
        let transcript = Transcript(events)
        #expect(transcript.blockSizes.allSatisfy { $0 > 0 && $0 <= AudioBlock.maximumSampleCount })
        #expect(transcript.samples == (try reference(request, directory: directory).samples))
        session.send("QUIT\n")
        #expect(try session.next().description == "210 OK QUIT")
        #expect(session.waitForExit() == 0)
    }

    @Test(
        "with no VoicePack it lists and speaks the voices of the default and the installed packs; VoicePack narrows it")
    func installedVoices() throws {
        let directory = TemporaryDirectory("sd-installed")
        let home = InstalledPackHome()
        let ann = try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        let session = try ModuleSession(directory: directory, pack: nil, environment: home.environment)
        let loaded = try session.initialize()[0]
        #expect(loaded.code == 299)
        #expect(loaded.lines.first?.contains("\(home.packFolder)/ann.sqlite, 3 voices") == true, "\(loaded.lines)")
        session.send("LIST VOICES\n")
        #expect(
            try session.next().lines == [
                "Allison\ten-US\tnone", "Default Japanese\tja-JP\tnone", "Ann\ten-US\tnone",
                "OK VOICE LIST SENT",
            ])
        // The default pack where a clone's module finds it (tools/test builds it), not the tests' own pack.
        for (settings, options) in [
            (["synthesis_voice=Ann"], ["--bank", ann, "--voice", "com.example.ann"]),
            (["synthesis_voice=NULL", "language=en"], ["--bank", VoicePackLocation.defaultPackPath]),
        ] {
            let request = "<speak>hello, good morning</speak>"
            try session.speak(request, settings: settings)
            let samples = Transcript(try session.messages(until: [702, 703])).samples
            #expect(samples == (try reference(request, options: options, directory: directory).samples), "\(settings)")
        }

        let onePack = TemporaryDirectory("sd-one-pack")
        let narrowed = try ModuleSession(directory: onePack, pack: ann, environment: home.environment)
        _ = try narrowed.initialize()
        narrowed.send("LIST VOICES\n")
        #expect(try narrowed.next().lines == ["Ann\ten-US\tnone", "OK VOICE LIST SENT"])
    }

    @Test("SystemPacks names the installation's packs, its default pack among them, for a module installed elsewhere")
    func systemPacks() throws {
        let directory = TemporaryDirectory("sd-system-packs")
        let home = InstalledPackHome()
        try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        let system = directory.file("share/concat-synth/packs")
        try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ModuleSession.defaultPack, toPath: "\(system)/default.sqlite")
        try FileManager.default.copyItem(atPath: "\(home.packFolder)/ann.sqlite", toPath: "\(system)/ann.sqlite")
        // The user's own data folder is empty (Binary.start's).
        let session = try ModuleSession(
            directory: directory, configuration: "# VoicePack \"x.sqlite\"\nSystemPacks \"share/concat-synth/packs\"\n",
            environment: ["CONCAT_SYNTH_BANK": nil])
        let loaded = try session.initialize()[0]
        #expect(
            loaded.lines.first == "concat-synth: voice packs \(system)/default.sqlite, \(system)/ann.sqlite, 3 voices")
        session.send("LIST VOICES\n")
        #expect(
            try session.next().lines.dropLast() == [
                "Default English\ten-US\tnone", "Default Japanese\tja-JP\tnone", "Ann\ten-US\tnone",
            ])
    }

    @Test(
        "rate 0 is the voice's own normal speed: the Japanese voice's 400% plays its clips as recorded, +50 twice as fast"
    )
    func normalRate() throws {
        let directory = TemporaryDirectory("sd-normal-rate")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        var lengths: [Int] = []
        // `render` with no rate plays the clips as recorded; `--rate 8` is twice the voice's normal rate of 4.
        for (rate, options) in [(0, [String]()), (50, ["--rate", "8"])] {
            try session.speak("<speak>設定</speak>", settings: ["rate=\(rate)", "language=ja"])
            let samples = Transcript(try session.messages(until: [702, 703])).samples
            let expected = try reference(
                "設定", options: ["--voice", "org.concatsynth.ja"] + options, directory: directory)
            #expect(samples == expected.samples, "rate \(rate)")
            lengths.append(samples.count)
        }
        #expect(lengths[0] > 10_000)
        #expect(abs(lengths[0] - 2 * lengths[1]) <= 2)
    }

    @Test("a voice that speaks uncovered words with the fallback voice does so through the module, as render does")
    func fallbackVoice() throws {
        let directory = TemporaryDirectory("sd-fallback-voice")
        let pack = directory.file("voice.sqlite")
        var clipped: (samples: [Int16], marks: [(String, Int)]) = ([], [])
        try FileManager.default.copyItem(atPath: ModuleSession.defaultPack, toPath: pack)
        for mode in ["clip", "voice"] {
            let configured = try Binary("voicebank").run([
                "configure", "--bank", pack, "--voice", "org.concatsynth.en", "--fallback", mode,
            ])
            try #require(configured.status == 0, "\(configured.standardError)")
            if mode == "clip" {
                clipped = try reference("<speak>hello Bob</speak>", options: ["--bank", pack], directory: directory)
            }
        }
        let session = try ModuleSession(directory: directory, pack: pack)
        _ = try session.initialize()
        try session.speak("<speak>hello Bob</speak>", settings: ["language=en-us"])
        let samples = Transcript(try session.messages(until: [702, 703])).samples
        let expected = try reference("<speak>hello Bob</speak>", options: ["--bank", pack], directory: directory)
        #expect(samples == expected.samples)
        // The fallback clip's beep is not what the fallback voice says.
        #expect(samples != clipped.samples)
    }

    @Test("a message rendered at once goes out in fewer writes than it has audio blocks")
    func batchedWrites() throws {
        let directory = TemporaryDirectory("sd-batched-writes")
        let configuration = directory.file("concat-synth.conf")
        try "VoicePack \"\(ModuleSession.defaultPack)\"\n".write(
            toFile: configuration, atomically: false, encoding: .utf8)
        // The module's output is a socket that keeps each write a record of its own, so the test counts them.
        var sockets: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &sockets) == 0)
        defer { close(sockets[0]) }
        let process = try Binary("sd_concat-synth").start([configuration])
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle(fileDescriptor: sockets[1], closeOnDealloc: true)
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }
        var record = [UInt8](repeating: 0, count: 1 << 20)
        /// The records up to the one that holds `text`.
        func records(through text: String) throws -> [[UInt8]] {
            var records: [[UInt8]] = []
            while true {
                let count = recv(sockets[0], &record, record.count, 0)
                try #require(count > 0, "the module's output ended before \(text)")
                records.append(Array(record[..<count]))
                if String(decoding: records.last!, as: UTF8.self).contains(text) { return records }
            }
        }
        send("INIT\n")
        _ = try records(through: "299 OK")
        send("AUDIO\naudio_output_method=server\n.\n")
        _ = try records(through: "203 OK")
        send("SPEAK\n")
        _ = try records(through: "202 OK")
        send("<speak>hello <break time=\"10s\"/> hello</speak>\n.\n")
        let writes = try records(through: "702 END")
        let blocks = String(decoding: writes.joined(), as: UTF8.self).components(separatedBy: "705 AUDIO\n").count - 1
        #expect(blocks > 40)
        // One write per block, as before, would be blocks + 1.
        #expect(writes.count < blocks, "\(writes.count) writes for \(blocks) blocks")
    }

    @Test("PCM containing the bytes 0x0A and 0x7D arrives unchanged through the escaping")
    func escapedBytes() throws {
        let directory = TemporaryDirectory("sd-escape")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let request = "<speak>good morning, double tap to open</speak>"
        try session.speak(request)
        let samples = Transcript(try session.messages(until: [702, 703])).samples
        let expected = try reference(request, directory: directory).samples
        let bytes = expected.flatMap {
            [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0)), UInt8(UInt16(bitPattern: $0) >> 8)]
        }
        // The test means something only if the audio has both bytes to escape.
        #expect(bytes.contains(0x0A) && bytes.contains(0x7D))
        #expect(samples.count == expected.count)
        #expect(samples == expected)
    }

    @Test("dot-stuffed lines: a line that is only a dot or starts with one is part of the message")
    func dotStuffedLines() throws {
        let directory = TemporaryDirectory("sd-dots")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        // The server sends ".." for "." and "...x" for "..x"; were the module to take ".." as the end, the next
        // lines would come back as unknown commands and the speech would stop at "hello".
        let request = "<speak>hello\n.\n..nice to meet you\n.<mark name=\"end\"/>goodbye</speak>"
        try session.speak(request)
        let events = try session.messages(until: [702, 703])
        #expect(!events.contains { $0.code == 300 })
        let transcript = Transcript(events)
        let expected = try reference(request, directory: directory)
        #expect(transcript.samples == expected.samples)
        #expect(transcript.marks.map(\.name) == ["end"])
    }

    @Test("each <mark> is reported in order, right after the audio before it, with its name as given")
    func marksInOrder() throws {
        let directory = TemporaryDirectory("sd-marks")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let request = """
            <speak><mark name="0:5"/>hello <mark name="__spd_1"/>nice to meet you. <mark name="6:13"/>\
            good morning<mark name="__spd_2"/> goodbye<mark name="last"/></speak>
            """
        try session.speak(request)
        let events = try session.messages(until: [702, 703])
        #expect(events.last?.code == 702)
        let transcript = Transcript(events)
        let expected = try reference(request, directory: directory)
        #expect(transcript.marks.map(\.name) == ["0:5", "__spd_1", "6:13", "__spd_2", "last"])
        #expect(transcript.marks.map(\.sampleIndex) == expected.marks.map(\.1))
        #expect(transcript.samples == expected.samples)
        // Nothing is sent after the last mark but the end: the audio before it was all there is.
        #expect(Array(transcript.codes.suffix(2)) == [700, 702])
    }

    @Test(
        "SET rate, pitch and volume speak as the request wrapped in <prosody> with the mapped values",
        arguments: [
            (["rate=50", "pitch=50", "volume=0"], #"rate="200%" pitch="+6st" volume="50%""#),
            (["rate=-100", "pitch=-100", "volume=100"], #"rate="50%" pitch="-12st""#),
        ])
    func prosody(settings: [String], attributes: String) throws {
        let directory = TemporaryDirectory("sd-prosody")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let text = "hello, nice to meet you<mark name=\"end\"/>"
        try session.speak("<speak>\(text)</speak>", settings: settings)
        let transcript = Transcript(try session.messages(until: [702, 703]))
        let expected = try reference("<speak><prosody \(attributes)>\(text)</prosody></speak>", directory: directory)
        #expect(transcript.samples.count == expected.samples.count)
        #expect(transcript.samples == expected.samples)
        #expect(transcript.marks.map(\.sampleIndex) == expected.marks.map(\.1))
        #expect(transcript.samples != (try reference("<speak>\(text)</speak>", directory: directory).samples))
    }

    /// A message of about `seconds` of speech from the default pack.
    static func longMessage(minutes: Int) -> String {
        "<speak>"
            + Array(repeating: "nice to meet you, good morning, double tap to open.", count: minutes * 20)
            .joined(separator: " ") + "</speak>"
    }

    @Test("STOP in the middle of a long message answers 703 at once; the next message speaks")
    func stop() throws {
        let directory = TemporaryDirectory("sd-stop")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        try session.speak(Self.longMessage(minutes: 5))
        _ = try session.messages(until: [705])
        session.send("STOP\n")
        let events = try session.messages(until: [702, 703])
        #expect(events.last?.code == 703)
        // At once: what the module sends after the STOP is what it had rendered ahead, a pipe's worth, not the
        // minutes of the message that remained.
        let samplesAfterStop = Transcript(events).samples.count
        #expect(samplesAfterStop < 22_050 * 10)
        try session.speak("<speak>hello</speak>")
        let next = try session.messages(until: [702, 703])
        #expect(next.first?.code == 701)
        #expect(next.last?.code == 702)
        #expect(Transcript(next).samples == (try reference("<speak>hello</speak>", directory: directory).samples))
    }

    @Test("PAUSE stops at the next __spd_ mark with 704, after sending that mark")
    func pause() throws {
        let directory = TemporaryDirectory("sd-pause")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let sentence = "nice to meet you, good morning, double tap to open."
        let request =
            "<speak>" + Array(repeating: sentence, count: 40).joined(separator: " ") + "<mark name=\"__spd_1\"/>"
            + Array(repeating: sentence, count: 40).joined(separator: " ") + "<mark name=\"__spd_2\"/>goodbye</speak>"
        try session.speak(request)
        _ = try session.messages(until: [705])
        session.send("PAUSE\n")
        let events = try session.messages(until: [702, 703, 704])
        let transcript = Transcript([ModuleMessage(code: 705, lines: [])] + events)
        #expect(events.last?.code == 704)
        #expect(transcript.marks.map(\.name) == ["__spd_1"])
        #expect(Array(transcript.codes.suffix(2)) == [700, 704])
        // The message after a pause is the rest of the text, which the server sends as a new SPEAK.
        try session.speak("<speak>goodbye</speak>")
        #expect(try session.messages(until: [702, 703, 704]).last?.code == 702)
    }

    @Test("SET answers 203 whatever its keys and values, and the message after it speaks")
    func setWithUnknownKeys() throws {
        let directory = TemporaryDirectory("sd-set")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let replies = try session.speak(
            "<speak>hello</speak>",
            settings: [
                "future_key=1", "rate=very fast", "no equals sign", "=", "pitch=", "voice=robot",
                "synthesis_voice=Nobody",
            ])
        #expect(replies[0].description == "203 OK RECEIVING SETTINGS")
        #expect(replies[1].description == "203 OK SETTINGS RECEIVED")
        #expect(try session.messages(until: [702, 703]).last?.code == 702)
    }

    @Test("language and synthesis_voice pick the pack's voice")
    func voiceFromSettings() throws {
        let directory = TemporaryDirectory("sd-voice")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        let japanese = "<speak><voice name=\"org.concatsynth.ja\">設定</voice></speak>"
        let expected = try reference(japanese, directory: directory).samples
        try session.speak("<speak>設定</speak>", settings: ["language=ja", "synthesis_voice=NULL"])
        #expect(Transcript(try session.messages(until: [702])).samples == expected)
        try session.speak("<speak>設定</speak>", settings: ["language=en-us", "synthesis_voice=Default Japanese"])
        #expect(Transcript(try session.messages(until: [702])).samples == expected)
        try session.speak("<speak>設定</speak>", settings: ["language=en-us", "synthesis_voice=NULL"])
        #expect(Transcript(try session.messages(until: [702])).samples != expected)
    }

    @Test("CHAR spells the character; KEY speaks the key's name; a second line is refused with 305")
    func characterAndKey() throws {
        let directory = TemporaryDirectory("sd-char")
        let session = try ModuleSession(directory: directory)
        _ = try session.initialize()
        try session.speak("b", command: "CHAR")
        let spelled = Transcript(try session.messages(until: [702])).samples
        #expect(
            spelled
                == (try reference("<speak><say-as interpret-as=\"characters\">b</say-as></speak>", directory: directory)
                    .samples))
        try session.speak("b", command: "KEY")
        #expect(Transcript(try session.messages(until: [702])).samples == spelled)
        session.send("SET\n")
        _ = try session.next()
        session.send(".\n")
        _ = try session.next()
        session.send("CHAR\n")
        _ = try session.next()
        session.send("a\nb\n.\n")
        #expect(try session.next().description == "305 DATA MORE THAN ONE LINE")
    }

    @Test("SOUND_ICON: the server is told to play the icon's file; an icon with no file is spoken")
    func soundIcon() throws {
        let directory = TemporaryDirectory("sd-icon")
        let icons = directory.file("icons")
        try FileManager.default.createDirectory(atPath: icons, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(icons)/bell"))
        let session = try ModuleSession(
            directory: directory,
            configuration: "VoicePack \"\(ModuleSession.defaultPack)\"\nSoundIconFolder \"\(icons)\"\n")
        _ = try session.initialize()
        try session.speak("bell", command: "SOUND_ICON")
        let events = try session.messages(until: [702, 703])
        #expect(events.map(\.description) == ["701 BEGIN", "706 \(icons)/bell / 706 ICON", "702 END"])
        try session.speak("hello", command: "SOUND_ICON")
        let spoken = try session.messages(until: [702, 703])
        #expect(!spoken.contains { $0.code == 706 })
        #expect(Transcript(spoken).samples == (try reference("<speak>hello</speak>", directory: directory).samples))
    }

    @Test("a pack that cannot be opened: INIT answers 399 naming the pack and why, and the module exits")
    func unopenablePack() throws {
        let directory = TemporaryDirectory("sd-nopack")
        let missing = directory.file("no-such-pack.sqlite")
        let session = try ModuleSession(directory: directory, pack: missing)
        session.send("INIT\n")
        let reply = try session.next()
        #expect(reply.code == 399)
        #expect(reply.lines.first?.contains(missing) == true)
        #expect(reply.lines.last == "ERR CANT INIT MODULE")
        #expect(session.waitForExit() == 1)

        let notAPack = directory.file("not-a-pack.sqlite")
        try "just text".write(toFile: notAPack, atomically: true, encoding: .utf8)
        let second = try ModuleSession(directory: directory, pack: notAPack)
        second.send("INIT\n")
        let secondReply = try second.next()
        #expect(secondReply.code == 399)
        #expect(secondReply.lines.first?.contains(notAPack) == true)
    }

    @Test("the module exits when its input closes, even in the middle of a message")
    func exitsOnEndOfInput() throws {
        let directory = TemporaryDirectory("sd-eof")
        let session = try ModuleSession(directory: directory, timeoutSeconds: 20)
        _ = try session.initialize()
        try session.speak(Self.longMessage(minutes: 5))
        _ = try session.messages(until: [705])
        session.closeInput()
        // Drain what it still sends, so it is never blocked on a full pipe.
        while (try? session.next()) != nil {}
        #expect(session.waitForExit() == 0)
    }
}
