// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Playback
import SpeechCore
import Synchronization
import Voicebank

/// A key of `voicebank record`, whatever it was typed as: a key on a terminal, a line from a script.
public enum RecorderKey: Equatable, Sendable {
    case record, stop, play, keep, discard, previous, next, quit
    /// The next position for the take to keep: none, initial, medial, final, question, round again.
    case position
    /// On to the next prompt that has no take.
    case skip
    /// The last take kept recorded again: its prompt, recording at once.
    case redo
}

/// What the keys are called where the person types them, for the recorder's sentences ("Press Space to stop.").
public struct RecorderKeyNames: Sendable {
    public var record: String
    public var stop: String
    public var play: String
    public var keep: String
    public var discard: String
    public var position: String
    public var redo: String

    /// Keys on a terminal.
    public static let terminal = RecorderKeyNames(
        record: "R", stop: "Space", play: "P", keep: "Enter", discard: "Backspace", position: "O", redo: "A")
    /// Lines from a script: `r`, `s`, `p`, `k` (or an empty line), `d`, `o`, `a`.
    public static let lines = RecorderKeyNames(
        record: "r", stop: "s", play: "p", keep: "k", discard: "d", position: "o", redo: "a")
}

/// What the recorder says, from any of its threads.
public enum RecorderOutput: Equatable, Sendable {
    /// A line that stays: what just happened, the prompt now, an error.
    case line(String)
    /// The level meter while recording, to be drawn over the last one.
    case meter(String)
}

/// `voicebank record`: the studio's script recorded on a terminal, prompt by prompt, from an ALSA capture device.
///
/// The session is the studio's (`StudioSession`): the same script from the same sources, the same pack as the only
/// state (it starts at the first prompt without a take), and each kept take imported at once through the same code,
/// trimmed and measured as an imported file is. A recording becomes a take as on the page (`TakeChecks`): the first
/// 200 ms and the last 150 ms are left out, for the clicks of the keys, and a take that clips or is quiet is said to.
///
/// ```swift
/// let recorder = try TerminalRecorder.start(
///     StudioOptions(bank: "ann.sqlite"), capture: "default", playback: "default", keyNames: .terminal
/// ) { print($0) }
/// while recorder.handle(.record) { … }
/// ```
public final class TerminalRecorder {
    /// The rate takes are recorded at: most microphones' own; a `plug` device (`default`) converts for the others.
    public static let sampleRate = 48_000
    /// Frames read at a time, about 21 ms: how often the take grows.
    static let blockFrames = 1_024
    /// The longest take, in frames: what the studio's page may send (`StudioSite.limits`).
    static let longestFrames = StudioSite.limits.maximumBodyBytes / 4

    public let voice: String
    public let packPath: String
    public var promptCount: Int { prompts.count }
    /// What was left out of the prompt file.
    public let warnings: [String]
    private let session: StudioSession
    private let captureDevice: String
    private let playbackDevice: String
    private let keys: RecorderKeyNames
    private let output: @Sendable (RecorderOutput) -> Void
    private let checks = TakeChecks.standard
    private let trimThresholdDecibels: Double?
    private var prompts: [StudioState.PromptState]
    private var index = 0
    private var capture: Capture?
    private var pending: (samples: [Float], sampleRate: Int)?
    /// The position the next take of the prompt is kept with, when the person chose one other than the prompt's
    /// (`.some(nil)`: no particular place).
    private var chosenPosition: TakePosition??
    private var player: Player?
    /// The quietest RMS heard in the lead-ins of the takes: the room's noise.
    private var noiseFloor: Float?
    /// Whether it said that the voice's language is not checked by listening.
    private var hasSaidSkipped = false
    /// The last take kept here, for redo; and the take a redo replaces once its new take is kept.
    private var lastKept: (takeID: Int, promptID: String)?
    private var redoing: (takeID: Int, promptID: String)?

