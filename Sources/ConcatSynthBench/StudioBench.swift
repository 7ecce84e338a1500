// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 15: `voicebank studio`. From the end of a 3 s take to its clip in the pack, two ways: the take sent
/// whole at its end (`POST /api/takes`, as scripts send it), timed by curl from the request's start to the answer's
/// end, which comes once the take is imported (converted, trimmed, its loudness and F0 measured, committed) and, with
/// texts, their coverage worked out again; and the take sent in pieces while it is recorded, as the page sends it
/// (paced in real time, converted by the studio as they come), timed from its last piece to the keep's answer. For a
/// voice whose fallback is a clip and for the default voice, whose fallback voice is espeak-ng. Beside them,
/// libsamplerate's own time converting the take; and the page's first load in bytes.
struct StudioBench {
    var runs: Int
    /// The texts whose coverage the studio works out again after each take.
    var texts: [Request]
    var work: WorkDirectory
    static let takeSeconds = 3.0
    static let sampleRate = 48_000
    static let voice = "org.concatsynth.en"
    /// How often the page sends a piece while it records, and the end it holds back for the stop to cut (its
    /// `pieceSeconds` and the studio's `TakeChecks.tailSeconds`).
    static let pieceSeconds = 0.1
    static let tailSeconds = 0.15

    /// A studio to measure: its voice's fallback, and whether it works out the coverage of the texts again.
    struct Setup {
        var label: String
        var isFallbackClip: Bool
        var hasTexts: Bool
    }

    static let setups = [
        Setup(label: "voice with a fallback clip, no texts", isFallbackClip: true, hasTexts: false),
        Setup(label: "the same, coverage of the requests worked out again", isFallbackClip: true, hasTexts: true),
        Setup(
            label: "the default voice as shipped (fallback: espeak-ng), with the coverage", isFallbackClip: false,
            hasTexts: true),
    ]

    func run() throws -> [TargetResult] {
        var textFiles: [String] = []
        for (index, request) in texts.enumerated() {
            let file = request.file ?? work.file("studio-text-\(index).txt")
            if request.file == nil { try writeText(request.text, to: file) }
            textFiles.append(file)
        }
        var table = Table(
            "15. The studio: from the end of a \(decimal(Self.takeSeconds, places: 0)) s take (\(Self.sampleRate) Hz Float32, \(Self.take(number: 0).count.formatted) bytes) to its answer, the clip in a copy of the default pack (\(Self.voice)), median (min–max) of \(runs) takes after one",
            columns: [
                "studio", "sent whole: POST /api/takes to its answer (ms, curl)",
                "of which the studio's work (ms, its log)",
                "sent in pieces as recorded: last piece, loudness check and keep (ms, curl)",
            ])
        table.printHeader()
        var fastest: Samples?
        var page: [(String, Int)] = []
        for setup in Self.setups {
            let (roundTrips, jobs, pieces, sizes) = try measure(setup, textFiles: textFiles)
            table.add([
                setup.label, Unit.milliseconds.summary(roundTrips), Unit.milliseconds.summary(jobs),
                Unit.milliseconds.summary(pieces),
            ])
            if fastest == nil { fastest = pieces }
            page = sizes
        }
        let conversions = Samples(try (0..<max(3, runs)).map { _ in try Self.convert(Self.take(number: 0)) })
        table.add([
            "anchor: libsamplerate best sinc converting the take to 22050 Hz, one core",
            Unit.milliseconds.summary(conversions),
            "", "",
        ])

        let firstLoad = page.dropLast().reduce(0) { $0 + $1.1 }
        var pageTable = Table("15b. The studio's page, as served (bytes)", columns: ["file", "bytes"])
        pageTable.printHeader()
        for (file, size) in page.dropLast() { pageTable.add([file, size.formatted]) }
        pageTable.add(["first load", firstLoad.formatted])
        if let recorder = page.last {
            pageTable.add(["recorder.js, loaded at the first recording", recorder.1.formatted])
        }

        let median = fastest.flatMap { $0.isEmpty ? nil : $0.median }
        return [
            TargetResult(
                target: "studio: a 3 s take from its end to its trimmed, measured clip in the pack ≤ 100 ms",
                measured: median.map { "\(Unit.milliseconds.format($0)) ms (sent in pieces)" } ?? "n/a",
                isMet: median.map { $0 <= 0.1 }),
            TargetResult(
                target: "studio: the page's first load ≤ 200 KB",
                measured: "\(decimal(Double(firstLoad) / 1_024, places: 1)) KB", isMet: firstLoad <= 200 * 1_024),
        ]
    }

