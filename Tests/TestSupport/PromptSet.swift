// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation

/// A small phone-system prompt set, laid out as Asterisk's core sounds ship: 8 kHz 16-bit WAV files in folders
/// below the sounds folder (`digits/1.wav` beside `silence/1.wav`, a root `sorry.wav` beside
/// `followme/sorry.wav`, a root `dollars.wav` beside `digits/dollars.wav`), and the `core-sounds-en.txt`
/// transcript of `name: text` lines naming each file by its path below the sounds folder, sorted line by line
/// as Asterisk's is (`digits/19: nineteen` before `digits/1: one`), with a `;` comment on top and the
/// `followme/` names written with `.wav`.
///
/// Each prompt is a tone of its own frequency (silence for `silence/N`), so a test can tell which file a clip
/// or a stretch of a render came from.
public struct PromptSet: Sendable {
    public struct Prompt: Sendable {
        /// The name the transcript gives: `digits/1`, `sorry`, `followme/sorry.wav`.
        public var name: String
        /// The file below the sounds folder: `digits/1.wav`.
        public var relativePath: String
        public var text: String
        /// The tone's frequency in Hz; `nil` for a silent prompt.
        public var frequency: Double?

        /// Its line in the transcript.
        public var line: String { "\(name): \(text)" }

        /// The text as words, lower case, punctuation dropped (`A.M.` → `a m`), as markers show a phrase.
        public var words: String {
            text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.joined(separator: " ")
        }
    }

    public static let sampleRate = 8_000
    public static let seconds = 0.25

    /// The sounds folder.
    public let folder: String
    /// `folder/core-sounds-en.txt`.
    public let transcriptPath: String
    /// In the transcript's order, which is the order an import stores them in.
    public let prompts: [Prompt]

    /// Writes the prompt set into `folder/sounds/en`.
    public init(in folder: String) throws {
        self.folder = folder + "/sounds/en"
        transcriptPath = self.folder + "/core-sounds-en.txt"
        prompts = Self.makePrompts().sorted { $0.line.utf8.lexicographicallyPrecedes($1.line.utf8) }
        for prompt in prompts {
            let path = "\(self.folder)/\(prompt.relativePath)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let frameCount = Int(Self.seconds * Double(Self.sampleRate))
            let samples =
                prompt.frequency.map {
                    Signal.sine(frequency: $0, amplitude: 0.5, sampleRate: Self.sampleRate, frameCount: frameCount)
                } ?? [Float](repeating: 0, count: frameCount)
            try Fixture.write(
                PCM16.samples(samples), to: path, format: AudioFileFormat(.wav, .pcm16),
                sampleRate: Self.sampleRate)
        }
        try ("; Core Asterisk Sounds in English\n" + prompts.map(\.line).joined(separator: "\n") + "\n")
            .write(toFile: transcriptPath, atomically: true, encoding: .utf8)
    }

    /// The prompt the transcript names `name`.
    public func prompt(named name: String) -> Prompt? { prompts.first { $0.name == name } }

    /// The prompts whose text reads `words` (see `Prompt.words`), in the order made.
    public func prompts(saying words: String) -> [Prompt] { prompts.filter { $0.words == words } }

    private static func makePrompts() -> [Prompt] {
        let units = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        ]
        let tens = [
            20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty",
            90: "ninety",
        ]
        let ordinals = [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
            "eighteenth", "nineteenth",
        ]
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        var named: [(name: String, text: String, isSilent: Bool)] = []
        for (number, word) in units.enumerated() { named.append(("digits/\(number)", word, false)) }
        for number in tens.keys.sorted() { named.append(("digits/\(number)", tens[number]!, false)) }
        for word in ["hundred", "thousand", "million", "minus", "oh", "at", "dollars"] {
            named.append(("digits/\(word)", word, false))
        }
        named += [("digits/oclock", "o'clock", false), ("digits/a-m", "A.M.", false), ("digits/p-m", "P.M.", false)]
        for (index, word) in ordinals.enumerated() { named.append(("digits/h-\(index + 1)", word, false)) }
        named += [("digits/h-20", "twentieth", false), ("digits/h-30", "thirtieth", false)]
        for (index, month) in months.enumerated() { named.append(("digits/mon-\(index)", month, false)) }
        for letter in "abcdefghijklmnopqrstuvwxyz" { named.append(("letters/\(letter)", String(letter), false)) }
        named += [
            ("letters/zed", "zed", false),
            ("silence/1", "(1 second of silence)", true), ("silence/2", "(2 seconds of silence)", true),
            ("sorry", "I'm sorry.", false), ("dollars", "dollars", false),
            ("beep", "[this is a simple beep tone]", false), ("hello-world", "Hello world.", false),
            ("followme/sorry.wav", "I'm sorry, but I was unable to locate the person you are calling", false),
            ("followme/call-from.wav", "incoming call from", false),
        ]
        var prompts: [Prompt] = []
        var frequency = 200.0
        for entry in named {
            let file = entry.name.hasSuffix(".wav") ? entry.name : entry.name + ".wav"
            prompts.append(
                Prompt(
                    name: entry.name, relativePath: file, text: entry.text,
                    frequency: entry.isSilent ? nil : frequency))
            if !entry.isSilent { frequency += 20 }
        }
        return prompts
    }
}