    private init(
        session: StudioSession, captureDevice: String, playbackDevice: String, keys: RecorderKeyNames,
        output: @escaping @Sendable (RecorderOutput) -> Void
    ) throws(StudioError) {
        self.session = session
        self.captureDevice = captureDevice
        self.playbackDevice = playbackDevice
        self.keys = keys
        self.output = output
        voice = session.voice.identifier
        packPath = session.packPath
        warnings = session.prompts.script.warnings
        trimThresholdDecibels = session.voice.trimming?.thresholdDecibels
        prompts = try session.state().prompts
        // Where the recording stopped: the first prompt without a take (for its position).
        index = prompts.firstIndex { !$0.isDone } ?? 0
    }

    /// Opens the pack for writing, makes the script, and checks that the capture device opens.
    ///
    /// - Parameters:
    ///   - capture: the ALSA device to record from (`default`, `hw:1`, `plug:mic`).
    ///   - playback: the ALSA device P plays to.
    ///   - output: told what to show, from any thread.
    /// - Throws: what `StudioSession.open` throws; `StudioError.device` for a capture device that does not open.
    public static func start(
        _ options: StudioOptions, capture: String, playback: String, keyNames: RecorderKeyNames,
        output: @escaping @Sendable (RecorderOutput) -> Void
    ) throws(StudioError) -> TerminalRecorder {
        let session = try StudioSession.open(options)
        do throws(StudioError) {
            do throws(PlaybackError) { _ = try CaptureDevice(name: capture, sampleRate: sampleRate) } catch {
                throw .device(error)
            }
            return try TerminalRecorder(
                session: session, captureDevice: capture, playbackDevice: playback, keys: keyNames, output: output)
        } catch {
            session.close()
            throw error
        }
    }

    /// Says which prompt is up; the first thing to show.
    public func begin() {
        say(describePrompt())
    }

    /// Does what `key` asks; `false` once the recorder has quit.
    public func handle(_ key: RecorderKey) -> Bool {
        if key != .play { stopPlaying() }
        if capture != nil && ![.stop, .discard, .quit, .position].contains(key) {
            say("Recording: press \(keys.stop) to stop first.")
            return true
        }
        do throws(StudioError) {
            switch key {
            case .record: try record()
            case .stop: stop()
            case .play: try play()
            case .keep: try keep()
            case .discard: try discard()
            case .previous: move(to: index - 1)
            case .next: move(to: index + 1)
            case .position: choosePosition()
            case .skip: skip()
            case .redo: try redo()
            case .quit:
                quit()
                return false
            }
        } catch {
            say("error: \(error)")
        }
        return true
    }

    // MARK: The keys

    private func record() throws(StudioError) {
        stopPlaying()
        let device: CaptureDevice
        do throws(PlaybackError) { device = try CaptureDevice(name: captureDevice, sampleRate: Self.sampleRate) } catch
        {
            throw .device(error)
        }
        pending = nil
        say("Recording \(quoted(current.readText)). Press \(keys.stop) to stop.")
        capture = Capture(device: device, checks: checks, output: output)
    }

