// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore
import Voicebank
import VoicebankAuthoring

/// What the page reads: `GET /api/state`, and parts of it after each change.
struct StudioState: Encodable, Sendable {
    struct VoiceState: Encodable, Sendable {
        var identifier: String
        var name: String
        /// The language the prompts are in, for the page's `lang`.
        var language: String?
        /// The level below which import trims a take's ends; `nil` when the voice keeps clips whole.
        var trimThresholdDecibels: Double?
    }
    struct Take: Encodable, Sendable {
        var id: Int
        /// The place it was recorded for: `initial`, `medial`, `final`, `question`; absent for none.
        var position: TakePosition?
        /// How long it plays, trimmed.
        var seconds: Double
        /// How long the recording was, and its rate.
        var recordedSeconds: Double
        var sampleRate: Int
        /// What listening to it found, for a take this studio kept.
        var hearing: TakeHearing?
        /// What aligning it to its words and phones came to, for a take this studio kept.
        var alignment: TakeAlignmentState?

        init(_ clip: Clip, hearing: TakeHearing? = nil, alignment: TakeAlignmentState? = nil) {
            id = clip.id
            position = clip.position
            seconds = clip.durationSeconds
            recordedSeconds = Double(clip.source.frameCount) / Double(clip.source.sampleRate)
            sampleRate = clip.source.sampleRate
            self.hearing = hearing
            self.alignment = alignment
        }
    }
    struct PromptState: Encodable, Sendable {
        var id: String
        var text: String
        /// The place its take is for; absent for a take of no particular place.
        var position: TakePosition?
        /// The text as the reader is shown it, with the punctuation of its place (`York.`), and how to say it.
        var readText: String
        var howToSay: String?
        /// Every take of its phrase, whatever its position.
        var takes: [Take]
        /// It has a take: one with its position, for a prompt with a position.
        var isDone: Bool

        init(_ prompt: Prompt, takes: [Take]) {
            id = prompt.id
            text = prompt.text
            position = prompt.position
            readText = prompt.readText
            howToSay = prompt.howToSay
            self.takes = takes
            isDone = takes.contains { prompt.position == nil || $0.position == prompt.position }
        }
    }
    struct TextState: Encodable, Sendable {
        /// The file's path, or `pasted text N`.
        var name: String
        var isPasted: Bool
        /// A pasted text's first words, for the page to show which it is.
        var excerpt: String?

        init(_ text: StudioPrompts.Text) {
            name = text.name
            isPasted = text.isPasted
            if text.isPasted {
                let words = text.text.split(whereSeparator: \.isWhitespace)
                excerpt = words.prefix(12).joined(separator: " ") + (words.count > 12 ? " …" : "")
            }
        }
    }
    struct Coverage: Encodable, Sendable {
        /// The line `voicebank coverage` ends with: `covered: 5 of 7 tokens (71.4 %)`.
        var summary: String
        var tokens: Int
        var coveredTokens: Int
        /// The places the texts speak phrases at that have no take for them, as `voicebank coverage` lists them
        /// (`no final take of "york": 2 uses`), most uses first, and the uses in all.
        var missingPositions: [String]
        var missingPositionUses: Int

        init(_ report: CoverageReport) {
            summary = report.summary
            tokens = report.tokenCount
            coveredTokens = report.coveredTokenCount
            missingPositions = report.missingPositions.map(\.description)
            missingPositionUses = report.missingPositions.reduce(0) { $0 + $1.count }
        }
    }

    var voice: VoiceState
    var pack: String
    var prompts: [PromptState]
    var texts: [TextState]
    var coverage: Coverage?
    var maximumTakeBytes: Int
    var takeChecks: TakeChecks
}

/// A take's loudness against its voice's median clip loudness, and what to tell the person of it.
struct TakeLoudness: Encodable, Sendable, Equatable {
    var loudnessLUFS: Double?
    /// `nil` while the voice has no phrase clip measured.
    var voiceMedianLUFS: Double?
    /// The frames of the take that would play, trimmed, at its own rate: what P plays of a take not yet kept.
    var playedFrames: Range<Int>

    /// A sentence when the take stands out from the voice's other clips, as `voicebank verify` would report it.
    var message: String? {
        guard let loudnessLUFS, let voiceMedianLUFS else { return nil }
        let difference = loudnessLUFS - voiceMedianLUFS
        guard abs(difference) > VerifyLimits.loudnessToleranceLU else { return nil }
        let (louder, advice) =
            difference > 0
            ? ("louder", "speak more softly or a little further from the microphone")
            : ("quieter", "speak up or come closer to the microphone")
        return "It is \(Decibels.text(abs(difference))) LU \(louder) than the voice's other takes "
            + "(\(Decibels.text(loudnessLUFS)) against \(Decibels.text(voiceMedianLUFS)) LUFS), which stands out when "
            + "spoken: \(advice), and record it again."
    }

    private enum CodingKeys: String, CodingKey { case loudnessLUFS, voiceMedianLUFS, message, played }

    /// `played` is `[first, end]`, the end not played.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(loudnessLUFS, forKey: .loudnessLUFS)
        try container.encodeIfPresent(voiceMedianLUFS, forKey: .voiceMedianLUFS)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encode([playedFrames.lowerBound, playedFrames.upperBound], forKey: .played)
    }
}
