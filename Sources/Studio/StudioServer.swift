// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import HTTPService
import NetworkServer
import Verbalization
import Voicebank

/// What a studio serves: a voice of a pack, the prompts to record, and the texts whose coverage it shows.
public struct StudioOptions: Sendable {
    /// The pack's path; it must exist and be writable.
    public var bank: String
    /// The voice the takes are clips of; `nil` for the pack's only voice.
    public var voice: String?
    /// Texts (plain or SSML) whose coverage the page shows, and whose missing words are the prompts when there is no
    /// `promptFile` and no `wordLists`.
    public var textFiles: [String] = []
    /// A prompt file (`PromptScript.read(path:)`).
    public var promptFile: String?
    /// `voicebank words` lists whose words the voice has no take of are prompts, after the prompt file's.
    public var wordLists: [Interpretation] = []
    /// How the prompts are chosen when no prompt file or word list gives them.
    public var script: ScriptChoice = .missingWords
    /// With `script` `.phonePairs`: files of sentences (one a line) to choose from after the texts' own, instead of
    /// `RecordingSentences.english`.
    public var sentenceFiles: [String] = []
    /// Whether each English take kept is aligned to its words and phones, behind the keep.
    public var isAligning = true
    /// Where it listens: loopback and any free port unless told otherwise.
    public var host = "127.0.0.1"
    public var port = 0

    public init(bank: String, voice: String? = nil) {
        self.bank = bank
        self.voice = voice
    }
}

/// How a studio's prompts are chosen from its texts.
public enum ScriptChoice: String, CaseIterable, Sendable {
    /// The words of the texts that fall back, fewest prompts first (`PromptScript.missing(from:)`).
    case missingWords = "missing-words"
    /// Sentences chosen to cover the phone-pairs the voice lacks (`PhonePairScript`), the texts' own first: what the
    /// units fallback builds the words no take has from.
    case phonePairs = "phone-pairs"
}

/// The recording studio: a page in the browser, served by this process, that records the script's prompts and keeps
/// each take in the pack as `voicebank import` would.
///
/// ```swift
/// var options = StudioOptions(bank: "ann.sqlite")
/// options.textFiles = ["requests.txt"]
/// let studio = try StudioServer.start(options) { print($0) }
/// print(studio.url)   // http://127.0.0.1:41234/?token=…
/// try studio.waitUntilClosed()
/// ```
public final class StudioServer: Sendable {
    /// The page's address with its token.
    public let url: String
    /// The voice the takes are clips of.
    public let voice: String
    public let promptCount: Int
    /// What was left out of the prompt file.
    public let warnings: [String]
    private let listener: HTTPListener
    private let session: StudioSession

    private init(url: String, session: StudioSession, listener: HTTPListener) {
        self.url = url
        voice = session.voice.identifier
        promptCount = session.prompts.script.prompts.count
        warnings = session.prompts.script.warnings
        self.listener = listener
        self.session = session
    }

    /// Opens the pack for writing, makes the script and listens.
    ///
    /// - Parameter log: told one line per request, from any thread.
    /// - Throws: `StudioError`: what `StudioSession.open` throws, `.noRandomness`, `.server`.
    public static func start(_ options: StudioOptions, log: @escaping @Sendable (String) -> Void) throws(StudioError)
        -> StudioServer
    {
        let session = try StudioSession.open(options)
        do throws(StudioError) {
            let token = try StudioAccess.newToken()
            // One job thread: the pack is changed by one request at a time, in the order they came.
            let listener: HTTPListener
            do throws(ListenError) {
                listener = try HTTPListener.start(
                    on: .tcp(host: options.host, port: options.port), threads: 1,
                    site: StudioSite(
                        session: session, access: StudioAccess(token: token, listenHost: options.host), log: log))
            } catch {
                throw .listen(error)
            }
            // On every address, the page is opened through loopback's.
            let host = options.host == "0.0.0.0" || options.host == "::" ? "127.0.0.1" : options.host
            let shown = ServerAddress.tcp(host: host, port: listener.address.port ?? options.port)
            return StudioServer(url: "\(shown.httpURL)/?token=\(token)", session: session, listener: listener)
        } catch {
            session.close()
            throw error
        }
    }

    /// Blocks until the server is closed.
    public func waitUntilClosed() throws {
        try listener.waitUntilClosed()
    }

    /// Stops listening, closes every connection and waits for the threads to end.
    public func close() throws {
        try listener.close()
        session.close()
    }
}