    private func stop() {
        guard let capture else {
            say("Not recording: press \(keys.record) to record.")
            return
        }
        self.capture = nil
        let recorded = capture.finish()
        if let floor = recorded.leadFloor { noiseFloor = min(noiseFloor ?? floor, floor) }
        var problems: [String] = []
        if let error = recorded.error { problems.append("Recording failed: \(error).") }
        if recorded.overrunCount > 0 {
            problems.append(
                "The device's buffer overflowed \(recorded.overrunCount) time\(recorded.overrunCount == 1 ? "" : "s"), so some audio is missing: record it again."
            )
        }
        guard let cut = checks.cut(recorded.samples, sampleRate: Self.sampleRate) else {
            say(
                (problems + ["The take was too short to keep. Press \(keys.record) to record again."]).joined(
                    separator: " "))
            return
        }
        var peak: Float = 0
        var squares = 0.0
        for sample in cut {
            peak = max(peak, abs(sample))
            squares += Double(sample * sample)
        }
        let rms = Float((squares / Double(cut.count)).squareRoot())
        pending = (Array(cut), Self.sampleRate)
        let floor = noiseFloor.map { "; noise floor \(TakeChecks.decibels(TakeChecks.level($0)))" } ?? ""
        var hints = checks.hints(
            peakDecibels: TakeChecks.level(peak), noiseFloorDecibels: noiseFloor.map(TakeChecks.level),
            trimThresholdDecibels: trimThresholdDecibels)
        do throws(StudioError) {
            if let message = try session.takes.loudnessCheck(
                TakeUpload(samples: Array(cut), sampleRate: Self.sampleRate)
            )
            .message {
                hints.append(message)
            }
        } catch {
            hints.append("Its loudness could not be measured: \(error).")
        }
        say(
            ([
                "Stopped: a take of \(seconds(Double(cut.count) / Double(Self.sampleRate))), peak \(TakeChecks.decibels(TakeChecks.level(peak))), RMS \(TakeChecks.decibels(TakeChecks.level(rms)))\(floor)."
            ]
                + problems + hints
                + ["\(keys.play) plays it, \(keys.keep) keeps it, \(keys.discard) discards it."]).joined(separator: " ")
        )
    }

    private func play() throws(StudioError) {
        stopPlaying()
        let prompt = current
        let samples: [Float]
        let sampleRate: Int
        let what: String
        if let pending {
            // As it will be kept: trimmed.
            let played = session.takes.playedRange(
                of: TakeUpload(samples: pending.samples, sampleRate: pending.sampleRate))
            samples = Array(pending.samples[played])
            sampleRate = pending.sampleRate
            what =
                "the take just recorded, trimmed as it will be kept: \(seconds(Double(played.count) / Double(sampleRate))) of \(seconds(Double(pending.samples.count) / Double(sampleRate)))"
        } else if let take = prompt.takes.last {
            samples = try session.takes.audio(takeID: "\(take.id)")
            sampleRate = RenderFormat.sampleRate
            what = "take \(prompt.takes.count) of \(quoted(prompt.text)) as the pack holds it, \(seconds(take.seconds))"
        } else {
            say("\(quoted(prompt.text)) has no take to play yet. Press \(keys.record) to record one.")
            return
        }
        let device: SoundDevice
        do throws(PlaybackError) { device = try SoundDevice(name: playbackDevice, sampleRate: sampleRate) } catch {
            throw .device(error)
        }
        say("Playing \(what).")
        player = Player(device: device, samples: samples, output: output)
    }

    private func keep() throws(StudioError) {
        guard let pending else {
            move(to: min(index + 1, prompts.count - 1))
            return
        }
        let prompt = try session.prompts.prompt(id: current.id)
        let position = chosenPosition ?? prompt.position
        let take = try session.takes.keep(
            TakeUpload(samples: pending.samples, sampleRate: pending.sampleRate), prompt: prompt, position: position)
        self.pending = nil
        chosenPosition = nil
        // A redo's take replaces the one redone, once it is in the pack: never neither.
        var replaced = ""
        if let redone = redoing, redone.promptID == prompt.id {
            redoing = nil
            _ = try session.takes.discard(takeID: "\(redone.takeID)")
            replaced = " It replaces the take redone."
        }
        lastKept = (take.id, prompt.id)
        update(try session.takes.promptStates(phraseKey: prompt.phraseKey))
        let name = "take \(prompts[index].takes.count) of \(quoted(prompt.readText))"
        let coverage = try session.prompts.coverage()
        let kept =
            "Kept \(name)\(position.map { " as \(article($0)) \($0) take" } ?? ""): \(seconds(take.durationSeconds)) after trimming.\(replaced)"
            + (coverage.map { " Your texts: \($0.summary)\(Self.positions($0))." } ?? "")
        let number = index + 1
        if index + 1 < prompts.count { index += 1 }
        say("\(kept) \(describePrompt())")
        // Behind keep, as listening is: the line comes when the aligner is done. Nothing is said of alignment where
        // it is not done (a language with no aligner, or told not to align), as import says nothing of it.
        session.takes.aligning.align(take: take.id, name: name) { [output] state in
            guard state.status != .skipped, let message = state.message else { return }
            output(.line(message))
        }
        // Behind keep: the line comes when the recogniser is done, whatever is being done then. A voice it does not
        // hear is said once.
        if !session.takes.listener.hearsLanguage {
            if hasSaidSkipped { return }
            hasSaidSkipped = true
        }
        try session.takes.listen(to: take, name: name) { [output] hearing in
            guard let message = hearing.message else { return }
            let again =
                [.differs, .close].contains(hearing.status)
                ? " To record it again, go back to prompt \(number)." : ""
            output(.line(message + again))
        }
    }

