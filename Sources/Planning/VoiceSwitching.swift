// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore

/// How a text run is spoken: its context, its voice and the speed and pitch it is spoken at. (This and
/// `TextCursor` are not generic, so the planner's inner loop looks up no generic metadata.)
struct Spoken {
    var context: SpeechContext
    /// The index of the voice in the planner's voices.
    var speaker: Int
    var speed: Double
    var pitchSemitones: Double
}

/// Which of the pack's voices speaks a context (`<voice>`, `xml:lang`), and its rate and pitch within what the
/// renderer stretches and shifts to: what the event reading and text window stages ask of each run. Holds nothing
/// across runs.
struct VoiceSwitching {
    /// The pack's voices, in the pack's order.
    let voices: [VoiceSettings]
    /// The index in `voices` of the voice that speaks where the request names none.
    let startingVoice: Int
    let warnings: PlanWarnings

    /// How a run in `context` is spoken by the voice at `speaker`.
    func spoken(_ context: SpeechContext, speaker: Int) -> Spoken {
        Spoken(
            context: context, speaker: speaker, speed: speed(context, voice: voices[speaker]),
            pitchSemitones: pitchSemitones(context))
    }

    /// The voice a run is spoken in: the one `<voice name>` names (identifier or name), else the best for its
    /// `xml:lang` (a primary language before a supported one, the whole tag before its language subtag), else
    /// the starting voice. A name or language no voice answers to is a warning.
    func voiceIndex(for context: SpeechContext) -> Int {
        if let name = context.voiceName {
            if let index = voices.firstIndex(where: {
                $0.identifier == name || $0.name.lowercased() == name.lowercased()
            }) {
                return index
            }
            warnings.warn(
                "no voice \"\(name)\" in the pack (voices: \(voices.map(\.identifier).joined(separator: ", "))); "
                    + "speaking with \(context.language == nil ? "the current voice" : "the voice for its language")")
        }
        guard let tag = context.language?.lowercased(), !tag.isEmpty else { return startingVoice }
        let subtag = tag.split(separator: "-").first.map(String.init) ?? tag
        let matchers: [(VoiceSettings) -> Bool] = [
            { $0.primaryLanguages.contains { $0.lowercased() == tag } },
            { $0.supportedLanguages.contains { $0.lowercased() == tag } },
            { $0.primaryLanguages.contains { $0.lowercased().split(separator: "-").first.map(String.init) == subtag } },
            {
                $0.supportedLanguages.contains {
                    $0.lowercased().split(separator: "-").first.map(String.init) == subtag
                }
            },
        ]
        // The starting voice wins a tie, so a request in the starting voice's language never switches voice.
        for matches in matchers {
            if matches(voices[startingVoice]) { return startingVoice }
            if let index = voices.firstIndex(where: { matches($0) }) { return index }
        }
        warnings.warn(
            "no voice for xml:lang=\"\(context.language ?? "")\" in the pack; speaking with \(voices[startingVoice].identifier)"
        )
        return startingVoice
    }

    /// The context's rate as a speed for `voice`, within what the renderer stretches to.
    func speed(_ context: SpeechContext, voice: VoiceSettings) -> Double {
        let speed = Prosody.speed(rate: context.rate, normalRate: voice.normalRate)
        guard !Prosody.speeds.contains(speed) else { return speed }
        let clamped = min(max(speed, Prosody.speeds.lowerBound), Prosody.speeds.upperBound)
        warnings.warn(
            "a speed of \(speed)x (rate \(context.rate ?? 1) for \(voice.identifier), whose normal rate is "
                + "\(voice.normalRate)) is beyond the supported \(Prosody.speeds.lowerBound)x to "
                + "\(Prosody.speeds.upperBound)x; speaking at \(clamped)x")
        return clamped
    }

    /// The context's pitch shift, within what the renderer shifts.
    func pitchSemitones(_ context: SpeechContext) -> Double {
        let semitones = context.pitchSemitones
        guard !Prosody.pitchShifts.contains(semitones) else { return semitones }
        let clamped = min(max(semitones, Prosody.pitchShifts.lowerBound), Prosody.pitchShifts.upperBound)
        warnings.warn(
            "a pitch shift of \(semitones) semitones is beyond the supported \(Prosody.pitchShifts.lowerBound) to "
                + "\(Prosody.pitchShifts.upperBound); shifting by \(clamped)")
        return clamped
    }
}
