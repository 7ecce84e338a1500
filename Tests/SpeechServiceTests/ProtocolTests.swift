// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechService
import Testing

@Suite struct SettingsMappingTests {
    @Test("rate 0 is the voice's normal speed, +100 at least 3.5x, -100 at most 0.6x")
    func rateEnds() {
        #expect(SettingsMapping.speed(rate: 0) == 1)
        #expect(SettingsMapping.speed(rate: 100) >= 3.5)
        #expect(SettingsMapping.speed(rate: -100) <= 0.6)
        #expect(abs(SettingsMapping.speed(rate: 50) - 2) < 1e-12)
        #expect(abs(SettingsMapping.speed(rate: -100) - 0.5) < 1e-12)
    }

    @Test("rate is monotonic over -100…100 and clamped beyond")
    func rateMonotonic() {
        let speeds = (-100...100).map { SettingsMapping.speed(rate: $0) }
        #expect(zip(speeds, speeds.dropFirst()).allSatisfy { $0 < $1 })
        #expect(SettingsMapping.speed(rate: 250) == SettingsMapping.speed(rate: 100))
        #expect(SettingsMapping.speed(rate: -250) == SettingsMapping.speed(rate: -100))
    }

    @Test("pitch is ±12 semitones, linear", arguments: [(0, 0.0), (100, 12), (-100, -12), (50, 6), (-25, -3)])
    func pitch(level: Int, semitones: Double) {
        #expect(SettingsMapping.pitchSemitones(pitch: level) == semitones)
    }

    @Test("volume 100 is the clips' level, 0 half the amplitude, -100 silent")
    func volume() {
        #expect(SettingsMapping.volumeDecibels(volume: 100) == 0)
        #expect(abs(SettingsMapping.volumeDecibels(volume: 0) - 20 * log10(0.5)) < 1e-12)
        #expect(SettingsMapping.volumeDecibels(volume: -100) == -.infinity)
        let levels = (-99...100).map { SettingsMapping.volumeDecibels(volume: $0) }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 })
    }

    static let voices = [
        ModuleVoice(identifier: "org.example.ann", name: "Ann", languages: ["en-US"]),
        ModuleVoice(identifier: "org.example.bob", name: "Bob", languages: ["en-GB", "fr-FR"]),
        ModuleVoice(identifier: "org.example.kei", name: "Kei", languages: ["ja-JP"]),
    ]

    @Test(
        "synthesis_voice by identifier or name, then language, then the first voice",
        arguments: [
            (nil, nil, "org.example.ann"),
            ("Bob", nil, "org.example.bob"),
            ("org.example.kei", "en-us", "org.example.kei"),
            ("KEI", nil, "org.example.kei"),
            ("nobody", "ja", "org.example.kei"),
            (nil, "en-gb", "org.example.bob"),
            (nil, "fr", "org.example.bob"),
            (nil, "en_GB", "org.example.bob"),
            (nil, "en-au", "org.example.ann"),
            (nil, "de", "org.example.ann"),
        ] as [(String?, String?, String)])
    func voiceChoice(synthesisVoice: String?, language: String?, expected: String) {
        var settings = ModuleSettings()
        settings.synthesisVoice = synthesisVoice
        settings.language = language
        #expect(SettingsMapping.voice(for: settings, among: Self.voices) == expected)
    }

    @Test("SET lines: every known key read, NULL is none, unknown keys and bad values ignored")
    func setLines() {
        var settings = ModuleSettings()
        func apply(_ line: String) -> Bool { settings.apply(line: line) }
        #expect(apply("rate=35"))
        #expect(apply("pitch=-20"))
        #expect(apply("pitch_range=10"))
        #expect(apply("volume=50"))
        #expect(apply("punctuation_mode=some"))
        #expect(apply("spelling_mode=on"))
        #expect(apply("cap_let_recogn=spell"))
        #expect(apply("voice=female1"))
        #expect(apply("language=ja"))
        #expect(apply("synthesis_voice=Kei"))
        #expect(!apply("speed_boost=3"))
        #expect(!apply("rate=fast"))
        #expect(!apply("no equals sign"))
        #expect(apply("volume=900"))
        #expect(settings.rate == 35 && settings.pitch == -20 && settings.pitchRange == 10 && settings.volume == 100)
        #expect(settings.punctuationMode == "some" && settings.isSpelling && settings.capitalLetters == "spell")
        #expect(settings.voiceType == "female1" && settings.language == "ja" && settings.synthesisVoice == "Kei")
        #expect(apply("synthesis_voice=NULL"))
        #expect(settings.synthesisVoice == nil)
        let parameters = EngineParameters(settings, voices: Self.voices)
        #expect(parameters.voice == "org.example.kei")
        #expect(parameters.speed == SettingsMapping.speed(rate: 35))
        #expect(parameters.pitchSemitones == SettingsMapping.pitchSemitones(pitch: -20))
        #expect(parameters.volumeDecibels == 0)
    }
}

