import ArgumentParser
import CommandLineSupport
import Voicebank

/// A rate given as a multiple (`4`, `0.5`) or a percentage (`400%`).
struct RateArgument: ExpressibleByArgument {
    var multiple: Double

    var defaultValueDescription: String { "\(Int((multiple * 100).rounded()))%" }

    init?(argument: String) {
        let isPercent = argument.hasSuffix("%")
        guard let number = Double(isPercent ? String(argument.dropLast()) : argument), number.isFinite else { return nil }
        multiple = isPercent ? number / 100 : number
    }
}

extension VoicebankCommand {
    struct Configure: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a voice's settings.",
            discussion: """
                --normal-rate is the SSML rate at which the voice's clips play as recorded. VoiceOver in Japanese \
                sends rate="400.0%" at its normal speed: a voice for it has a normal rate of 400% (or 4), so that \
                rate means "as recorded". Example: voicebank configure --voice com.example.otoya --normal-rate 400%
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The voice to change; needed when the pack has several.", valueName: "id"))
        var voice: String?

        @Option(help: ArgumentHelp("The SSML rate the clips play at as recorded: a multiple or a percentage.", valueName: "rate"))
        var normalRate: RateArgument?

        func validate() throws {
            if normalRate == nil { throw ValidationError("Nothing to change: give --normal-rate RATE.") }
        }

        func run() throws {
            let pack = try bank.open(.readWrite)
            let target = try pack.resolveVoice(voice)
            if let normalRate { try pack.setNormalRate(normalRate.multiple, voice: target.identifier) }
            print("voice \(try pack.resolveVoice(target.identifier)) of \(pack.path)")
        }
    }
}
