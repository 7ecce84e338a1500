// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upgrade a pack to the current schema and measure what its clips lack, in one transaction.",
            discussion: """
                A pack from an older version of voicebank is upgraded whenever a command opens it to write (import, \
                configure, remove, …), and read as it is by concat-synth; migrate does it on its own. From schema 7, \
                it measures each clip's take features (F0 and level at its edges, their cepstra, its pitch contour), \
                a few milliseconds a clip. Killed or failing part way, it leaves the pack as it was. Run on a current \
                pack, it measures any clip still without its features, and otherwise changes nothing.
                """)

        @OptionGroup var bank: BankOptions

        func run() throws {
            var display = ProgressDisplay(isTerminal: FileDescriptor.standardError.isTerminal)
            let report = try VoicePack.migrate(path: bank.path) { display.show($0) }
            display.finish()
            let measured =
                "measured the take features of \(report.measuredClipCount) clip"
                + (report.measuredClipCount == 1 ? "" : "s")
            if report.fromVersion < report.toVersion {
                print("\(report.path): schema \(report.fromVersion) → \(report.toVersion); \(measured)")
            } else {
                print("\(report.path): schema \(report.toVersion) already; \(measured)")
            }
        }
    }
}
