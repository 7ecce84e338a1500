// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Tokens
import Verbalization
import Voicebank

extension Interpretation: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "numbers", "number", "cardinal": self = .cardinal
        case "ordinals", "ordinal": self = .ordinal
        case "dates", "date": self = .date
        case "times", "time": self = .time
        case "digits", "digit": self = .digits
        case "telephone", "phone": self = .telephone
        default: return nil
        }
    }

    public static var allValueStrings: [String] {
        ([.cardinal, .ordinal, .date, .time, .digits, .telephone] as [Interpretation]).map(\.listName)
    }
}

extension VoicebankCommand {
    struct Words: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List the words a voice needs to say numbers, ordinals, dates, times, digits or telephone numbers.",
            discussion: """
                concat-synth reads <say-as interpret-as="cardinal|ordinal|date|time|digits|telephone"> and digits in \
                running text as words in the voice's language, then matches them like any text. Record a clip for \
                each word listed (a longer phrase covering several also works). Languages: \
                \(Verbalizer.supportedLanguages.joined(separator: ", ")).
                Examples:
                  voicebank words --for numbers --language en-US
                  voicebank words --for dates --voice com.example.ann --missing
                """)

        @OptionGroup var bank: BankOptions

        @Option(name: .customLong("for"), help: "What the words are for.")
        var category: Interpretation

        @Option(
            help: ArgumentHelp(
                "The language, as a BCP 47 tag; the voice's first language if not given.", valueName: "tag"))
        var language: String?

        @Option(help: ArgumentHelp("The voice whose language and clips to use.", valueName: "id"))
        var voice: String?

        @Flag(help: "Only the words the voice has no clip for.")
        var missing = false

        func validate() throws {
            if language == nil && voice == nil {
                throw ValidationError("Give --language TAG, or --voice ID to use a voice's language.")
            }
            if missing && voice == nil {
                throw ValidationError("--missing needs --voice ID: the voice whose clips to check.")
            }
        }

        func run() throws {
            var index: ClipIndex?
            var tag = language
            if let voice {
                index = try bank.open(.readOnly).clipIndex(voice: voice)
                tag = tag ?? index?.voice.primaryLanguages.first
            }
            guard let tag, let verbalizer = Verbalizer.forLanguage(tag) else {
                throw ValidationError(
                    "No words for language \(tag ?? "(none)"): expected one of \(Verbalizer.supportedLanguages.joined(separator: ", "))."
                )
            }
            for word in verbalizer.vocabulary(for: category) {
                let isCovered = try index.map { try !$0.takes(forPhraseKey: Tokenizer.phraseKey(word)).isEmpty }
                if missing && isCovered == true { continue }
                print(isCovered == false && !missing ? "\(word)\t(missing)" : word)
            }
        }
    }
}
