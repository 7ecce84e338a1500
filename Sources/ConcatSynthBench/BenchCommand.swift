// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import ConcatSynth
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat-synth-bench",
        abstract:
            "Measure concat-synth against the tools people use instead, and check the targets of issues 6, 11 and 23.",
        discussion: """
            Run it through tools/bench, which builds the release binaries first. It makes its own voice packs \
            (100, 10,000 and 100,000 clips; about 3 GB on disk for a few minutes) in a temporary folder and \
            removes them at the end. espeak-ng, flite and sox are the anchors of item 1, and \
            Debian's speech-dispatcher module sd_espeak-ng the anchor of item 6 (our module, driven over the module \
            protocol); a missing one is reported as n/a. Items 11 to 13 measure the default pack's fallback voice: \
            word error rates heard by pocketsphinx (tools/everyday-sentences.tsv), its joins, its first audio and \
            the Wyoming server's load. Item 16 renders weather and time announcements from a pack espeak-ng speaks \
            each word of three ways (tools/announcer-sentences.tsv): F0 jumps at joins and word error rates of `best` \
            takes, `rotate` and continuation takes alone. Item 17 renders the everyday sentences with a pack's English \
            voice (--pack, --fallback; as configured and in `voice` mode by default) beside espeak-ng and flite \
            speaking them whole, heard by Whisper tiny.en (tools/whisper-judge in tools/python-env's environment). \
            Item 22 measures how much the words a voice builds from units sound like its speaker against its espeak-ng \
            fallback's (F0, and a speaker encoder's d-vectors by tools/speaker-judge); item 23 times the import of \
            --import-prompts of its prompts, aligned and not. Item 18 measures the output's conversion to other \
            rates (passband, aliasing and imaging, SNR of a sine and of speech, speed) and a render's cost at each \
            rate. Item 19 soaks one serve process (HTTP and Wyoming) in mixed traffic and faults from 20 clients for \
            --soak-minutes (10 by default), and checks its answers, its log and its memory, descriptors and threads. \
            Item 20 measures the units fallback with --pack's English voice (its takes aligned): first audio, a long \
            render's speed and a render's peak memory against the fallback voice's. \
            Item 21 speaks the everyday sentences' words that units build from the English voice of --pack (the \
            default pack by default) as recorded and shaped: F0 jumps at joins, F0 at a word's end, and the pitch \
            shifter against libsonic's. \
            --smoke runs every item in a few seconds with tiny packs, for the test suite.
            """)

    @Flag(help: "Run every item once, with tiny packs and short texts, in a few seconds (the test suite's check).")
    var smoke = false

    @Option(
        help: "Runs of each whole-process measurement (items 1 and 5 use it; in-process items use ten times as many).")
    var runs: Int = 20

    @Option(help: ArgumentHelp("The VoiceOver requests to time.", valueName: "dir"))
    var fixtures: String = Locations.voiceOverFixtures

    @Option(help: ArgumentHelp("Where to make the temporary work folder.", valueName: "dir"))
    var workDirectory: String = "/tmp"

    @Flag(help: "Keep the work folder (packs, texts, sources) instead of removing it.")
    var keep = false

    @Option(
        help: ArgumentHelp(
            "Keep the packs in this folder and use the ones already there (made by the same version of the benchmark).",
            valueName: "dir"))
    var packFolder: String?

    @Option(
        help: ArgumentHelp(
            "The pack whose English voice items 17, 20, 22 and 23 speak with; the default pack by default.",
            valueName: "path"))
    var pack: String?

    @Option(
        help: ArgumentHelp(
            "Item 17: render the voice in this fallback mode (\(FallbackMode.allCases.map(\.rawValue).joined(separator: ", "))), from a copy of the pack; repeat it for a column a mode. By default the pack as configured and, unless that is `voice`, a copy in `voice` mode.",
            valueName: "mode"))
    var fallback: [String] = []

    @Option(
        help: ArgumentHelp(
            "How many of the English voice's prompts item 23 imports (a few with --smoke).", valueName: "n"))
    var importPrompts = 120

    @Option(
        help: ArgumentHelp(
            "How long item 18's soak runs its traffic (a few seconds with --smoke).", valueName: "minutes"))
    var soakMinutes = 10.0

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Run only these items (\(Self.items.map(String.init).joined(separator: ", "))); all of them by default.",
            valueName: "item"))
    var only: [Int] = []

    /// The items, in the order they run.
    static let items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]

    /// `--espeak-first-audio FILE RUNS VOICE RATE PITCH RANGE TEXT` times espeak-ng's own first audio for item 12
    /// (`EspeakFirstAudio`).
    /// `--peak-rss-of FILE PROGRAM ARGUMENTS…` runs PROGRAM and writes its exit status and peak RSS in bytes to FILE:
    /// a child inherits the high-water mark of the process that spawns it (Linux keeps it across the spawn and
    /// exec), so item 5 measures from this small fresh process rather than from the benchmark with its packs.
    /// `--hear WORDS FILE [WORDS FILE …]` prints what item 17's judge hears in each file and its word errors
    /// (`WhisperJudge.helper`).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == WhisperJudge.helperFlag {
            do {
                try WhisperJudge.helper(Array(arguments.dropFirst()))
            } catch {
                exit(withError: error)
            }
            return
        }
        if arguments.first == EspeakFirstAudio.helperFlag, arguments.count == 8, let runs = Int(arguments[2]),
            let rate = Int32(arguments[4]), let pitch = Int32(arguments[5]), let range = Int32(arguments[6])
        {
            do {
                try EspeakFirstAudio.helper(
                    file: arguments[1], runs: runs, voice: arguments[3], wordsPerMinute: rate, pitch: pitch,
                    pitchRange: range, text: arguments[7])
            } catch {
                exit(withError: error)
            }
            return
        }
        guard arguments.first == PeakRSS.helperFlag, arguments.count >= 3 else {
            main(nil)
            return
        }
        do {
            let run = try spawnAndWait(arguments[2], Array(arguments[3...]), showingErrors: true)
            try writeText("\(run.status) \(run.peakResidentBytes)\n", to: arguments[1])
        } catch {
            exit(withError: error)
        }
    }

    func validate() throws {
        if runs < 1 { throw ValidationError("--runs must be at least 1.") }
        if importPrompts < 1 { throw ValidationError("--import-prompts \(importPrompts): expected at least 1.") }
        if !(soakMinutes > 0) { throw ValidationError("--soak-minutes \(soakMinutes): expected more than 0 minutes.") }
        if let item = only.first(where: { !Self.items.contains($0) }) {
            throw ValidationError(
                "--only \(item): the items are \(Self.items.map(String.init).joined(separator: ", ")).")
        }
        if let mode = fallback.first(where: { FallbackMode(rawValue: $0) == nil }) {
            throw ValidationError(
                "--fallback \(mode): the modes are \(FallbackMode.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func run() throws {
        let processRuns = smoke ? 1 : runs
        let inProcessRuns = smoke ? 3 : runs * 10
        let work = try WorkDirectory(base: workDirectory)
        defer { if keep { print("\nwork folder kept: \(work.path)") } else { work.remove() } }

        print("## concat-synth-bench\(smoke ? " --smoke" : "")\n")
        print("Machine: \(machineDescription()). Binaries: \(Locations.binaries).")
        let requests = try Request.all(fixtures: fixtures)
        let factory = try PackFactory(requests: requests)
        let coreCount = factory.core.count
        let sizes = smoke ? [coreCount + 5, coreCount + 30, coreCount + 100] : [100, 10_000, 100_000]
        precondition(coreCount < sizes[0], "the requests need \(coreCount) clips, more than the smallest pack holds")
        var packs: [BenchPack] = []
        for size in sizes {
            let path = "\(packFolder ?? work.path)/pack-v\(PackFactory.version)-\(size).sqlite"
            if packFolder != nil && (fileSize(path) ?? 0) > 0 {
                print(
                    "Pack of \(size.formatted) clips: \(decimal(Double(fileSize(path) ?? 0) / 1_048_576, places: 0)) MB, kept from an earlier run."
                )
            } else {
                let elapsed = try seconds { try factory.makePack(clipCount: size, at: path) }
                print(
                    "Pack of \(size.formatted) clips: \(decimal(Double(fileSize(path) ?? 0) / 1_048_576, places: 0)) MB, made in \(decimal(elapsed, places: 1)) s."
                )
            }
            packs.append(BenchPack(clipCount: size, path: path))
        }
        print(
            """
            Each pack holds the \(coreCount) clips the requests speak (imported from the default pack's sources) and \
            filler clips of \(decimal(PackFactory.fillerSeconds, places: 1)) s of real speech under made-up phrases of 1-4 words.
            """)

        var results: [TargetResult] = []
        let items = Set(only.isEmpty ? Self.items : only)
        if items.contains(1) {
            results += try LatencyBench(requests: requests, runs: processRuns, work: work, largePack: packs.last!).run()
        }
        if items.contains(2) {
            results += try InProcessBench(requests: requests, packs: packs, runs: inProcessRuns).run()
        }

        let largest = packs.last!
        let long = try longText(
            speakingFor: smoke ? 10 : 600, with: Synthesizer(bank: largest.path))
        let longFile = work.file("long.txt")
        try writeText(long.text, to: longFile)
        if items.contains(3) {
            results += try LongRenderBench(
                pack: largest, text: long.text, audioSeconds: long.seconds, runs: smoke ? 1 : 5
            ).run()
        }
        if items.contains(4) {
            results += try ImportBench(clipCount: smoke ? 5 : 500, runs: smoke ? 1 : 3, work: work).run()
        }

        let sentenceFile = work.file("sentence.txt")
        try writeText(Request.sentence.text, to: sentenceFile)
        if items.contains(5) {
            results += try MemoryBench(
                packs: [packs.first!, largest],
                requests: [
                    (Request.sentence.name, sentenceFile),
                    ("long text (\(decimal(long.seconds / 60, places: 1)) min)", longFile),
                ], runs: smoke ? 1 : 3, work: work
            ).run()
        }

        if items.contains(6) {
            results += try ModuleBench(requests: requests, runs: processRuns, work: work).run()
        }

        if items.contains(7) {
            results += try RateBench(
                pack: largest, text: long.text, audioSeconds: long.seconds, requests: requests, runs: smoke ? 1 : 3,
                inProcessRuns: inProcessRuns
            ).run()
        }
        if items.contains(8) {
            let ssmlFile = work.file("long.ssml")
            let textFile = work.file("long-text.txt")
            try writeText(LongInputMemoryBench.ssml(bytes: smoke ? 100_000 : 10_000_000), to: ssmlFile)
            try writeText(LongInputMemoryBench.text(bytes: smoke ? 1_000_000 : 100_000_000), to: textFile)
            results += try LongInputMemoryBench(ssmlFile: ssmlFile, textFile: textFile, work: work).run()
        }

        if items.contains(9) {
            results += try WyomingBench(
                pack: largest, text: Request.sentence.text, requestCount: smoke ? 10 : 500, work: work
            ).run()
        }

        if items.contains(10) {
            results += try HTTPBench(
                pack: largest, text: Request.sentence.text, requestCount: smoke ? 10 : 500, work: work
            ).run()
        }

        if items.contains(11) {
            let sentences = try EverydaySentence.all()
            results += try FallbackQualityBench(
                sentences: smoke ? Array(sentences.prefix(2)) : sentences, work: work
            ).run()
        }

        if items.contains(12) {
            results += try FallbackFirstAudioBench(runs: inProcessRuns, work: work).run()
        }

        if items.contains(13) {
            results += try WyomingFallbackBench(requestCount: smoke ? 10 : 500, work: work).run()
        }

        if items.contains(14) {
            let size = sizes.last!
            let path = "\(packFolder ?? work.path)/pack-v\(PackFactory.version)-\(size)-takes.sqlite"
            if packFolder == nil || (fileSize(path) ?? 0) == 0 {
                try factory.makePack(clipCount: size, at: path, takesPerPhrase: TakesBench.takesPerPhrase)
            }
            results += try TakesBench(
                pack: BenchPack(clipCount: size, path: path), requests: requests, runs: inProcessRuns,
                longRenderRuns: smoke ? 1 : 3, longSeconds: smoke ? 10 : 300
            ).run()
        }

        if items.contains(15) {
            results += try StudioBench(runs: smoke ? 2 : 20, texts: requests, work: work).run()
        }

        if items.contains(16) {
            let sentences = try EverydaySentence.all(from: TakesQualityBench.sentenceFile)
            results += try TakesQualityBench(sentences: smoke ? Array(sentences.prefix(2)) : sentences, work: work)
                .run()
        }

        if items.contains(17) {
            let sentences = try EverydaySentence.all()
            results += try EverydayJudgeBench(
                sentences: smoke ? Array(sentences.prefix(2)) : sentences, pack: pack, modes: fallback, work: work
            ).run()
        }

        if items.contains(18) {
            results += try OutputRateBench(
                pack: largest, text: Request.sentence.text, runs: inProcessRuns, speechSeconds: smoke ? 2 : 30
            ).run()
        }

        if items.contains(19) {
            let soakPack = work.file("soak.sqlite")
            _ = try runChecked("/bin/cp", [Locations.screenReaderPack, soakPack])
            results += try SoakBench(
                pack: soakPack, clients: 20,
                seconds: smoke ? 6 : Int(soakMinutes * 60), sampleSeconds: smoke ? 1 : 10, work: work
            ).run()
        }

        if items.contains(20) {
            results += try UnitsBench(
                runs: inProcessRuns, pack: pack ?? Locations.defaultPack, voice: "org.concatsynth.en", work: work
            ).run()
        }

        if items.contains(21) {
            results += try UnitsProsodyBench(pack: pack ?? Locations.defaultPack, smoke: smoke, work: work).run()
        }

        if items.contains(22) {
            let sentences =
                try EverydaySentence.all() + EverydaySentence.all(from: TakesQualityBench.sentenceFile)
            results += try VoiceSamenessBench(
                sentences: smoke ? Array(sentences.prefix(2)) : sentences, pack: pack, clipStride: smoke ? 50 : 1,
                work: work
            ).run()
        }

        if items.contains(23) {
            results += try AlignedImportBench(
                promptCount: smoke ? 3 : importPrompts, pack: pack, runs: 1, work: work
            ).run()
        }

        var targets = Table(
            "Targets (issues 6, 10, 11, 14, 21, 22, 23, 25, 34, 35 and 36)", columns: ["target", "measured", "verdict"])
        targets.printHeader()
        for result in results { targets.add([result.target, result.measured, result.verdict]) }
    }
}

/// The CPU model and how many cores this process may use, from /proc.
func machineDescription() -> String {
    let model =
        (try? readText("/proc/cpuinfo"))?.split(separator: "\n")
        .first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingPrefix(" ") ?? "unknown CPU"
    return "\(model), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores"
}