@Suite struct ProtocolPieceTests {
    @Test(
        "commands as the server sends them",
        arguments: [
            ("INIT", ModuleCommand.initialize), ("AUDIO", .audio), ("LOGLEVEL", .logLevel), ("SET", .set),
            ("SPEAK", .speak(.text)), ("CHAR", .speak(.character)), ("KEY", .speak(.key)),
            ("SOUND_ICON", .speak(.soundIcon)), ("STOP", .stop), ("PAUSE", .pause), ("QUIT", .quit),
            ("LIST VOICES", .listVoices(language: nil, variant: nil)),
            ("LIST VOICES en", .listVoices(language: "en", variant: nil)),
            ("LIST VOICES en none", .listVoices(language: "en", variant: "none")),
            ("DEBUG ON /tmp/log ", .debug(file: "/tmp/log")), ("DEBUG OFF ", .debug(file: nil)),
            ("SPEAKING", .unknown("SPEAKING")), ("", .unknown("")),
        ])
    func commands(line: String, command: ModuleCommand) {
        #expect(ModuleCommand(line) == command)
    }

    @Test("dot-stuffed lines lose one leading dot; stuff and unstuff are inverse")
    func dotStuffing() {
        #expect(DotStuffing.unstuff(["<speak>a", "..", "...b", ".c</speak>"]) == "<speak>a\n.\n..b\nc</speak>")
        let text = "<speak>one\n.\n..two\nthree.</speak>"
        let stuffed = DotStuffing.stuff(text)
        #expect(stuffed == "<speak>one\n..\n...two\nthree.</speak>\n.\n")
        let lines = stuffed.split(separator: "\n").map(String.init).dropLast()
        #expect(DotStuffing.unstuff(Array(lines)) == text)
    }

