// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import SpeechCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sentence rendered with the pack as it stands, for the page's Listen panel: the WAV file `concat-synth render -o
/// NAME.wav` would write, and the picture `--picture` would draw.
struct StudioRender: Sendable {
    var id: Int
    var wav: [UInt8]
    var svg: String
    var frameCount: Int
    /// The runs of words no take covers, in order.
    var fallbacks: [String]

    /// What the page is told of it: everything but the audio and the picture, which it loads by their addresses.
    struct Summary: Encodable, Sendable {
        var id: Int
        var frameCount: Int
        var seconds: Double
        var fallbacks: [String]
        var audio: String
        var picture: String
    }

    var summary: Summary {
        Summary(
            id: id, frameCount: frameCount, seconds: Double(frameCount) / Double(RenderFormat.sampleRate),
            fallbacks: fallbacks, audio: "/renders/\(id).wav", picture: "/renders/\(id).svg")
    }
}

/// The renders a session keeps for its pages to fetch: the last few, numbered from 1.
struct StudioRenders: Sendable {
    /// Enough for a page and another one rendering at the same time.
    static let keptCount = 4
    /// The most bytes of text a render takes: a few sentences.
    static let largestText = 4 << 10
    /// The longest render: two minutes of speech.
    static let longestSeconds = 120

    private var renders: [StudioRender] = []
    private var nextID = 1

    mutating func keep(_ render: (Int) -> StudioRender) -> StudioRender {
        let made = render(nextID)
        nextID += 1
        renders = renders.suffix(Self.keptCount - 1) + [made]
        return made
    }

    func render(id: Int) -> StudioRender? { renders.first { $0.id == id } }
}

extension StudioSession {
    /// Renders `text` (plain text or SSML) with the voice and the pack as it stands, through the render path of
    /// `concat-synth render --voice VOICE -o NAME.wav --picture NAME.svg`: a synthesizer opened on the pack now (so it
    /// has every take kept so far), its renderer pulled into a Float32 WAV file at 22050 Hz and into a picture.
    ///
    /// - Throws: `StudioError.listenText` for empty or too long text, or a render past the longest;
    ///   `.render` for text the planner refuses and for what rendering throws; `.audio` for the file.
    func listen(_ text: String) throws(StudioError) -> StudioRender {
        guard text.contains(where: { !$0.isWhitespace }) else { throw .listenText(reason: "it is empty") }
        guard text.utf8.count <= StudioRenders.largestText else {
            throw .listenText(
                reason: "it is \(text.utf8.count) bytes, more than the \(StudioRenders.largestText) a render takes")
        }
        // The fallback voice speaks as it will once the takes kept so far are measured.
        try fallbackVoice.update()
        let path = folder.newPath(extension: "wav")
        defer { unlink(path) }
        let fallbacks = Mutex<[String]>([])
        var svg = ""
        var frameCount = 0
        do {
            let synthesizer = try Synthesizer(bank: packPath, voice: voice.identifier)
            let request = SpeechRequest(text, voice: voice.identifier)
            let renderer = try synthesizer.renderer(for: request, recording: .picture) { note in
                if case .fallback(let words, _) = note { fallbacks.withLock { $0.append(words) } }
            }
            let chain = try ConvertedPull(renderer, sampleRate: RenderFormat.sampleRate, blockFrames: 4_096)
            let format = try RenderOutputFormat(path: path, sampleRate: nil, encoding: nil)
            let writer = try AudioFileWriter(path: path, format: format.file, sampleRate: format.sampleRate)
            while !chain.isComplete {
                try chain.pull {
                    frameCount += $0.count
                    try writer.write($0)
                }
                guard frameCount <= StudioRenders.longestSeconds * RenderFormat.sampleRate else {
                    throw StudioError.listenText(
                        reason: "it is longer than the \(StudioRenders.longestSeconds) s a render may be")
                }
            }
            try writer.commit()
            svg = renderer.pictureSVG ?? ""
        } catch let error as StudioError {
            throw error
        } catch let error as AudioIOError {
            throw .audio(error)
        } catch {
            throw .render(ConcatSynthError(error))
        }
        let wav: [UInt8]
        do throws(FileError) { wav = try readFile(atPath: path) } catch {
            throw .unreadableFile(path: path, reason: error.reason)
        }
        let spoken = fallbacks.withLock { $0 }
        return renders.withLock { renders in
            renders.keep { StudioRender(id: $0, wav: wav, svg: svg, frameCount: frameCount, fallbacks: spoken) }
        }
    }

    /// A render kept for the page.
    ///
    /// - Throws: `StudioError.unknownRender`.
    func render(id text: String) throws(StudioError) -> StudioRender {
        guard let id = Int(text), let render = renders.withLock({ $0.render(id: id) }) else {
            throw .unknownRender(id: text)
        }
        return render
    }
}
