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

extension VoicebankCommand {
    struct Align: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Align the English takes of a pack that have no alignment yet to their words and phones.",
            discussion: """
                Each take of a voice whose primary language is English (en, en-…) is aligned to its phrase by \
                pocketsphinx 5's forced alignment (tools/align-takes, run by tools/python-env's interpreter), and its \
                words and phones are stored with their times; import --align does the same for the takes it adds. Takes \
                already aligned are left alone, so a second run aligns none. Takes are stored sixteen at a time, \
                each batch one transaction: stopped part way, the pack keeps the batches before and is whole. A take \
                whose audio does not match its phrase is stored as failed (voicebank verify reports it); one that \
                cannot be aligned at all (too short for its words, a word without phones) gets a warning and \
                nothing is stored. `voicebank list --phones` shows the result. Takes without pitch marks (stored by \
                another program) have them measured first; a pack of an older schema gets them for every take when \
                it is upgraded.
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("Only this voice's takes.", valueName: "id"))
        var voice: String?

        func run() throws {
            let pack = try bank.open(.readWrite)
            var display = ProgressDisplay(isTerminal: FileDescriptor.standardError.isTerminal)
            let marked = try pack.measureMissingPitchMarks(voice: voice) { display.show($0) }
            display.finish()
            if marked > 0 { print("measured the pitch marks of \(marked) take\(marked == 1 ? "" : "s")") }
            let report = try pack.alignTakes(voice: voice) { display.show($0) }
            display.finish()
            printAlignment(report, of: pack)
        }
    }
}

/// Whether to align the takes a command adds (`import`, the studio's keep): `--align` or `--no-align`, else not when
/// `VOICEBANK_ALIGN` is `0` (how tests and scripts that do not need alignment skip its cost), else yes.
func isAligning(_ flag: Bool?) -> Bool {
    flag ?? (getenv("VOICEBANK_ALIGN").map { String(cString: $0) } != "0")
}

/// The lines `voicebank align` and `voicebank import` print of an alignment run: a warning on standard error for each
/// take that failed or could not be aligned, and a summary (on standard error too for import, whose standard output
/// lists what it imported).
func printAlignment(_ report: AlignmentReport, of pack: VoicePack, summaryToStandardError: Bool = false) {
    var standardError = StandardError()
    for take in report.failed {
        print(
            "warning: clip #\(take.clip.id) \"\(take.clip.phrase)\": not aligned: \(take.reason)", to: &standardError)
    }
    for take in report.unusable {
        print(
            "warning: clip #\(take.clip.id) \"\(take.clip.phrase)\": cannot be aligned: \(take.reason); nothing stored",
            to: &standardError)
    }
    let aligner = report.aligner.isEmpty ? "" : " by \(report.aligner)"
    let summary =
        "aligned \(report.aligned.count) take\(report.aligned.count == 1 ? "" : "s") (\(decimal(report.seconds, places: 2)) s)"
        + "\(aligner), \(report.failed.count) failed, \(report.unusable.count) not alignable, in \(pack.path)"
    if summaryToStandardError { print(summary, to: &standardError) } else { print(summary) }
}