    @Test("every 16-bit sample survives the 705 escaping, and no escaped byte is a newline")
    func escapingRoundTrip() {
        let samples = (0...0xFFFF).map { Int16(bitPattern: UInt16($0)) }
        let block = AudioBlock.encode(samples, sampleRate: 22_050)
        let header =
            Array(
                "705-bits=16\n705-num_channels=1\n705-sample_rate=22050\n705-num_samples=65536\n705-big_endian=0\n705-AUDIO"
                    .utf8) + [0]
        #expect(Array(block.prefix(header.count)) == header)
        let trailer = Array("\n705 AUDIO\n".utf8)
        #expect(Array(block.suffix(trailer.count)) == trailer)
        let payload = block[header.count..<(block.count - trailer.count)]
        #expect(!payload.contains(0x0A))
        // 0x0A and 0x7D each appear 256 times as the low byte and 256 times as the high byte.
        #expect(payload.count == 65_536 * 2 + 4 * 256)
        let bytes = AudioBlock.unescape(payload)
        let decoded = stride(from: 0, to: bytes.count, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        #expect(decoded == samples)
    }

    @Test("the escaping agrees with escaping byte by byte, escapes at every place of a run and at every length")
    func escapingAgreesByteByByte() {
        // Two bytes in three to escape, in a sequence that puts them at every offset of the encoder's 16-byte runs.
        var state: UInt32 = 1
        let bytes: [UInt8] = (0..<4_000).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return [0x0A, 0x7D, UInt8(truncatingIfNeeded: state >> 24)][Int(state >> 8) % 3]
        }
        for count in Array(0...40) + [1_999] {
            let samples = (0..<count).map { Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8) }
            let block = AudioBlock.encode(samples, sampleRate: 22_050)
            let payloadStart = block.firstIndex(of: 0)! + 1
            let payload = Array(block[payloadStart..<(block.count - "\n705 AUDIO\n".utf8.count)])
            let expected = bytes.prefix(2 * count).flatMap { $0 == 0x0A || $0 == 0x7D ? [0x7D, $0 ^ 0x20] : [$0] }
            #expect(payload == expected, "\(count) samples")
        }
    }

    @Test("the escape turns 0x0A into 7D 2A and 0x7D into 7D 5D")
    func escapeBytes() {
        let block = AudioBlock.encode([Int16(bitPattern: 0x7D0A)], sampleRate: 16_000)
        let payloadStart = block.firstIndex(of: 0)! + 1
        #expect(Array(block[payloadStart..<payloadStart + 4]) == [0x7D, 0x2A, 0x7D, 0x5D])
    }

    @Test(
        "the configuration names the pack and the system's packs; relative paths from its folder; other names ignored")
    func configuration() throws {
        let text = """
            # comment
            Debug 0
            VoicePack "packs/my voice.sqlite"
            SystemPacks /usr/local/share/concat-synth/packs
              SoundIconFolder /opt/icons/
            """
        let configuration = try ModuleConfiguration.parse(
            text, path: "/etc/speech-dispatcher/modules/concat-synth.conf")
        #expect(configuration.voicePack == "/etc/speech-dispatcher/modules/packs/my voice.sqlite")
        #expect(configuration.systemPacks == "/usr/local/share/concat-synth/packs")
        #expect(configuration.soundIconFolder == "/opt/icons/")
        #expect(try ModuleConfiguration.parse("# VoicePack \"a.sqlite\"\n", path: "x.conf").voicePack == nil)
        #expect(throws: SpeechServiceError.configurationLine(path: "x.conf", line: 2, text: "VoicePack")) {
            try ModuleConfiguration.parse("\nVoicePack", path: "x.conf")
        }
        #expect(throws: SpeechServiceError.configurationLine(path: "x.conf", line: 1, text: "VoicePack \"a")) {
            try ModuleConfiguration.parse("VoicePack \"a", path: "x.conf")
        }
        #expect(try ModuleConfiguration.load(path: "/nonexistent/concat-synth.conf") == ModuleConfiguration())
    }

    @Test("CHAR and one-character KEYs are characters to spell, other KEYs words; spelling mode spells every text")
    func spelling() {
        let voices = SettingsMappingTests.voices
        var settings = ModuleSettings()
        func request(_ message: String, _ kind: MessageKind) -> ModuleRequest {
            ModuleRequest(message: message, kind: kind, settings: settings, voices: voices)
        }
        #expect(request("<", .character).content == .characters("<"))
        #expect(request(" ", .character).content == .text("space"))
        #expect(request("a", .key).content == .characters("a"))
        #expect(request("shift_a", .key).content == .text("shift a"))
        #expect(request("_", .key).content == .characters("_"))
        let marked = "<speak>Hi <mark name=\"__spd_1\"/>there</speak>"
        #expect(request(marked, .text).content == .ssml(marked))
        #expect(!request(marked, .text).isSpelling)
        settings.isSpelling = true
        #expect(request(marked, .text).content == .ssml(marked))
        #expect(request(marked, .text).isSpelling)
        #expect(!request("a", .key).isSpelling)
    }
}

/// The engine the module speaks with, without a process.
@Suite struct EngineTests {
    @Test("the warm-up is a short message in each voice, and each renders to its end")
    func warmUp() throws {
        let engine = try ConcatSynthEngine(bank: ModuleSession.defaultPack)
        let renderings = engine.warmUpRenderings()
        #expect(renderings.count == engine.voices.count)
        for rendering in renderings {
            var buffer = [Float](repeating: 0, count: ModuleServer.pullFrameCount)
            var frames = 0
            while true {
                let pull = try buffer.withUnsafeMutableBufferPointer { try rendering.render(into: $0) }
                frames += pull.frameCount
                if pull.isComplete { break }
            }
            #expect(frames > 0)
        }
    }
}
