import ArgumentParser
import CommandLineSupport
import Voicebank

extension VoicebankCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the clips of a pack, or of one voice.")

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
                        + "\(formatSeconds(clip.durationSeconds)) s\t\(clip.frameCount) frames\t\(clip.sourceName)")
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
    }
}
