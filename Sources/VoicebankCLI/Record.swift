// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import Studio
import Synchronization
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension VoicebankCommand {
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Record a voice's prompts on a terminal, from an ALSA capture device, keeping each take in the pack.",
            discussion: """
                The studio's script (the same --texts, --prompts, --words), prompt by prompt, starting at the first \
                prompt without a take. Keys: R records, Space stops, P plays, Enter keeps the take and moves on, Backspace \
                discards, the left and right arrows move between prompts, S skips to the next prompt without a take, A \
                records the last kept take again (it replaces that take once kept), O chooses the position the take \
                is kept with (none, initial, medial, final, question; the prompt's own by default), q quits. A kept take is imported at once, \
                as voicebank import imports a file: trimmed, measured, in its own transaction, then listened to (English \
                voices): a line says when the recogniser heard other words. While recording, \
                standard error shows a level meter when it is a terminal. With no terminal on standard input, the \
                keys are read as lines: r, s (stop), p, k or an empty line (keep), d (discard), b and n (back, next), \
                o (position), skip, a (redo), q; the end of the input quits.
                Example: voicebank record --bank my.sqlite --texts requests.txt --device default
                """)

        @OptionGroup var script: ScriptOptions

        @Option(
            help: ArgumentHelp(
                "The ALSA device to record from (arecord -L lists them).", valueName: "name"))
        var device = "default"

        @Option(help: ArgumentHelp("The ALSA device P plays to (aplay -L lists them).", valueName: "name"))
        var playbackDevice = "default"

        func run() throws {
            stopOnTerminationSignals()
            let keyboard = Keyboard()
            let display = Display(isTerminal: FileDescriptor.standardError.isTerminal)
            let recorder = try TerminalRecorder.start(
                script.options, capture: device, playback: playbackDevice,
                keyNames: keyboard.isTerminal ? .terminal : .lines
            ) { display.show($0) }
            for warning in recorder.warnings { display.show(.line("warning: \(warning)")) }
            display.show(
                .line(
                    "record: \(recorder.promptCount) prompt\(recorder.promptCount == 1 ? "" : "s") for voice \(recorder.voice) of \(recorder.packPath), from \(device)"
                ))
            keyboard.start()
            defer { keyboard.restore() }
            recorder.begin()
            while recorder.handle(keyboard.next(display: display)) {}
        }
    }
}

/// The recorder's lines and its meter on standard error: the meter redrawn in place on a terminal (and cleared before a
/// line), left out elsewhere, where the line that ends a take gives its levels.
private final class Display: Sendable {
    let isTerminal: Bool
    private let isMeterDrawn = Mutex(false)

    init(isTerminal: Bool) { self.isTerminal = isTerminal }

    func show(_ output: RecorderOutput) {
        isMeterDrawn.withLock { isMeterDrawn in
            var standardError = StandardError()
            switch output {
            case .line(let line):
                print((isMeterDrawn ? "\r\u{1B}[K" : "") + line, to: &standardError)
                isMeterDrawn = false
            case .meter(let meter):
                guard isTerminal else { return }
                print("\r\u{1B}[K" + meter, terminator: "", to: &standardError)
                isMeterDrawn = true
            }
        }
    }
}

/// Where the keys come from: a terminal's keys one by one, in non-canonical mode without echo (restored on exit, and
/// on SIGINT and SIGTERM before the signal ends the process), or, with no terminal on standard input, lines.
private final class Keyboard {
    let isTerminal = FileDescriptor.standardInput.isTerminal
    private var isRaw = false

    /// Puts the terminal in non-canonical mode without echo, so that each key arrives as it is pressed. Ctrl-C still
    /// sends SIGINT.
    func start() {
        guard isTerminal, tcgetattr(STDIN_FILENO, &savedTerminal) == 0 else { return }
        var raw = savedTerminal
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        for signal in [SIGINT, SIGTERM] {
            _ = Glibc.signal(signal) { signal in
                // Only async-signal-safe calls: the terminal back as it was, a new line after the meter, then the
                // signal's own ending.
                tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
                _ = write(STDERR_FILENO, "\n", 1)
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
        }
        isRaw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard isRaw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
        isRaw = false
    }

    /// The next key; `.quit` at the end of the input.
    func next(display: Display) -> RecorderKey {
        isTerminal ? nextKey() : nextLine(display: display)
    }

    /// Keys as lines: the letters `voicebank record --help` lists; an unknown line is said and skipped.
    private func nextLine(display: Display) -> RecorderKey {
        while let line = readLine() {
            let word = line.trimmingSpaces.lowercased()
            switch word {
            case "r": return .record
            case "s": return .stop
            case "p": return .play
            case "k", "": return .keep
            case "d": return .discard
            case "b": return .previous
            case "n": return .next
            case "o": return .position
            case "skip": return .skip
            case "a": return .redo
            case "q": return .quit
            default:
                display.show(
                    .line(
                        "unknown key \"\(line)\": expected r (record), s (stop), p (play), k or an empty line (keep), d (discard), b (back), n (next), o (position), skip, a (redo) or q (quit)"
                    ))
            }
        }
        return .quit
    }

    /// A key pressed: the page's keys (R, Space, P, Enter, Backspace, the arrows, O, S, A), the letters of the lines
    /// but s, which skips as on the page, q, and Ctrl-D for quit. Other keys do nothing.
    private func nextKey() -> RecorderKey {
        while let byte = readByte() {
            switch byte {
            case UInt8(ascii: "r"), UInt8(ascii: "R"): return .record
            case UInt8(ascii: " "): return .stop
            case UInt8(ascii: "s"), UInt8(ascii: "S"): return .skip
            case UInt8(ascii: "a"), UInt8(ascii: "A"): return .redo
            case UInt8(ascii: "p"), UInt8(ascii: "P"): return .play
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: "k"), UInt8(ascii: "K"): return .keep
            case 0x7F, 0x08, UInt8(ascii: "d"), UInt8(ascii: "D"): return .discard
            case UInt8(ascii: "b"), UInt8(ascii: "B"): return .previous
            case UInt8(ascii: "n"), UInt8(ascii: "N"): return .next
            case UInt8(ascii: "o"), UInt8(ascii: "O"): return .position
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04: return .quit
            case 0x1B:
                // An arrow is ESC [ A…D (or ESC O A…D); ESC alone, or another sequence, does nothing.
                guard let introducer = readByte(waitingMilliseconds: 50),
                    introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O")
                else { continue }
                var final = readByte(waitingMilliseconds: 50)
                // Past a sequence's parameters (a modified arrow's "1;5") to its final byte.
                while let byte = final, !(0x40...0x7E).contains(byte) { final = readByte(waitingMilliseconds: 50) }
                switch final {
                case UInt8(ascii: "A"), UInt8(ascii: "D"): return .previous
                case UInt8(ascii: "B"), UInt8(ascii: "C"): return .next
                default: continue
                }
            default: continue
            }
        }
        return .quit
    }

    /// A byte of standard input; `nil` at its end, or when none comes within `waitingMilliseconds`.
    private func readByte(waitingMilliseconds: Int32? = nil) -> UInt8? {
        if let waitingMilliseconds {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, waitingMilliseconds) == 1 else { return nil }
        }
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

/// The terminal's settings before `voicebank record` changed them, for the signal handlers to restore: a C signal
/// handler can reach only globals.
nonisolated(unsafe) private var savedTerminal = termios()