    /// The prompts of one phrase as they are after a change.
    private func update(_ states: [StudioState.PromptState]) {
        for state in states {
            if let changed = prompts.firstIndex(where: { $0.id == state.id }) { prompts[changed] = state }
        }
    }

    /// On to the next prompt after this one that has no take, round to the first.
    private func skip() {
        let count = prompts.count
        for step in 1..<max(count, 1) where !prompts[(index + step) % count].isDone {
            let skipped = current
            move(to: (index + step) % count, saying: "Skipped \(quoted(skipped.readText)). ")
            return
        }
        say("Every other prompt has a take already.")
    }

    /// The last take kept here recorded again: its prompt, recording at once. The take it replaces stays in the pack
    /// until the new one is kept.
    private func redo() throws(StudioError) {
        guard let last = lastKept, let promptIndex = prompts.firstIndex(where: { $0.id == last.promptID }) else {
            say("No take has been kept here yet: there is nothing to redo.")
            return
        }
        move(to: promptIndex)
        redoing = last
        try record()
    }

    /// The next position for the take to keep, round from the prompt's own.
    private func choosePosition() {
        let choices: [TakePosition?] = [nil] + TakePosition.allCases.map { Optional($0) }
        let now = chosenPosition ?? current.position
        let next = choices[(choices.firstIndex(of: now)! + 1) % choices.count]
        chosenPosition = next
        say(
            "The take of \(quoted(current.text)) will be kept as \(next.map { "\(article($0)) \($0) take" } ?? "a take of no particular place")\(next == current.position ? ", as the prompt asks" : ""). \(keys.position) chooses another."
        )
    }

    /// `; 2 uses at places no take is for` after the coverage, when the texts have such places.
    private static func positions(_ coverage: StudioState.Coverage) -> String {
        coverage.missingPositionUses == 0
            ? ""
            : "; \(coverage.missingPositionUses) use\(coverage.missingPositionUses == 1 ? "" : "s") at places no take is for"
    }

    private func discard() throws(StudioError) {
        let prompt = current
        if let capture {
            self.capture = nil
            _ = capture.finish()
            say("Recording stopped and discarded.")
        } else if pending != nil {
            pending = nil
            say("Take discarded; nothing was kept. Press \(keys.record) to record again.")
        } else if let take = prompt.takes.last {
            let number = prompt.takes.count
            let (removed, _) = try session.takes.discard(takeID: "\(take.id)")
            update(try session.takes.promptStates(phraseKey: removed.phraseKey))
            let coverage = try session.prompts.coverage()
            say(
                "Removed take \(number) of \(quoted(prompt.readText)) from the pack."
                    + (coverage.map { " Your texts: \($0.summary)\(Self.positions($0))." } ?? ""))
        } else {
            say("\(quoted(prompt.text)) has no take to discard.")
        }
    }

