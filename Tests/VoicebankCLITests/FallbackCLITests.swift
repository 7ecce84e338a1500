// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// `voicebank configure --fallback` and what `voicebank info` shows of it.
@Suite struct FallbackCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("voicebank-fallback")
    var bank: String { directory.file("pack.sqlite") }

    /// A voice in `language` with three 200 Hz tone clips and a fallback beep.
    func makeVoice(language: String) throws {
        var files: [String] = []
        for (index, phrase) in ["hello", "good_morning", "nice_to_meet_you"].enumerated() {
            files.append(
                try Fixture.seedClip(
                    at: directory.file("\(phrase).aiff"), seconds: 0.4 + 0.2 * Double(index), frequency: 200))
        }
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.2, frequency: 880)
        for arguments in [
            ["create", "--voice", "com.example.ann", "--name", "Ann", "--language", language],
            ["import"] + files, ["import", "--fallback", beep],
        ] {
            let result = try voicebank.run(arguments + ["--bank", bank])
            try #require(result.status == 0, "\(result.standardError)")
        }
    }

    func info() throws -> [String: Any] {
        let result = try voicebank.run(["info", "--bank", bank, "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        return try #require((object["voices"] as? [[String: Any]])?.first)
    }

    @Test("configure --fallback sets the mode; info shows it, the F0 it matched and espeak-ng's settings")
    func configure() throws {
        try makeVoice(language: "en-US")
        // A new English voice's.
        #expect(try info()["fallback"] as? String == "units")
        #expect(abs((try info()["medianF0Hz"] as? Double ?? 0) - 200) < 1)

        let spell = try voicebank.run(["configure", "--bank", bank, "--fallback", "spell"])
        #expect(spell.status == 0, "\(spell.standardError)")
        #expect(try info()["fallback"] as? String == "spell")

        let voice = try voicebank.run(["configure", "--bank", bank, "--fallback", "voice"])
        #expect(voice.status == 0, "\(voice.standardError)")
        #expect(voice.standardOutput.contains("matching a median F0 of 200."))
        let json = try info()
        #expect(json["fallback"] as? String == "voice")
        let settings = try #require(json["fallbackVoice"] as? [String: Any])
        #expect(settings["variant"] as? String == "f3")
        #expect((settings["pitchRange"] as? Int).map { (10...25).contains($0) } == true)
        #expect((settings["spokenLoudnessLUFS"] as? Double).map { (-40 ... -10).contains($0) } == true)
        let text = try voicebank.run(["info", "--bank", bank]).standardOutput
        #expect(text.contains("  fallback: voice (espeak-ng variant f3, pitch "))
        #expect(text.contains(" LUFS, so runs play as they are spoken)"))

        let bad = try voicebank.run(["configure", "--bank", bank, "--fallback", "beep"])
        #expect(bad.status == 64)
    }

    @Test("configure --fallback units chooses the fallback voice too; info and concat-synth's plan show units")
    func units() throws {
        try makeVoice(language: "en-US")
        let units = try voicebank.run(["configure", "--bank", bank, "--fallback", "units"])
        #expect(units.status == 0, "\(units.standardError)")
        #expect(units.standardOutput.contains("fallback voice: espeak-ng variant f3"))
        #expect(try info()["fallback"] as? String == "units")
        let text = try voicebank.run(["info", "--bank", bank]).standardOutput
        #expect(text.contains("  fallback: units (units cut from the aligned takes, then espeak-ng variant f3, "))
        // No take is aligned: the words go to the fallback voice, and the plan says why.
        let render = try Binary("concat-synth").run([
            "render", "--bank", bank, "--plan", "-o", directory.file("out.wav"), "hello Bob",
        ])
        #expect(render.status == 0, "\(render.standardError)")
        #expect(render.standardError.contains("units declined: the voice has no aligned takes (voicebank align)"))
    }

    @Test("--fallback voice for a language espeak-ng lacks is a one-line error naming it, and changes nothing")
    func unknownLanguage() throws {
        try makeVoice(language: "tlh")
        let result = try voicebank.run(["configure", "--bank", bank, "--fallback", "voice"])
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("espeak-ng has no voice for tlh, the language of voice com.example.ann"))
        #expect(try info()["fallback"] as? String == "clip")
    }
}
