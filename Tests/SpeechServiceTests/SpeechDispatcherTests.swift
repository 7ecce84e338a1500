// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechService
import TestSupport
import Testing
import Voicebank

/// A private speech-dispatcher for one test: the module installed with `tools/install --user` into a temporary
/// home, the server's sound going to a file through an ALSA `file` PCM, the server started headless in that home.
final class PrivateSpeechDispatcher {
    let home: TemporaryDirectory
    let environment: [String: String?]
    let capturePath: String
    private let server: Process

    static let serverPath = "/usr/bin/speech-dispatcher"
    static let isInstalled =
        FileManager.default.isExecutableFile(atPath: serverPath)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/spd-say")
    /// The Python client Orca uses: Debian's python3-speechd, for the system python3.
    static let hasPythonClient: Bool = {
        guard isInstalled else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import speechd"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
    static let missingMessage =
        "speech-dispatcher is not installed here (apt-get install speech-dispatcher python3-speechd; .ci/run does)"

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    init() throws {
        home = TemporaryDirectory("speechd-home")
        let runtime = home.file("run")
        let configHome = home.file(".config")
        let noSystemModules = home.file("no-system-modules")
        for folder in [runtime, "\(configHome)/speech-dispatcher", noSystemModules] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
        environment = [
            "HOME": home.path, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": configHome,
            "XDG_DATA_HOME": home.file(".local/share"), "CONCAT_SYNTH_BANK": nil, "PULSE_SERVER": nil,
            "SPEECHD_ADDRESS": nil,
        ]
        capturePath = home.file("captured.raw")

        // The module exactly as a user gets it, from the binaries this test run built.
        let binaries = URL(fileURLWithPath: Binary("sd_concat-synth").path).deletingLastPathComponent().path
        // Installing checks and copies the default pack, Allison's prompts (about 180 MB): minutes on a loaded machine.
        let install = try Self.run(
            "\(Self.repository)/tools/install", ["--user", "--binaries", binaries], environment, timeoutSeconds: 600)
        guard install.status == 0 else {
            throw SessionError(description: "tools/install --user failed: \(install.standardError)")
        }

        // Debian's configuration, with its sound sent to the capture PCM; the user's configuration folder is where
        // the server then looks for concat-synth.conf, as it would for a real user.
        var configuration = try String(contentsOfFile: "/etc/speech-dispatcher/speechd.conf", encoding: .utf8)
        configuration += "\nAudioOutputMethod \"alsa\"\nAudioALSADevice \"capture\"\nDefaultModule concat-synth\n"
        try configuration.write(
            toFile: "\(configHome)/speech-dispatcher/speechd.conf", atomically: true, encoding: .utf8)
        try """
        pcm.capture {
            type file
            slave.pcm "null"
            file "\(capturePath)"
            format "raw"
        }

        """.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)

        // Only the user's module folder: the system's modules would only slow the start.
        server = Process()
        server.executableURL = URL(fileURLWithPath: Self.serverPath)
        server.arguments = ["-m", noSystemModules, "-s", "-t", "30"]
        server.environment = Self.merged(environment)
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let socket = "\(runtime)/speech-dispatcher/speechd.sock"
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, server.isRunning else {
                throw SessionError(description: "speech-dispatcher did not start (no \(socket))")
            }
            usleep(20_000)
        }
    }

    deinit {
        // SIGKILL: children of the test process inherit a signal mask that can block SIGTERM. The module then
        // sees its input close and exits by itself.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    /// The server's sound so far: signed 16-bit mono at 22050 Hz, what it played of the module's audio.
    func capturedSamples() -> [Int16] {
        guard let data = FileManager.default.contents(atPath: capturePath) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Runs `executable` in the private home, with a time limit so a hung client fails the test.
    func run(_ executable: String, _ arguments: [String], timeoutSeconds: Double = 30) throws -> RunResult {
        try Self.run(executable, arguments, environment, timeoutSeconds: timeoutSeconds)
    }

    static func merged(_ environment: [String: String?]) -> [String: String] {
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        return variables
    }

    static func run(
        _ executable: String, _ arguments: [String], _ environment: [String: String?], timeoutSeconds: Double = 120
    ) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = merged(environment)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: watchdog)
        let result = Binary.collect(process, output: output, error: error)
        watchdog.cancel()
        return RunResult(
            status: result.status, standardOutputBytes: result.standardOutputBytes, standardError: result.standardError)
    }

    /// Runs a Python script with Debian's python3 and its speechd client; returns its standard output's lines.
    func python(_ script: String, arguments: [String] = []) throws -> [String] {
        let path = home.file("client-\(UUID().uuidString).py")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run("/usr/bin/python3", [path] + arguments)
        guard result.status == 0 else {
            throw SessionError(description: "the Python client failed (\(result.status)): \(result.standardError)")
        }
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    /// The Python client's part of the tests: speaks the SSML in the file `argv[1]` through concat-synth, prints
    /// one line per callback (`begin`, `index_marks NAME`, `end`, `cancel`), and with `stop` as `argv[2]` stops
    /// the message as soon as it has begun. Further arguments `rate=N` and `pitch=N` set those first.
    static let clientScript = """
        import sys, threading, speechd

        class EarlyEvents:
            # speechd's SSIPClient adds a message's callback only when speak() has its id, and drops the events
            # that came before (the TODO in its speak()); a module that begins at once sends BEGIN and the first
            # marks that soon. This handler keeps such events, in order, until the callback is added.
            def __init__(self):
                self._lock = threading.Lock()
                self._callbacks = {}
                self._early = {}
            def __call__(self, msg_id, client_id, type, **kwargs):
                with self._lock:
                    if msg_id in self._callbacks:
                        self._deliver(msg_id, type, kwargs)
                    else:
                        self._early.setdefault(msg_id, []).append((type, kwargs))
            def add_callback(self, msg_id, callback, event_types):
                with self._lock:
                    self._callbacks[msg_id] = (callback, event_types)
                    for type, kwargs in self._early.pop(msg_id, []):
                        self._deliver(msg_id, type, kwargs)
            def _deliver(self, msg_id, type, kwargs):
                callback, event_types = self._callbacks[msg_id]
                if event_types is None or type in event_types:
                    callback(type, **kwargs)

        client = speechd.SSIPClient("concat-synth-test")
        client._callback_handler = EarlyEvents()
        client._conn.set_callback(client._callback_handler)
        client.set_output_module("concat-synth")
        client.set_data_mode(speechd.DataMode.SSML)
        for setting in sys.argv[3:]:
            key, value = setting.split("=")
            {"rate": client.set_rate, "pitch": client.set_pitch}[key](int(value))
        done = threading.Event()
        began = threading.Event()
        lines = []
        def callback(kind, index_mark=None):
            lines.append(kind + ("" if index_mark is None else " " + index_mark))
            if kind == speechd.CallbackType.BEGIN:
                began.set()
            if kind in (speechd.CallbackType.END, speechd.CallbackType.CANCEL):
                done.set()
        client.speak(open(sys.argv[1], encoding="utf-8").read(), callback=callback, event_types=(
            speechd.CallbackType.BEGIN, speechd.CallbackType.END, speechd.CallbackType.CANCEL,
            speechd.CallbackType.INDEX_MARK))
        if len(sys.argv) > 2 and sys.argv[2] == "stop":
            began.wait(20)
            client.stop()
        if not done.wait(60):
            lines.append("timeout")
        client.close()
        print("\\n".join(lines))
        """

    /// Speaks `ssml` with the Python client; the callbacks' lines.
    func speakWithClient(_ ssml: String, stop: Bool = false, rate: Int = 0, pitch: Int = 0) throws -> [String] {
        let request = home.file("request-\(UUID().uuidString).ssml")
        try ssml.write(toFile: request, atomically: true, encoding: .utf8)
        return try python(
            Self.clientScript, arguments: [request, stop ? "stop" : "go", "rate=\(rate)", "pitch=\(pitch)"])
    }
}

