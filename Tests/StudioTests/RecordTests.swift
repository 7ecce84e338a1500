// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
import Voicebank

/// `voicebank record` as a process, recording from ALSA `file` devices: alsa-lib's `file` plugin over the `null`
/// device plays a raw file of espeak-ng's speech as a microphone would hear it, from the start each time the device
/// opens (`infile`; the file's samples must be the format the recorder asks for, Float32 at 48 kHz, as the plugin
/// converts nothing). The devices are declared in an ALSA configuration file of the test's own (`ALSA_CONFIG_PATH`).
@Suite struct RecordTests {
    let directory = TemporaryDirectory("record")
    let voicebank = Binary("voicebank")
    static let voice = StudioServerTests.voice
    /// The texts' prompts are `bob says the weather is fine`, `bob`, `the`, `carol`.
    static let phrases = ["bob says the weather is fine", "bob"]

    var pack: String { directory.file("pack.sqlite") }
    var textsFile: String { directory.file("texts.txt") }
    var alsaConfiguration: String { directory.file("asoundrc") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
        try StudioServerTests.texts.write(toFile: textsFile, atomically: true, encoding: .utf8)
        try Data().write(to: URL(fileURLWithPath: alsaConfiguration))
    }

    /// espeak-ng saying `phrase` (22050 Hz 16-bit), and the device `micN` that plays it with 0.5 s of silence before
    /// and 1.5 s after; the speech's length in seconds.
    func microphone(_ number: Int, saying phrase: String) throws -> (wav: String, seconds: Double) {
        let wav = directory.file("speech-\(number).wav")
        let espeak = try requireTool("espeak-ng", package: "espeak-ng").run(["-w", wav, phrase])
        try #require(espeak.status == 0, "\(espeak.standardError)")
        try device(number, playing: [wav], effects: ["pad", "0.5", "1.5"])
        let seconds = try requireTool("soxi", package: "sox").run(["-D", wav]).standardOutput
        return (wav, try #require(Double(seconds.trimmingCharacters(in: .whitespacesAndNewlines))))
    }

    /// The device `micN` playing what sox makes of `input` with `effects`, as the raw samples the recorder reads.
    func device(_ number: Int, playing input: [String], effects: [String]) throws {
        let raw = directory.file("microphone-\(number).raw")
        let sox = try requireTool("sox", package: "sox").run(
            input + ["-t", "raw", "-r", "48000", "-e", "floating-point", "-b", "32", "-c", "1", raw] + effects)
        try #require(sox.status == 0, "\(sox.standardError)")
        let device = """
            pcm.mic\(number) {
                type file
                slave.pcm null
                file "/dev/null"
                infile "\(raw)"
                format "raw"
            }

            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: alsaConfiguration))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(device.utf8))
        try handle.close()
    }

    var environment: [String: String?] {
        ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(alsaConfiguration)"]
    }

    func record(device: String) throws -> Recorder {
        try Recorder(
            voicebank,
            [
                "record", "--bank", pack, "--voice", Self.voice, "--texts", textsFile, "--device", device,
                "--playback-device", "null",
            ], environment: environment)
    }

    @Test(
        "keys as lines: two prompts recorded from espeak-ng's speech and kept; the pack holds exactly them, trimmed as an import trims"
    )
    func twoPrompts() throws {
        let speech = [try microphone(1, saying: Self.phrases[0]), try microphone(2, saying: Self.phrases[1])]
        let before = try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice)
        // Held until the speech and a little of the silence after it have been heard.
        func hold(_ seconds: Double) { Thread.sleep(forTimeInterval: 0.5 + seconds + 0.6) }

        let first = try record(device: "mic1")
        try first.wait(for: "Prompt 1 of 4: “bob says the weather is fine”, no take yet. Press r to record.")
        try first.send("r")
        try first.wait(for: "Recording “bob says the weather is fine”. Press s to stop.")
        hold(speech[0].seconds)
        try first.send("s")
        try first.wait(for: "Stopped: a take of ")
        try first.send("p")
        try first.wait(for: "Playing the take just recorded, trimmed as it will be kept: ")
        try first.send("k")
        try first.wait(for: "Kept take 1 of “bob says the weather is fine”: ")
        try first.wait(for: "Prompt 2 of 4: “bob”, no take yet.")
        try first.send("q")
        #expect(try first.exitStatus() == 0, "\(first.output)")
        // P played the take as keeping it kept it: trimmed of the silence around the words.
        let said = first.output
        let played = try #require(seconds(after: "trimmed as it will be kept: ", in: said), "\(said)")
        let recorded = try #require(
            seconds(after: "trimmed as it will be kept: \(twoDecimals(played)) s of ", in: said))
        let kept = try #require(seconds(after: "Kept take 1 of “bob says the weather is fine”: ", in: said))
        #expect(abs(played - kept) <= 0.02 && played < recorded - 0.3, "\(said)")

        // Started again, its script is what the texts still miss.
        let second = try record(device: "mic2")
        try second.wait(for: "Prompt 1 of 3: “bob”, no take yet. Press r to record.")
        try second.send("r")
        try second.wait(for: "Recording “bob”.")
        hold(speech[1].seconds)
        try second.send("s")
        try second.wait(for: "Stopped: a take of ")
        try second.send("d")
        try second.wait(for: "Take discarded; nothing was kept. Press r to record again.")
        try second.send("r")
        try second.wait(for: "Recording “bob”.")
        hold(speech[1].seconds)
        try second.send("s")
        try second.wait(for: "Stopped: a take of ")
        try second.send("")
        try second.wait(for: "Kept take 1 of “bob”: ")
        try second.wait(for: "Prompt 2 of 3: “the”, no take yet.")
        try second.send("b")
        try second.wait(for: "Prompt 1 of 3: “bob”, 1 take.")
        try second.send("b")
        try second.wait(for: "This is the first prompt.")
        try second.send("n")
        try second.wait(for: "Prompt 2 of 3: “the”, no take yet.")
        try second.send("x")
        try second.wait(for: #"unknown key "x": expected r (record), s (stop)"#)
        try second.send("q")
        #expect(try second.exitStatus() == 0, "\(second.output)")
        #expect(second.output.contains("1 of 3 prompts have a take in \(pack)."))
        #expect(!(first.output + second.output).contains("error"), "\(first.output)\n\(second.output)")

        // The coverage it said is voicebank coverage's.
        let coverage = try voicebank.run(["coverage", "--bank", pack, "--voice", Self.voice, "--file", textsFile])
        let summary = try #require(coverage.standardOutput.split(separator: "\n").last)
        #expect(second.output.contains("Your texts: \(summary)."), "\(second.output)")

        // Exactly the two kept takes, at their phrases, each trimmed to its speech as an import of espeak-ng's file is.
        let store = try VoicePack(path: pack, access: .readOnly)
        let clips = try store.clips(voice: Self.voice)
        #expect(Array(clips.prefix(before.count)) == before)
        let takes = Array(clips.dropFirst(before.count))
        #expect(takes.map(\.phrase) == Self.phrases)
        let reference = directory.file("reference.sqlite")
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: reference)
        for (take, (wav, seconds)) in zip(takes, speech) {
            #expect(take.source.sampleRate == 48_000 && take.source.channelCount == 1)
            #expect(take.sourceName == take.phrase.replacingOccurrences(of: " ", with: "_") + ".wav")
            // Recorded: the half second before the speech (less the 0.2 s lead left out), the speech, and more.
            let recorded = Double(take.source.frameCount) / 48_000
            #expect(recorded > seconds + 0.3, "\(recorded)")
            let imported = try voicebank.run([
                "import", "--bank", reference, "--voice", Self.voice, "--text", take.phrase, wav,
            ])
            try #require(imported.status == 0, "\(imported.standardError)")
            let expected = try #require(try VoicePack(path: reference, access: .readOnly).clips(voice: Self.voice).last)
            #expect(
                abs(take.durationSeconds - expected.durationSeconds) < 0.02,
                "\(take.durationSeconds) \(expected.durationSeconds)")
            #expect(take.durationSeconds < recorded - 0.5)
        }
    }

    @Test(
        "on a terminal: its keys one by one without echo, the meter redrawn in place, the terminal restored on q, SIGINT and SIGTERM"
    )
    func terminal() throws {
        let speech = try microphone(1, saying: Self.phrases[0])
        let driver = PythonDriver("Tests/StudioTests/Fixtures/terminal_driver.py")
        let command = [
            "/usr/bin/env", "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(alsaConfiguration)", voicebank.path,
            "record", "--bank", pack, "--voice", Self.voice, "--texts", textsFile, "--device", "mic1",
        ]
        let session = try driver.run(["session", "\(0.5 + speech.seconds + 0.6)"] + command)
        let output = try #require(session["output"] as? String)
        #expect(session["raw"] as? Bool == true, "non-canonical without echo while it runs")
        #expect(session["restored"] as? Bool == true, "\(output)")
        #expect(session["status"] as? Int == -Int(SIGINT))
        // The meter: redrawn in place on standard error, and cleared before the line that ends the take.
        #expect(output.contains("\r\u{1B}[Krec 0."), "\(output)")
        #expect(output.contains(" dBFS\r\u{1B}[KStopped: a take of "), "\(output)")
        #expect(output.contains("Press Space to stop.") && output.contains("Enter keeps it, Backspace discards it."))
        #expect(output.contains("Prompt 1 of 4: “bob says the weather is fine”, 1 take."), "\(output)")
        // The take interrupted by SIGINT is not in the pack; the kept one is.
        let takes = try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice).filter {
            Self.phrases.contains($0.phrase)
        }
        #expect(takes.map(\.phrase) == [Self.phrases[0]])

        for (ending, status) in [("q", 0), ("SIGTERM", -Int(SIGTERM))] {
            let ended = try driver.run(["end", ending] + command)
            #expect(ended["restored"] as? Bool == true, "\(ending): \(ended)")
            #expect(ended["status"] as? Int == status, "\(ending): \(ended)")
        }
    }

    @Test(
        "a prompt for a final take: shown with its full stop and how to say it, kept as final, and listened to; a take that says another word is heard so, and O keeps it for no place"
    )
    func positions() throws {
        let speech = try microphone(1, saying: "York.")
        let prompts = directory.file("prompts.txt")
        try "e.York\nq.Leeds\n".write(toFile: prompts, atomically: true, encoding: .utf8)
        // Held for different lengths, so that the two takes of the device's one file are not the same audio, which the
        // import would skip.
        func hold(_ more: Double = 0) { Thread.sleep(forTimeInterval: 0.5 + speech.seconds + 0.6 + more) }
        let recorder = try Recorder(
            voicebank,
            [
                "record", "--bank", pack, "--voice", Self.voice, "--prompts", prompts, "--device", "mic1",
                "--playback-device", "null",
            ], environment: environment)
        try recorder.wait(
            for:
                "Prompt 1 of 2: “York.” (final: say it as the end of a sentence), no final take yet. Press r to record."
        )
        try recorder.send("r")
        try recorder.wait(for: "Recording “York.”. Press s to stop.")
        hold()
        try recorder.send("s")
        try recorder.wait(for: "Stopped: a take of ")
        try recorder.send("k")
        try recorder.wait(for: "Kept take 1 of “York.” as a final take: ")
        try recorder.wait(
            for: "Prompt 2 of 2: “Leeds?” (question: say it as the end of a question), no question take yet.")
        try recorder.wait(for: "Heard take 1 of “York.” as its phrase.")
        // The device plays York again: a take of Leeds that says York.
        try recorder.send("r")
        try recorder.wait(for: "Recording “Leeds?”.")
        hold(0.4)
        try recorder.send("s")
        try recorder.wait(for: "Stopped: a take of ")
        try recorder.send("o")
        try recorder.wait(for: "The take of “Leeds” will be kept as a take of no particular place. o chooses another.")
        try recorder.send("k")
        try recorder.wait(for: "Kept take 1 of “Leeds?”: ")
        try recorder.wait(
            for:
                "Heard “york” in take 1 of “Leeds?”, not its phrase. Record it again? It stays in the pack unless you discard it. To record it again, go back to prompt 2."
        )
        try recorder.send("q")
        #expect(try recorder.exitStatus() == 0, "\(recorder.output)")
        #expect(recorder.output.contains("1 of 2 prompts have a take in \(pack)."), "\(recorder.output)")

        let takes = try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice).suffix(2)
        #expect(takes.map(\.phrase) == ["York", "Leeds"])
        #expect(takes.map(\.position) == [.final, nil])
        #expect(takes.map(\.sourceName) == ["e.York.wav", "Leeds.wav"])
    }

    @Test("skip moves on to the next prompt without a take; a (redo) records the last kept take again and replaces it")
    func skipAndRedo() throws {
        let speech = try microphone(1, saying: "bob")
        // Held for different lengths, so that the two takes of the device's one file are not the same audio.
        func hold(_ more: Double = 0) { Thread.sleep(forTimeInterval: 0.5 + speech.seconds + 0.6 + more) }
        let before = try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice)
        let recorder = try record(device: "mic1")
        try recorder.wait(for: "Prompt 1 of 4: “bob says the weather is fine”, no take yet.")
        try recorder.send("a")
        try recorder.wait(for: "No take has been kept here yet: there is nothing to redo.")
        try recorder.send("skip")
        try recorder.wait(for: "Skipped “bob says the weather is fine”. Prompt 2 of 4: “bob”, no take yet.")
        try recorder.send("r")
        try recorder.wait(for: "Recording “bob”.")
        hold()
        try recorder.send("s")
        try recorder.wait(for: "Stopped: a take of ")
        try recorder.send("k")
        try recorder.wait(for: "Kept take 1 of “bob”: ")
        try recorder.wait(for: "Prompt 3 of 4: “the”, no take yet.")
        let first = try #require(try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice).last)
        try recorder.send("a")
        try recorder.wait(for: "Prompt 2 of 4: “bob”, 1 take.")
        try recorder.wait(for: "Recording “bob”.")
        hold(0.4)
        try recorder.send("s")
        try recorder.wait(for: "Stopped: a take of ")
        try recorder.send("k")
        try recorder.wait(for: "It replaces the take redone.")
        try recorder.send("q")
        #expect(try recorder.exitStatus() == 0, "\(recorder.output)")
        #expect(!recorder.output.contains("error"), "\(recorder.output)")

        let takes = try VoicePack(path: pack, access: .readOnly).clips(voice: Self.voice).dropFirst(before.count)
        #expect(takes.map(\.phrase) == ["bob"])
        #expect(takes.first?.id != first.id)
    }

    @Test(
        "a take that clips and a quiet one are said to be when they stop, with the page's hints",
        arguments: [
            ("6", "It clips (peak 0.0 dBFS): record it again a little further from the microphone."),
            ("-40", "It is quiet (peak -40.0 dBFS): move closer to the microphone or raise its input level."),
        ])
    func levels(gain: String, hint: String) throws {
        // A tone for 3 s: 6 dB past full scale (clipped by sox), or 40 dB down.
        try device(1, playing: ["-n"], effects: ["synth", "3", "sine", "440", "gain", gain])
        let recorder = try record(device: "mic1")
        try recorder.wait(for: "Prompt 1 of 4: “bob says the weather is fine”, no take yet.")
        try recorder.send("r")
        try recorder.wait(for: "Recording “bob says the weather is fine”.")
        Thread.sleep(forTimeInterval: 1)
        try recorder.send("s")
        try recorder.wait(for: "Stopped: a take of ")
        try recorder.wait(for: hint)
        try recorder.send("d")
        try recorder.wait(for: "Take discarded; nothing was kept.")
        try recorder.send("q")
        #expect(try recorder.exitStatus() == 0, "\(recorder.output)")
        let other = gain == "6" ? "It is quiet" : "It clips"
        #expect(!recorder.output.contains(other), "\(recorder.output)")
    }

    @Test("--script phone-pairs offers the sentences that add phone-pairs the voice lacks, and none that add none")
    func phonePairScript() throws {
        _ = try microphone(1, saying: "Zebras")
        let sentences = directory.file("sentences.txt")
        // "A" is one phone: no pair, so it is never a prompt.
        try "A.\nZebras quickly jumped over sixty boxes.\n".write(toFile: sentences, atomically: true, encoding: .utf8)
        let recorder = try Recorder(
            voicebank,
            [
                "record", "--bank", pack, "--voice", Self.voice, "--script", "phone-pairs", "--sentences", sentences,
                "--device", "mic1", "--playback-device", "null",
            ], environment: environment)

        try recorder.wait(for: "Prompt 1 of 1: “Zebras quickly jumped over sixty boxes.”")
        try recorder.send("q")

        #expect(try recorder.exitStatus() == 0, "\(recorder.output)")
        let misused = try voicebank.run(["record", "--bank", pack, "--sentences", sentences])
        #expect(misused.status == 64)
        #expect(misused.standardError.contains("--sentences needs --script phone-pairs."), "\(misused.standardError)")
    }

    @Test("a capture device ALSA does not know is a one-line error naming it, and the pack is left as it was")
    func unknownDevice() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: pack))
        let result = try voicebank.run(
            ["record", "--bank", pack, "--voice", Self.voice, "--texts", textsFile, "--device", "nowhere"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: cannot open the capture device nowhere: Unknown PCM nowhere (No such file or directory); expected an ALSA capture device such as default (arecord -L lists them)\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: pack)) == before)
    }
}

/// `voicebank record` with its standard input a pipe the test writes key lines to, and its standard error collected.
final class Recorder {
    let process: Process
    private let input = Pipe()
    private let collected = CollectedOutput()
    /// How many bytes of the output the waits have gone past.
    private var searchedFrom = 0

    init(_ binary: Binary, _ arguments: [String], environment: [String: String?]) throws {
        process = try binary.start(arguments, environment: environment)
        let errors = Pipe()
        let collected = collected
        errors.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        process.standardError = errors
        process.standardInput = input
        try process.run()
    }

    /// What it said on standard error so far.
    var output: String { collected.text }

    /// Sends one key line.
    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits up to 30 s for it to say `text` after what the last wait found: a keep into the default pack, whose
    /// fallback voice is chosen again at each import, takes 3–6 s in a debug build on its own, and more on a machine
    /// busy with other builds.
    func wait(for text: String) throws {
        for _ in 0..<600 {
            let said = output.utf8
            let rest = String(decoding: said.dropFirst(searchedFrom), as: UTF8.self)
            if let found = rest.range(of: text) {
                searchedFrom += rest.utf8.distance(from: rest.utf8.startIndex, to: found.upperBound)
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Binary.Failure(description: "voicebank record never said \"\(text)\": \(output)")
    }

    /// Waits for it to end.
    func exitStatus() throws -> Int32 {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// The number of seconds said right after `marker` in `text` (`1.23` of `…: 1.23 s`), the first time it is said.
func seconds(after marker: String, in text: String) -> Double? {
    guard let found = text.range(of: marker) else { return nil }
    return Double(text[found.upperBound...].prefix { $0.isNumber || $0 == "." })
}

/// `seconds` as printf's `%.2f` writes them: the test's own reading of what the studio says, apart from its formatter.
func twoDecimals(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