    private func move(to newIndex: Int, saying prefix: String = "") {
        guard prompts.indices.contains(newIndex) else {
            say(newIndex < 0 ? "This is the first prompt." : "This is the last prompt.")
            return
        }
        let dropped = pending != nil
        pending = nil
        chosenPosition = nil
        redoing = nil
        index = newIndex
        say(prefix + (dropped ? "The take that was not kept is discarded. " : "") + describePrompt())
    }

    private func quit() {
        if let capture {
            self.capture = nil
            _ = capture.finish()
        }
        stopPlaying()
        let taken = prompts.count(where: \.isDone)
        say(
            (pending == nil ? "" : "The take that was not kept is discarded. ")
                + "\(taken) of \(prompts.count) prompts have a take in \(packPath).")
        pending = nil
        session.close()
    }

    // MARK: Saying it

    private var current: StudioState.PromptState { prompts[index] }

    /// `Prompt 2 of 5: “York.” (final: say it as the end of a sentence), no final take yet. Press R to record.`
    private func describePrompt() -> String {
        let prompt = current
        let place = prompt.position.map { " \($0)" } ?? ""
        let count = prompt.takes.count { prompt.position == nil || $0.position == prompt.position }
        let takes = count == 0 ? "no\(place) take yet" : count == 1 ? "1\(place) take" : "\(count)\(place) takes"
        var how = ""
        if let position = prompt.position, let howToSay = prompt.howToSay { how = " (\(position): \(howToSay))" }
        return
            "Prompt \(index + 1) of \(prompts.count): \(quoted(prompt.readText))\(how), \(takes). Press \(keys.record) to record."
    }

    private func say(_ line: String) { output(.line(line)) }

    private func stopPlaying() {
        player?.stop()
        player = nil
    }
}

private func quoted(_ text: String) -> String { "“\(text)”" }

/// `an` before `initial`, `a` before the others.
private func article(_ position: TakePosition) -> String { position == .initial ? "an" : "a" }

/// `1.23 s`.
private func seconds(_ value: Double) -> String { "\(StudioSite.seconds(value)) s" }

// MARK: - The threads

/// A take being recorded: a thread reads the capture device block by block until `finish`, drawing the meter as it
/// goes.
private final class Capture: Sendable {
    struct Recorded: Sendable {
        var samples: [Float] = []
        /// The quietest block of the lead-in, which is not kept: the room's noise.
        var leadFloor: Float?
        var error: PlaybackError?
        var overrunCount = 0
    }

    private let isStopping = Atomic<Bool>(false)
    private let recorded = Mutex(Recorded())
    private let finished = Completion()

    init(device: CaptureDevice, checks: TakeChecks, output: @escaping @Sendable (RecorderOutput) -> Void) {
        let box = DeviceBox(device)
        startThread { [self] in
            let result = record(box.device, checks: checks, output: output)
            recorded.withLock { $0 = result }
            finished.complete()
        }
    }

    /// The device, handed to the capture thread, which alone uses it from then on.
    private final class DeviceBox: @unchecked Sendable {
        let device: CaptureDevice
        init(_ device: CaptureDevice) { self.device = device }
    }

    /// Stops the recording and waits for what was recorded.
    func finish() -> Recorded {
        isStopping.store(true, ordering: .releasing)
        finished.wait()
        return recorded.withLock { $0 }
    }

