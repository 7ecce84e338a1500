// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing

/// Item 17's listener: Whisper tiny.en (tools/whisper-judge in tools/python-env's environment), and the bench's
/// reading of what it heard against a sentence's words, through `concat-synth-bench --hear`.
@Suite struct WhisperJudgeTests {
    let bench = Binary("concat-synth-bench")

    @Test("hears espeak-ng's words, a number as the words it says, and nothing in silence")
    func hears() throws {
        let directory = TemporaryDirectory("whisper-judge")
        let hello = directory.file("hello.wav")
        let messages = directory.file("messages.wav")
        let silence = directory.file("silence.wav")
        for (file, text) in [(hello, "hello world"), (messages, "You have 12 new messages.")] {
            let espeak = try Binary(path: "/usr/bin/espeak-ng").run(["-v", "en-us", "-w", file, text])
            try #require(espeak.status == 0, "\(espeak.standardError)")
        }
        let sox = try Binary(path: "/usr/bin/sox").run(["-n", "-r", "22050", "-c", "1", silence, "trim", "0", "1"])
        try #require(sox.status == 0, "\(sox.standardError)")

        let result = try bench.run([
            "--hear", "hello world", hello, "you have twelve new messages", messages, "hello world", silence,
        ])

        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(result.standardOutput)")
        #expect(lines[0].hasPrefix("\(hello): heard \"Hello world.\": 0 errors in 2 words"), "\(lines[0])")
        // Whisper writes the number as digits ("12"); read as the engine reads them, they are "twelve".
        #expect(lines[1].contains("12") && lines[1].contains(": 0 errors in 5 words"), "\(lines[1])")
        #expect(
            lines[2] == "\(silence): heard \"\": 2 errors in 2 words (0 substituted, 2 deleted, 0 inserted)",
            "\(lines[2])")
    }
}
