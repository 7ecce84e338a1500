// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechService

/// A speech-dispatcher output module driven over its protocol the way the server drives it: started with its
/// configuration file, INIT, server audio, then SET and SPEAK for each message, reading every reply and event.
final class ModuleDriver {
    let name: String
    private let pid: pid_t
    private let input: Int32
    private let reader: ModuleOutputReader
    private let outputDescriptor: Int32

    /// Starts `executable configuration` with pipes for its standard input and output (standard error to /dev/null)
    /// and initialises it.
    init(name: String, executable: String, configuration: String) throws {
        self.name = name
        var toModule: [Int32] = [0, 0]
        var fromModule: [Int32] = [0, 0]
        guard pipe(&toModule) == 0, pipe(&fromModule) == 0 else {
            throw BenchError(description: "cannot make pipes for \(executable): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toModule[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromModule[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for descriptor in toModule + fromModule { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let strings: [String] = [executable, configuration]
        let argv = strings.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(toModule[0])
        close(fromModule[1])
        guard status == 0 else {
            close(toModule[1])
            close(fromModule[0])
            throw BenchError(description: "cannot run \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        input = toModule[1]
        outputDescriptor = fromModule[0]
        reader = ModuleOutputReader(descriptor: fromModule[0])
        try exchange("INIT\n", expecting: 299)
        try exchange("AUDIO\n", expecting: 207)
        try exchange("audio_output_method=server\n.\n", expecting: 203)
        try exchange("LOGLEVEL\n", expecting: 207)
        try exchange("log_level=1\n.\n", expecting: 203)
    }

    deinit {
        send("QUIT\n")
        close(input)
        close(outputDescriptor)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private func send(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(input, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Sends `text` and reads the reply; fails unless its code is `code`.
    private func exchange(_ text: String, expecting code: Int) throws {
        send(text)
        guard let reply = reader.next() else { throw BenchError(description: "\(name): the module's output ended") }
        guard reply.code == code else {
            throw BenchError(description: "\(name): expected \(code), got \(reply) after \(text.prefix(40))")
        }
    }

    /// One message: SET, SPEAK, the message, then every event to its end. Returns the seconds from sending the
    /// message's lines (what the server does after `202`) to the first complete `705` block and to `702 END`.
    func speak(_ ssml: String, language: String) throws -> (firstAudio: Double, end: Double) {
        try exchange("SET\n", expecting: 203)
        try exchange(
            "rate=0\npitch=0\npitch_range=0\nvolume=100\npunctuation_mode=none\nspelling_mode=off\n"
                + "cap_let_recogn=none\nvoice=male1\nlanguage=\(language)\nsynthesis_voice=NULL\n.\n", expecting: 203)
        try exchange("SPEAK\n", expecting: 202)
        let start = now()
        try exchange(DotStuffing.stuff(ssml), expecting: 200)
        var firstAudio: Double?
        while let message = reader.next() {
            if message.code == 705 && firstAudio == nil { firstAudio = now() - start }
            if message.code == 702 {
                let end = now() - start
                guard let firstAudio else { throw BenchError(description: "\(name): no audio for \(ssml.prefix(60))") }
                return (firstAudio, end)
            }
            if message.code == 703 || message.code == 704 || !message.isEvent {
                throw BenchError(description: "\(name): unexpected \(message) while speaking \(ssml.prefix(60))")
            }
        }
        throw BenchError(description: "\(name): the module's output ended while speaking")
    }
}

/// Item 6: our speech-dispatcher module against Debian's espeak-ng module, through the same harness.
///
/// Measured twice: messages repeated in one running module (the target's method; a screen reader repeats its
/// phrases, and both modules keep what they like between messages: ours keeps stretched clips), and each run
/// the first message of a module just started, where nothing is kept from earlier messages.
struct ModuleBench {
    var requests: [Request]
    var runs: Int
    var work: WorkDirectory

    static let espeakModule = "/usr/lib/speech-dispatcher-modules/sd_espeak-ng"
    static let espeakConfiguration = "/etc/speech-dispatcher/modules/espeak-ng.conf"
    /// The request the module's target was first measured with, by hand.
    static let greeting = Request(name: "hello, nice to meet you", text: "hello, nice to meet you", file: nil)

    /// Timings of one request by one module.
    private typealias Timings = (first: Samples, end: Samples)

    func run() throws -> [TargetResult] {
        let configuration = work.file("concat-synth.conf")
        try writeText("VoicePack \"\(Locations.screenReaderPack)\"\n", to: configuration)
        let isEspeakInstalled = access(Self.espeakModule, X_OK) == 0
        if !isEspeakInstalled {
            print(
                "\nnote: \(Self.espeakModule) is not installed; its columns read n/a (apt-get install speech-dispatcher-espeak-ng)"
            )
        }
        let startOurs = {
            try ModuleDriver(
                name: "sd_concat-synth", executable: "\(Locations.binaries)/sd_concat-synth",
                configuration: configuration)
        }
        let startEspeak = {
            try ModuleDriver(
                name: "sd_espeak-ng", executable: Self.espeakModule, configuration: Self.espeakConfiguration)
        }
        let starts = [startOurs] + (isEspeakInstalled ? [startEspeak] : [])

        let ours = try startOurs()
        let espeak = isEspeakInstalled ? try startEspeak() : nil
        let repeated = try table(
            "6. speech-dispatcher module: SPEAK → first 705 block and → 702 END, the message repeated in one module "
                + "(ms, median (min–max) of \(runs) runs after one more)"
        ) { ssml, language in
            var timings: [Timings] = []
            for driver in [ours, espeak].compactMap({ $0 }) {
                _ = try driver.speak(ssml, language: language)  // warm-up: caches, first-use allocations
                var timing: Timings = (Samples(), Samples())
                for _ in 0..<runs {
                    let measured = try driver.speak(ssml, language: language)
                    timing.first.append(measured.firstAudio)
                    timing.end.append(measured.end)
                }
                timings.append(timing)
            }
            return timings
        }
        let fresh = try table(
            "6b. The same, each run the first message of a module just started (nothing kept from earlier messages)"
        ) { ssml, language in
            try starts.map { start in
                var timing: Timings = (Samples(), Samples())
                for _ in 0..<runs {
                    let measured = try start().speak(ssml, language: language)
                    timing.first.append(measured.firstAudio)
                    timing.end.append(measured.end)
                }
                return timing
            }
        }
        return [
            TargetResult(
                target: "module: first 705 block ≤ 0.5x sd_espeak-ng's (worst request)",
                measured: formatRatio(repeated.worstFirst), isMet: repeated.worstFirst.map { $0 <= 0.5 }),
            TargetResult(
                target: "module: 702 END ≤ 0.2x sd_espeak-ng's (worst request)",
                measured: formatRatio(repeated.worstEnd),
                isMet: repeated.worstEnd.map { $0 <= 0.2 }),
            TargetResult(
                target: "module, first message after start: first 705 block ≤ 0.5x sd_espeak-ng's (worst request)",
                measured: formatRatio(fresh.worstFirst), isMet: fresh.worstFirst.map { $0 <= 0.5 }),
            TargetResult(
                target: "module, first message after start: 702 END ≤ 0.2x sd_espeak-ng's (worst request)",
                measured: formatRatio(fresh.worstEnd), isMet: fresh.worstEnd.map { $0 <= 0.2 }),
        ]
    }

    /// Prints one table, a row per request from `measure` (our timings, then espeak-ng's when installed); returns
    /// the worst ratios.
    private func table(
        _ title: String, measure: (_ ssml: String, _ language: String) throws -> [Timings]
    ) throws -> (worstFirst: Double?, worstEnd: Double?) {
        var table = Table(
            title,
            columns: [
                "request", "first audio, sd_concat-synth", "first audio, sd_espeak-ng", "÷ (≤ 0.5)",
                "end, sd_concat-synth", "end, sd_espeak-ng", "÷ (≤ 0.2)",
            ])
        table.printHeader()
        var worstFirst: Double?
        var worstEnd: Double?
        for request in [Self.greeting] + requests {
            // speech-dispatcher hands every message to a module as SSML; plain text arrives wrapped in <speak>.
            let ssml = request.isSSML ? request.text : "<speak>\(request.text)</speak>"
            let timings = try measure(ssml, request.isJapanese ? "ja" : "en-us")
            let ours = timings.first
            let espeak = timings.count > 1 ? timings[1] : nil
            let firstRatio = ratio(ours?.first, espeak?.first)
            let endRatio = ratio(ours?.end, espeak?.end)
            if let firstRatio { worstFirst = max(worstFirst ?? 0, firstRatio) }
            if let endRatio { worstEnd = max(worstEnd ?? 0, endRatio) }
            table.add([
                request.name, Unit.milliseconds.summary(ours?.first), Unit.milliseconds.summary(espeak?.first),
                formatRatio(firstRatio), Unit.milliseconds.summary(ours?.end), Unit.milliseconds.summary(espeak?.end),
                formatRatio(endRatio),
            ])
        }
        return (worstFirst, worstEnd)
    }
}