/// How a process ended and what it printed.
struct RunResult {
    var status: Int32
    var standardOutputBytes: [UInt8]
    var standardError: String
    var standardOutput: String { String(decoding: standardOutputBytes, as: UTF8.self) }
}

/// End to end with Debian's speech-dispatcher: the module installed by `tools/install --user`, found and started by
/// the real server, spoken to by `spd-say` and by the Python client Orca uses.
@Suite(.serialized, .enabled(if: PrivateSpeechDispatcher.isInstalled, "\(PrivateSpeechDispatcher.missingMessage)"))
struct SpeechDispatcherTests {
    @Test("spd-say -w -o concat-synth hello: the server plays the rendered samples, which are not silent")
    func spdSay() throws {
        let server = try PrivateSpeechDispatcher()
        let result = try server.run("/usr/bin/spd-say", ["-w", "-o", "concat-synth", "hello"])
        #expect(result.status == 0, "spd-say: \(result.standardError)")
        let directory = TemporaryDirectory("speechd-reference")
        // The server plays server audio at a fixed volume 85 of its -100…100 scale, multiplying each sample by
        // 0.925 as a float and truncating (src/server/output.c, src/audio/alsa.c): volume is the module's job.
        // The installed module speaks with the default pack it was installed with (tools/test builds it).
        let expected = try reference(
            "<speak>hello</speak>", options: ["--bank", VoicePackLocation.defaultPackPath], directory: directory
        ).samples.map {
            Int16((Float($0) * Float(0.925)).rounded(.towardZero))
        }
        // The file PCM is written as the server plays; give its last period a moment to land.
        var captured = server.capturedSamples()
        for _ in 0..<50 where captured.count < expected.count {
            usleep(20_000)
            captured = server.capturedSamples()
        }
        #expect(captured.count == expected.count)
        let differing = zip(captured, expected).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(expected.count) samples differ")
        let rms = sqrt(captured.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, captured.count)))
        #expect(rms > 300, "RMS \(rms) of \(captured.count) samples")
    }

    // Marks named __spd_… are the server's own (it inserts them to resume after a pause) and never reach a client.
    @Test(
        "the Python client receives every index mark in order, then the end",
        .enabled(if: PrivateSpeechDispatcher.hasPythonClient, "python3-speechd is not installed"))
    func indexMarks() throws {
        let server = try PrivateSpeechDispatcher()
        let lines = try server.speakWithClient(
            """
            <speak><mark name="0:5"/>hello <mark name="6:10"/>nice to meet you <mark name="17:21"/>\
            good morning<mark name="last"/></speak>
            """)
        #expect(
            lines == ["begin", "index_marks 0:5", "index_marks 6:10", "index_marks 17:21", "index_marks last", "end"])
    }

    @Test(
        "a stop in the middle of a sentence cancels it, and the next message speaks",
        .enabled(if: PrivateSpeechDispatcher.hasPythonClient, "python3-speechd is not installed"))
    func stopMidSentence() throws {
        let server = try PrivateSpeechDispatcher()
        // About a minute of speech in one sentence: the server takes over a second to play it into the file.
        let sentence = Array(repeating: "nice to meet you, good morning, double tap to open", count: 20)
            .joined(separator: " and ")
        let request = "<speak><s>\(sentence)</s><mark name=\"after\"/></speak>"
        let lines = try server.speakWithClient(request, stop: true)
        #expect(lines.first == "begin")
        #expect(lines.last == "cancel")
        #expect(!lines.contains("end") && !lines.contains("index_marks after"))
        let full = try reference(
            request, options: ["--bank", VoicePackLocation.defaultPackPath],
            directory: TemporaryDirectory("speechd-reference")
        ).samples.count
        #expect(server.capturedSamples().count < full)
        let next = try server.speakWithClient("<speak>hello</speak>")
        #expect(next == ["begin", "end"])
    }

    /// What the server played of `text` spoken through the Python client with `rate` and `pitch`.
    func spoken(_ text: String, rate: Int = 0, pitch: Int = 0) throws -> [Int16] {
        let server = try PrivateSpeechDispatcher()
        let lines = try server.speakWithClient("<speak>\(text)</speak>", rate: rate, pitch: pitch)
        #expect(lines.last == "end", "rate \(rate), pitch \(pitch): \(lines)")
        return server.capturedSamples()
    }

    /// Sign changes per sample: twice the frequency of a voice's fundamental, roughly, where it dominates.
    func zeroCrossingRate(_ samples: [Int16]) -> Double {
        let crossings = zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / Double(max(1, samples.count))
    }

    @Test(
        "rate +100 speaks at least 3.5x faster than rate 0 and -100 at most 0.6x; pitch +100 is higher, as long",
        .enabled(if: PrivateSpeechDispatcher.hasPythonClient, "python3-speechd is not installed"))
    func rateAndPitch() throws {
        let text = "hello, nice to meet you. good morning, double tap to open."
        let normal = try spoken(text)
        let fast = try spoken(text, rate: 100)
        let slow = try spoken(text, rate: -100)
        let high = try spoken(text, pitch: 100)
        #expect(normal.count > 22_050)
        #expect(Double(fast.count) * 3.5 <= Double(normal.count), "\(fast.count) samples at +100, \(normal.count) at 0")
        #expect(Double(slow.count) * 0.6 >= Double(normal.count), "\(slow.count) samples at -100, \(normal.count) at 0")
        // An octave up keeps the duration (the stretcher's edges aside) and about doubles the crossings.
        #expect(abs(Double(high.count) / Double(normal.count) - 1) < 0.02, "\(high.count) samples, \(normal.count)")
        let ratio = zeroCrossingRate(high) / zeroCrossingRate(normal)
        #expect(ratio > 1.5, "zero crossings \(ratio)x at pitch +100")
    }
}