    /// Starts a studio on a new copy of the default pack, keeps `runs` takes and one more sent whole, then as many
    /// sent in pieces, and loads its page.
    ///
    /// - Returns: the round trips and the studio's own times of the takes sent whole, the times from the end of a take
    ///   sent in pieces to its keep's answer, each less the first take's, which warms the studio up (its libraries'
    ///   first calls, the pack's pages read); and the page's files with their sizes, recorder.js last.
    private func measure(_ setup: Setup, textFiles: [String]) throws -> (Samples, Samples, Samples, [(String, Int)]) {
        let pack = work.file("studio.sqlite")
        let bytes: [UInt8]
        do { bytes = try readFile(atPath: Locations.screenReaderPack) } catch {
            throw BenchError(description: "cannot read \(Locations.screenReaderPack): \(error.reason)")
        }
        try write(bytes, to: pack)
        defer { for suffix in ["", "-wal", "-shm"] { unlink(pack + suffix) } }
        let voicebank = Locations.binaries + "/voicebank"
        if setup.isFallbackClip {
            try runChecked(voicebank, ["configure", "--bank", pack, "--voice", Self.voice, "--fallback", "clip"])
        }
        let prompts = work.file("studio-prompts.txt")
        try writeText((0...(2 * runs + 1)).map { "studio bench take \($0)\n" }.joined(), to: prompts)
        let urlFile = work.file("studio-url.txt")
        let log = work.file("studio.log")
        let pid = try spawnBackground(
            voicebank,
            ["studio", "--bank", pack, "--voice", Self.voice, "--prompts", prompts]
                + (setup.hasTexts ? textFiles.flatMap { ["--texts", $0] } : []), standardOutput: urlFile,
            standardError: log)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var url: String?
        for _ in 0..<200 where url == nil {
            usleep(50_000)
            url = (try? readText(urlFile))?.split(separator: "\n").first { $0.hasPrefix("http://") }.map(String.init)
        }
        guard let url, let tokenRange = url.firstRange(of: "/?token=") else {
            throw BenchError(description: "voicebank studio did not start: \((try? readText(log)) ?? "")")
        }
        let base = String(url[..<tokenRange.lowerBound])
        let token = String(url[tokenRange.upperBound...])
        let curl = which("curl") ?? "/usr/bin/curl"

        var roundTrips = Samples()
        for run in 0...runs {
            let take = work.file("studio-take.raw")
            try write(Self.take(number: run), to: take)
            let answer = try capture(
                work: work, curl,
                [
                    "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", "X-Studio-Token: \(token)",
                    "-H", "Content-Type: application/octet-stream", "-H", "X-Sample-Rate: \(Self.sampleRate)",
                    "-H", "X-Sample-Format: f32le", "--data-binary", "@\(take)",
                    "\(base)/api/takes?prompt=\(run + 1)",
                ])
            let fields = answer.split(separator: " ")
            guard fields.count == 2, fields[0] == "201", let seconds = Double(fields[1]) else {
                throw BenchError(description: "the studio did not keep take \(run): \(answer); \(log)")
            }
            if run > 0 { roundTrips.append(seconds) }
        }
        // The studio's own time for each take, from its log: "kept take #181 of prompt 2 "…": … in 87 ms".
        var jobs: [Double] = []
        for line in try readText(log).split(separator: "\n") where line.contains(" kept take #") {
            if let milliseconds = line.split(separator: " ").dropLast().last.flatMap({ Double($0) }) {
                jobs.append(milliseconds / 1_000)
            }
        }

        var pieces = Samples()
        for run in 0...runs {
            let seconds = try keepInPieces(
                number: runs + 1 + run, prompt: runs + 2 + run, base: base, token: token, curl: curl)
            if run > 0 { pieces.append(seconds) }
        }

        let cookies = work.file("studio-cookies.txt")
        var sizes: [(String, Int)] = []
        // studio.js imports the modules, one concern each (Sources/Studio/Page/modules).
        let modules = [
            "state", "words", "announce", "api", "pages", "prompts", "takes", "microphone", "recording", "texts",
            "keyboard",
        ].map { ("modules/\($0).js", "/modules/\($0).js") }
        for (file, path) in [
            ("index.html", "/?token=\(token)"), ("studio.js", "/studio.js"), ("studio.css", "/studio.css"),
        ] + modules
            + [("recorder.js", "/recorder.js")]
        {
            let answer = try capture(
                work: work, curl,
                ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-c", cookies, "-b", cookies]
                    + ["\(base)\(path)"])
            let fields = answer.split(separator: " ")
            guard fields.count == 2, fields[0] == "200", let size = Int(fields[1]) else {
                throw BenchError(description: "the studio did not serve \(file): \(answer)")
            }
            sizes.append((file, size))
        }
        return (roundTrips, Samples(Array(jobs.prefix(runs + 1).dropFirst())), pieces, sizes)
    }