    private func record(
        _ device: CaptureDevice, checks: TakeChecks, output: @Sendable (RecorderOutput) -> Void
    ) -> Recorded {
        defer { device.close() }
        var result = Recorded()
        let rate = device.sampleRate
        let leadFrames = Int(checks.leadSeconds * Double(rate))
        // The meter moves every ~85 ms with the peak and RMS since it last moved, as the page's does with each block.
        let meterFrames = TerminalRecorder.blockFrames * 4
        var meter = (frames: 0, peak: Float(0), squares: 0.0)
        var isClipping = false
        var block = [Float](repeating: 0, count: TerminalRecorder.blockFrames)
        result.samples.reserveCapacity(rate * 10)
        while !isStopping.load(ordering: .acquiring) {
            let count: Int
            do throws(PlaybackError) {
                count = try block.withUnsafeMutableBufferPointer { (buffer) throws(PlaybackError) in
                    try device.read(into: buffer)
                }
            } catch {
                result.error = error
                break
            }
            guard count > 0 else { break }
            var peak: Float = 0
            var squares = 0.0
            for sample in block[..<count] {
                peak = max(peak, abs(sample))
                squares += Double(sample * sample)
            }
            if result.samples.count + count <= leadFrames {
                let rms = Float((squares / Double(count)).squareRoot())
                if rms > 0 { result.leadFloor = min(result.leadFloor ?? rms, rms) }
            }
            result.samples += block[..<count]
            isClipping = isClipping || TakeChecks.level(peak) > checks.clippingDecibels
            meter = (meter.frames + count, max(meter.peak, peak), meter.squares + squares)
            if meter.frames >= meterFrames {
                let rms = Float((meter.squares / Double(meter.frames)).squareRoot())
                output(
                    .meter(
                        Self.meterLine(
                            seconds: Double(result.samples.count) / Double(rate), peak: meter.peak, rms: rms,
                            isClipping: isClipping, checks: checks)))
                meter = (0, 0, 0)
            }
            if result.samples.count >= TerminalRecorder.longestFrames {
                output(
                    .line(
                        "The take reached the longest the studio keeps, \(seconds(Double(result.samples.count) / Double(rate))): recording paused; stop it to keep what was recorded."
                    ))
                break
            }
        }
        result.overrunCount = device.overrunCount
        return result
    }

    /// `rec 1.25 s [##########        |     ] peak -12.0 dBFS, RMS -24.3 dBFS`: the bar is the RMS level and `|` the
    /// peak, from -60 dBFS at the left to 0 at the right.
    static func meterLine(seconds: Double, peak: Float, rms: Float, isClipping: Bool, checks: TakeChecks) -> String {
        let width = 30
        func column(_ amplitude: Float) -> Int {
            Int((max(0, min(1, (TakeChecks.level(amplitude) + 60) / 60)) * Double(width)).rounded(.down))
        }
        var bar = Array(repeating: Character(" "), count: width)
        for index in 0..<min(width, column(rms)) { bar[index] = "#" }
        bar[min(width - 1, column(peak))] = "|"
        return
            "rec \(StudioSite.seconds(seconds)) s [\(String(bar))] peak \(TakeChecks.decibels(TakeChecks.level(peak))), RMS \(TakeChecks.decibels(TakeChecks.level(rms)))"
            + (isClipping ? "  CLIPS" : "")
    }
}

/// A playback in progress: a thread writes the samples to the device a tenth of a second at a time, so that `stop`
/// ends it within one.
private final class Player: Sendable {
    private let isStopping = Atomic<Bool>(false)
    private let finished = Completion()

    init(device: SoundDevice, samples: [Float], output: @escaping @Sendable (RecorderOutput) -> Void) {
        let box = DeviceBox(device)
        startThread { [self] in
            let device = box.device
            do throws(PlaybackError) {
                try samples.withUnsafeBufferPointer { all throws(PlaybackError) in
                    let step = 2_205
                    for start in stride(from: 0, to: all.count, by: step) {
                        if isStopping.load(ordering: .acquiring) { break }
                        try device.write(UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + step)])) {
                            self.isStopping.load(ordering: .acquiring)
                        }
                    }
                }
                if isStopping.load(ordering: .acquiring) { device.drop() } else { try device.drain() }
            } catch {
                device.drop()
                output(.line("error: \(error)"))
            }
            finished.complete()
        }
    }

    /// The device, handed to the playing thread, which alone uses it from then on.
    private final class DeviceBox: @unchecked Sendable {
        let device: SoundDevice
        init(_ device: SoundDevice) { self.device = device }
    }

    /// Stops the playback and waits for the device to close.
    func stop() {
        isStopping.store(true, ordering: .releasing)
        finished.wait()
    }
}
