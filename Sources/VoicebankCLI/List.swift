import ArgumentParser
import CommandLineSupport
import SpeechCore
import Voicebank

extension VoicebankCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the clips of a pack, or of one voice.",
            discussion: """
                One clip a line: its id, voice, phrase, duration, render-ready frames, source file, position \
                (initial, medial, final, question; - when untagged) and the contour its pitch ends with (falling, \
                level, rising; - when it has no voiced end or was not measured).
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("Only this voice's clips.", valueName: "id"))
        var voice: String?

        @Flag(help: "Print a JSON array of clips instead of a table.")
        var json = false

        func run() throws {
            let pack = try bank.open(.readOnly)
            let clips = try pack.clips(voice: voice)
            if json {
                try printJSON(clips.map(ClipJSON.init))
                return
            }
            for clip in clips {
                print(
                    "#\(clip.id)\t\(clip.voice)\t\"\(clip.phrase)\"\(clip.isFallback ? " (fallback)" : "")\t"
                        + "\(decimal(clip.durationSeconds, places: 2)) s\t\(clip.frameCount) frames\t\(clip.sourceName)\t"
                        + "\(clip.position?.rawValue ?? "-")\t\(clip.contour?.rawValue ?? "-")")
            }
            var standardError = StandardError()
            print("\(clips.count) clips in \(pack.path)", to: &standardError)
        }
    }
}

/// The fields of `voicebank list --json`.
struct ClipJSON: Encodable {
    struct Source: Encodable {
        var file: String
        var container: String
        var sampleFormat: String
        var sampleRate: Int
        var channels: Int
        var frames: Int
    }

    var id: Int
    var voice: String
    var phrase: String
    var phraseKey: String
    var frames: Int
    var durationSeconds: Double
    var isFallback: Bool
    var source: Source
    /// `initial`, `medial`, `final` or `question`; null when untagged.
    var position: String?
    /// `falling`, `level` or `rising`; null when it has no voiced end or was not measured.
    var contour: String?
    /// Where it was cut from a longer recording; null for a file of its own.
    var cut: Cut?

    struct Cut: Encodable {
        /// The same number for every clip cut from one recording.
        var recording: Int64
        var startFrame: Int
        var endFrame: Int
    }

    init(_ clip: Clip) {
        id = clip.id
        voice = clip.voice
        phrase = clip.phrase
        phraseKey = clip.phraseKey
        frames = clip.frameCount
        durationSeconds = clip.durationSeconds
        isFallback = clip.isFallback
        source = Source(
            file: clip.sourceName, container: clip.source.container, sampleFormat: clip.source.sampleFormat,
            sampleRate: clip.source.sampleRate, channels: clip.source.channelCount, frames: clip.source.frameCount)
        position = clip.position?.rawValue
        contour = clip.contour?.rawValue
        cut = clip.cut.map { Cut(recording: $0.recording, startFrame: $0.startFrame, endFrame: $0.endFrame) }
    }

    private enum CodingKeys: String, CodingKey {
        case id, voice, phrase, phraseKey, frames, durationSeconds, isFallback, source, position, contour, cut
    }

    /// As synthesized, but `position`, `contour` and `cut` are there as null when a clip has none, so that every clip
    /// has the same fields.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(voice, forKey: .voice)
        try container.encode(phrase, forKey: .phrase)
        try container.encode(phraseKey, forKey: .phraseKey)
        try container.encode(frames, forKey: .frames)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(isFallback, forKey: .isFallback)
        try container.encode(source, forKey: .source)
        try container.encode(position, forKey: .position)
        try container.encode(contour, forKey: .contour)
        try container.encode(cut, forKey: .cut)
    }
}
