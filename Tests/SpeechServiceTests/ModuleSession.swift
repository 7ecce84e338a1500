// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import SpeechService
import TestSupport
import Voicebank

/// The `sd_concat-synth` process over pipes, with the test playing speech-dispatcher's part.
final class ModuleSession {
    let process: Process
    private let input: FileHandle
    private let reader: ModuleOutputReader
    private let outputPipe: Pipe
    /// Kills the module if a test has not finished with it in time, so a bug ends the test instead of hanging it.
    private let watchdog: DispatchWorkItem

    /// Starts the module with a configuration naming `pack` (or `configuration` given whole) in `directory`, and
    /// `environment` added to this process's (`Binary.start`).
    init(
        directory: TemporaryDirectory, pack: String? = defaultPack, configuration: String? = nil,
        environment: [String: String?] = [:], timeoutSeconds: Double = 60
    ) throws {
        let configurationPath = directory.file("concat-synth.conf")
        let text = configuration ?? pack.map { "VoicePack \"\($0)\"\n" } ?? ""
        try text.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        process = try Binary("sd_concat-synth").start([configurationPath], environment: environment)
        let inputPipe = Pipe()
        outputPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        try process.run()
        input = inputPipe.fileHandleForWriting
        reader = ModuleOutputReader(descriptor: outputPipe.fileHandleForReading.fileDescriptor)
        let pid = process.processIdentifier
        watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: watchdog)
    }

    deinit {
        watchdog.cancel()
        // Closing the input ends the module; the kill covers a module that does not (Process.terminate can miss
        // a process that has just exited and then wait forever).
        try? input.close()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static var defaultPack: String { ScreenReaderPack.path }

    func send(_ text: String) {
        input.write(Data(text.utf8))
    }

    func closeInput() { try? input.close() }

    /// The next message; fails the test when the module's output ends.
    func next() throws -> ModuleMessage {
        guard let message = reader.next() else { throw SessionError(description: "the module's output ended") }
        return message
    }

    /// Messages up to and including the first whose code is in `codes`.
    func messages(until codes: Set<Int>) throws -> [ModuleMessage] {
        var messages: [ModuleMessage] = []
        while true {
            let message = try next()
            messages.append(message)
            if codes.contains(message.code) { return messages }
        }
    }

    /// INIT, AUDIO (server audio) and LOGLEVEL as speech-dispatcher sends them when it loads a module; returns the
    /// replies.
    func initialize() throws -> [ModuleMessage] {
        send("INIT\n")
        var replies = [try next()]
        send("AUDIO\n")
        replies.append(try next())
        send("audio_output_method=server\n.\n")
        replies.append(try next())
        send("LOGLEVEL\n")
        replies.append(try next())
        send("log_level=3\n.\n")
        replies.append(try next())
        return replies
    }

    /// SET with `settings` (`key=value` lines) and SPEAK of `message` (`kind`: SPEAK, CHAR, KEY, SOUND_ICON), as the
    /// server sends them; returns the replies to both.
    @discardableResult
    func speak(_ message: String, settings: [String] = [], command: String = "SPEAK") throws -> [ModuleMessage] {
        send("SET\n")
        var replies = [try next()]
        send(settings.map { $0 + "\n" }.joined() + ".\n")
        replies.append(try next())
        send(command + "\n")
        replies.append(try next())
        send(DotStuffing.stuff(message))
        replies.append(try next())
        return replies
    }

    /// Waits for the process to end; its exit status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct SessionError: Error, CustomStringConvertible {
    var description: String
}

/// What a message's events amount to: the samples, and each mark with the samples sent before it.
struct Transcript {
    var samples: [Int16] = []
    var marks: [(name: String, sampleIndex: Int)] = []
    var codes: [Int] = []
    var blockSizes: [Int] = []

    init(_ messages: [ModuleMessage]) {
        for message in messages {
            codes.append(message.code)
            switch message.code {
            case 705:
                samples += message.samples
                blockSizes.append(message.samples.count)
            case 700: marks.append((message.lines[0], samples.count))
            default: break
            }
        }
    }
}

/// What `concat-synth render` makes of `request` with the default pack: Float32 samples and `<mark>` frames.
/// `options` go before the request (`--voice`, `--rate`).
func reference(
    _ request: String, options: [String] = [], directory: TemporaryDirectory
) throws -> (samples: [Int16], marks: [(String, Int)]) {
    let markers = directory.file("reference-\(UUID().uuidString).jsonl")
    let output = try Binary("concat-synth").runData(
        ["render", "--lenient", "-o", "-", "--markers", markers] + options + [request])
    let floats = output.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    var samples = [Int16](repeating: 0, count: floats.count)
    floats.withUnsafeBufferPointer { source in
        samples.withUnsafeMutableBufferPointer { PCM16.convert(source, into: $0) }
    }
    var marks: [(String, Int)] = []
    for line in try String(contentsOfFile: markers, encoding: .utf8).split(separator: "\n") {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        if object["kind"] as? String == "mark" { marks.append((object["text"] as! String, object["frame"] as! Int)) }
    }
    return (samples, marks)
}
