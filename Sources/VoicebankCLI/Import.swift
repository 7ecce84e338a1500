// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import SpeechCore
import Voicebank
import VoicebankAuthoring

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Converter: ExpressibleByArgument {}
extension TakePosition: ExpressibleByArgument {}

extension VoicebankCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import audio files as clips of a voice, all in one transaction.",
            discussion: """
                Any file libsndfile reads (AIFF, AIFF-C, WAV, FLAC, Ogg, CAF, …), any sample rate and channel \
                count. Each clip keeps its original samples and gets a render-ready copy: mono, 22050 Hz, Float32. \
                The phrase is --text, else the file name without extension, with _ and - read as spaces \
                (double_tap_to_open.aiff → "double tap to open"), or its line in --transcript. A folder imports \
                its audio files, every level down, sorted by name. A transcript line names a file by its path \
                below that folder (digits/1), with or without folders and extension; a line without a folder \
                names the file at the root before one in a subfolder. If any file fails, or a line still names \
                several files, nothing is stored, unless --keep-going is given. A file whose phrase and audio are \
                in the pack already is skipped. A take's position (initial, medial, final, question) comes from \
                its file name's prefix s. m. e. q. (e.hello.wav is the final take of "hello"), the transcript's \
                position column, or --position; with a transcript, a file name with a prefix is an error. \
                --labels cuts the takes an Audacity label track marks out of one recording.
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The voice to add to; needed when the pack has several.", valueName: "id"))
        var voice: String?

        @Option(
            help: ArgumentHelp("The phrase of every file imported, instead of the file names.", valueName: "phrase"))
        var text: String?

        @Flag(help: "Import the files as the voice's fallback clip, spoken for words no clip covers.")
        var fallback = false

        @Flag(
            help:
                "Store the files that import and list the ones that fail, and transcript lines that do not name one file, instead of storing nothing."
        )
        var keepGoing = false

        @Option(help: "The libsamplerate converter for the conversion to 22050 Hz.")
        var converter: Converter = .best

        @Option(help: ArgumentHelp("How many files to convert at once.", valueName: "n"))
        var jobs = ProcessorCount.online

        @Option(
            help: ArgumentHelp(
                "A transcript giving each file's phrase: CSV (file,text), TSV (file<TAB>text), id|text or name: text lines.",
                valueName: "file"), completion: .file())
        var transcript: String?

        @Flag(help: "With --transcript: a file without a line, or a line without a file, is an error, not a warning.")
        var strictTranscript = false

        @Option(
            help: ArgumentHelp(
                "The place in a sentence the takes were recorded for, where a file name or transcript line gives none.",
                valueName: "position"))
        var position: TakePosition?

        @Option(
            help: ArgumentHelp(
                "Audacity's label track (start<TAB>end<TAB>label, seconds) marking the takes to cut from the one recording given.",
                valueName: "file"), completion: .file())
        var labels: String?

        @Argument(
            help: ArgumentHelp(
                "The audio files to import; a folder imports every audio file in it.", valueName: "file"),
            completion: .file())
        var files: [String] = []

        @Flag(
            inversion: .prefixedNo,
            help: ArgumentHelp(
                "Align the English takes imported to their words and phones, as `voicebank align` does (the default unless VOICEBANK_ALIGN=0)."
            ))
        var align: Bool?

        func validate() throws {
            try validateTranscriptOptions()
            if jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        }

        func run() throws {
            let pack = try bank.open(.readWrite)
            let labelTrack = try labels.map { (path) throws(AuthoringError) in try LabelTrack(path: path) }
            let (requests, skippedLines) = labelTrack == nil ? try importRequests() : ([], [])
            var display = ProgressDisplay(isTerminal: FileDescriptor.standardError.isTerminal)
            let report: ImportReport
            if let labelTrack {
                report = try pack.importRecording(
                    files[0], labels: labelTrack, position: position, into: voice, converter: converter,
                    keepGoing: keepGoing, parallelism: jobs
                ) { display.show($0) }
            } else {
                report = try pack.importFiles(
                    requests, into: voice, converter: converter, keepGoing: keepGoing, parallelism: jobs
                ) { display.show($0) }
            }
            display.finish()
            for clip in report.imported {
                print("imported \(clip.sourceName) as \(describe(clip))")
            }
            for skipped in report.skipped {
                print(
                    "skipped \(skipped.path): the same audio is clip #\(skipped.existing.id) \"\(skipped.existing.phrase)\""
                )
            }
            var standardError = StandardError()
            for line in skippedLines {
                print("failed: \(line)", to: &standardError)
            }
            for failed in report.failed {
                print("failed: \(VoicebankCommand.shown(failed.error))", to: &standardError)
            }
            let seconds = report.imported.reduce(0) { $0 + $1.durationSeconds }
            let failedCount = skippedLines.count + report.failed.count
            print(
                "\(report.imported.count) imported (\(decimal(seconds, places: 2)) s), \(report.skipped.count) skipped, "
                    + "\(failedCount) failed, into voice \(report.voice.identifier) of \(pack.path)")
            // A voice whose language has no aligner is not spoken of: it has nothing to align.
            if isAligning(align) && !report.imported.isEmpty && report.voice.isEnglish {
                align(pack, voice: report.voice.identifier)
            }
            if failedCount > 0 { throw ExitCode.failure }
        }

        /// Aligns the voice's takes that have no alignment (those just imported); the import stands whether or not
        /// they can be aligned now, and `voicebank align` aligns them later. An import that left nothing to align (a
        /// fallback clip) says nothing of it.
        private func align(_ pack: VoicePack, voice: String) {
            var display = ProgressDisplay(isTerminal: FileDescriptor.standardError.isTerminal)
            do {
                let report = try pack.alignTakes(voice: voice) { display.show($0) }
                display.finish()
                if !report.aligner.isEmpty { printAlignment(report, of: pack, summaryToStandardError: true) }
            } catch {
                display.finish()
                var standardError = StandardError()
                print(
                    "note: the takes imported are not aligned (\(error)); `voicebank align --bank \(pack.path)` aligns them later",
                    to: &standardError)
            }
        }

        private func describe(_ clip: Clip) -> String {
            "#\(clip.id) \"\(clip.phrase)\"\(clip.isFallback ? " (fallback)" : "")\(clip.position.map { " (\($0))" } ?? ""): "
                + "\(clip.source.sampleRate) Hz \(clip.source.channelCount) ch \(clip.source.frameCount) frames → "
                + "\(clip.frameCount) frames (\(decimal(clip.durationSeconds, places: 2)) s)"
        }
    }
}

/// Import progress on standard error, for runs of ten files or more: a bar redrawn in place, and only on a terminal.
/// Redirected to a log or a pipe, standard error carries nothing but the errors (the summary is on standard
/// output), so a script reading it sees no progress lines.
struct ProgressDisplay {
    let isTerminal: Bool
    private var isDrawn = false

    init(isTerminal: Bool) { self.isTerminal = isTerminal }

    mutating func show(_ progress: ImportProgress) {
        guard isTerminal, progress.total >= 10 else { return }
        var standardError = StandardError()
        let width = 30
        let filled = width * progress.completed / progress.total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let name = progress.path.split(separator: "/").last.map(String.init) ?? progress.path
        print(
            "\r\u{1B}[K[\(bar)] \(progress.completed)/\(progress.total) \(name.prefix(40))", terminator: "",
            to: &standardError)
        isDrawn = true
    }

    func finish() {
        guard isDrawn else { return }
        var standardError = StandardError()
        print("\r\u{1B}[K", terminator: "", to: &standardError)
    }
}