    /// Sends take `number` as the page does while it records: a recording started, then every `pieceSeconds` a piece
    /// of the frames recorded by then less the `tailSeconds` a stop cuts off, paced in real time; at the take's end
    /// its last piece, the loudness check and the keep, one after the other in one curl run, as the page sends them
    /// when Enter follows the stop at once.
    ///
    /// - Returns: the seconds of those three requests, the sum of curl's times for each.
    private func keepInPieces(number: Int, prompt: Int, base: String, token: String, curl: String) throws -> Double {
        let take = Self.take(number: number)
        let headers = [
            "-H", "X-Studio-Token: \(token)", "-H", "Content-Type: application/octet-stream", "-H",
            "X-Sample-Rate: \(Self.sampleRate)", "-H", "X-Sample-Format: f32le",
        ]
        let started = try capture(
            work: work, curl, ["-sS", "-w", "\n%{http_code}", "-X", "POST"] + headers + ["\(base)/api/recordings"])
        guard started.hasSuffix("\n201"), let range = started.firstRange(of: "\"id\":"),
            let id = Int(started[range.upperBound...].prefix { $0.isNumber })
        else {
            throw BenchError(description: "the studio did not start a recording: \(started)")
        }
        let start = now()
        let frameCount = take.count / 4
        let pieceFrames = Int(Self.pieceSeconds * Double(Self.sampleRate))
        let tailFrames = Int(Self.tailSeconds * Double(Self.sampleRate))
        let piece = work.file("studio-piece.raw")
        var sent = 0
        for index in 1..<(frameCount / pieceFrames) {
            let wait = start + Double(index) * Self.pieceSeconds - now()
            if wait > 0 { usleep(useconds_t(wait * 1e6)) }
            let end = index * pieceFrames - tailFrames
            // The page sends nothing before it has more than the end a stop may cut off.
            guard end > sent else { continue }
            try write(Array(take[(sent * 4)..<(end * 4)]), to: piece)
            let answer = try capture(
                work: work, curl,
                ["-sS", "-o", "/dev/null", "-w", "%{http_code}"] + headers
                    + ["--data-binary", "@\(piece)", "\(base)/api/recordings/\(id)?frame=\(sent)"])
            guard answer == "200" else {
                throw BenchError(description: "the studio did not take a piece of recording \(id): \(answer)")
            }
            sent = end
        }
        let wait = start + Self.takeSeconds - now()
        if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        try write(Array(take[(sent * 4)...]), to: piece)
        let format = ["-o", "/dev/null", "-w", "%{http_code} %{time_total}\n"]
        let answer = try capture(
            work: work, curl,
            ["-sS"] + format + headers
                + ["--data-binary", "@\(piece)", "\(base)/api/recordings/\(id)/end?frame=\(sent)", "--next"]
                + format + headers + ["-X", "POST", "\(base)/api/takes/check?recording=\(id)", "--next"] + format
                + headers + ["-X", "POST", "\(base)/api/takes?prompt=\(prompt)&recording=\(id)"])
        let transfers = answer.split(separator: "\n").map { $0.split(separator: " ") }
        guard transfers.map({ $0.first ?? "" }) == ["200", "200", "201"] else {
            throw BenchError(description: "the studio did not keep recording \(id): \(answer)")
        }
        return transfers.compactMap { $0.last.flatMap { Double($0) } }.reduce(0, +)
    }

    /// Seconds libsamplerate's `src_simple` takes to convert a take's samples to 22050 Hz with the import's converter.
    static func convert(_ bytes: [UInt8]) throws -> Double {
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let ratio = Double(RenderFormat.sampleRate) / Double(sampleRate)
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: Int(Double(samples.count) * ratio) + 64)
        defer { output.deallocate() }
        let start = now()
        try convertWithLibsamplerate(samples, ratio: ratio, into: output)
        return now() - start
    }

    /// A take as the page sends it: raw Float32 little-endian samples, a quarter second of silence, 2.5 s of a voiced
    /// sound (harmonics of a pitch that differs for every take, so that none is the same audio as another, in
    /// syllables of a quarter second), and silence again.
    static func take(number: Int) -> [UInt8] {
        let frameCount = Int(takeSeconds * Double(sampleRate))
        let edge = sampleRate / 4
        let pitch = 110.0 + Double(number)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frameCount * 4)
        for frame in 0..<frameCount {
            var sample = 0.0
            if frame >= edge && frame < frameCount - edge {
                let time = Double(frame) / Double(sampleRate)
                let syllable = 0.5 - 0.5 * cos(2 * .pi * 4 * time)
                for harmonic in 1...6 { sample += sin(2 * .pi * pitch * Double(harmonic) * time) / Double(harmonic) }
                sample *= 0.2 * syllable
            }
            withUnsafeBytes(of: Float(sample).bitPattern.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        do { try bytes.withUnsafeBytes { try writeFileWhole(atPath: path, $0) } } catch {
            throw BenchError(description: "cannot write \(path): \(error)")
        }
    }
}
