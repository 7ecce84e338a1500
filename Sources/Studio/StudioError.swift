// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import HTTPService
import NetworkServer
import Playback
import Verbalization
import Voicebank
import VoicebankAuthoring

/// What can go wrong in the studio: starting it (its script and texts), each request of its page, and the sound
/// devices of `voicebank record`.
public enum StudioError: Error, Sendable, CustomStringConvertible {
    /// A prompt file or texts file that cannot be read.
    case unreadableFile(path: String, reason: String)
    /// A line of a prompt file the studio cannot take.
    case promptLine(path: String, line: Int, reason: String)
    /// Nothing to record: the texts are covered, or the prompt file has no prompt.
    case noPrompts(reason: String)
    /// A `--texts` file the planner refuses (malformed SSML, say).
    case texts(path: String, error: ConcatSynthError)
    /// The random token could not be read from /dev/urandom.
    case noRandomness(reason: String)
    /// A request without this studio's token, Host or Origin: `reason` says which.
    case forbidden(reason: String)
    case unknownPrompt(id: String, count: Int)
    /// A clip id that is not a take of one of the script's prompts.
    case unknownTake(id: String)
    /// A take's body that is not raw samples as its headers announced them: `reason` says what is wrong.
    case takeFormat(reason: String)
    case unsupportedContentType(String?)
    /// An id that is not the recording in progress: never started, replaced by a newer one, kept or discarded.
    case unknownRecording(id: String)
    /// A piece of a recording in another format than the recording's start: `reason` says how.
    case recordingFormat(id: Int, reason: String)
    /// A piece that does not start at the frame where the recording's samples end.
    case recordingOrder(id: Int, frame: Int, expected: Int)
    /// A piece that would take a recording past the bytes a take may have.
    case recordingTooLong(id: Int, byteCount: Int, sampleRate: Int)
    /// A piece of a recording that has ended.
    case recordingEnded(id: Int)
    /// A recording checked or kept before its end.
    case recordingInProgress(id: Int)
    /// A request that names a recording and sends samples too, or a piece without its frame: `reason` says which.
    case recordingRequest(reason: String)
    /// A change from a page that no longer records: another page of the studio was opened since `since` (`12:03:11`).
    case anotherPage(since: String)
    /// An `X-Studio-Page` that names no page the studio registered.
    case unknownPage(id: String)
    /// The same audio is a take of the prompt already.
    case sameTake(clipID: Int, phrase: String)
    case voicebank(VoicebankError)
    /// A take the import or removal could not make or remove (its audio, its phrase).
    case authoring(AuthoringError)
    case audio(AudioIOError)
    case coverage(ConcatSynthError)
    /// The server could not make its folder for takes.
    case server(HTTPServiceError)
    /// The server could not listen on its address.
    case listen(ListenError)
    /// A sound device of `voicebank record` that does not open or fails.
    case device(PlaybackError)
    /// `--words` for a voice whose language has no words (`Verbalizer.supportedLanguages`).
    case noWords(voice: String, language: String)
    /// A text pasted into the page that the studio cannot take: `reason` says why.
    case pastedText(reason: String)
    /// The same text was pasted already.
    case sameText(name: String)
    case textContentType(String?)
    /// A sentence to listen to that the studio does not render: `reason` says why.
    case listenText(reason: String)
    /// A sentence to listen to that the engine could not render.
    case render(ConcatSynthError)
    case unknownRender(id: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason); expected a readable text file"
        case .promptLine(let path, let line, let reason):
            return
                "\(path) line \(line): \(reason); expected one phrase a line, or an id, a tab and the phrase (piper-recording-studio's prompts)"
        case .noPrompts(let reason):
            return "nothing to record: \(reason)"
        case .texts(let path, let error):
            return "\(path): \(error)"
        case .noRandomness(let reason):
            return "cannot read a random token from /dev/urandom: \(reason)"
        case .forbidden(let reason):
            return reason
        case .unknownPrompt(let id, let count):
            return
                "no prompt \"\(id)\" in this studio's script; expected the id of one of its \(count) prompts (GET /api/state)"
        case .unknownTake(let id):
            return "no take \(id) of a prompt of this studio; expected a take id that GET /api/state lists"
        case .takeFormat(let reason):
            return
                "the take is not audio the studio takes: \(reason); expected raw 32-bit float little-endian mono samples (X-Sample-Format: f32le) at the rate X-Sample-Rate names"
        case .unsupportedContentType(let type):
            return
                "a take sent as \(type.map { "\"\($0)\"" } ?? "no Content-Type") is not one the studio reads; expected Content-Type: application/octet-stream with raw samples"
        case .unknownRecording(let id):
            return
                "no recording \(id) in progress in this studio; expected the id POST /api/recordings answered, of the recording not yet kept, discarded or replaced by a newer one"
        case .recordingFormat(let id, let reason):
            return
                "a piece of recording \(id) is not in its format: \(reason); expected every piece at the rate and in the format its start named"
        case .recordingOrder(let id, let frame, let expected):
            return
                "a piece of recording \(id) starts at frame \(frame), but its samples end at frame \(expected); expected its pieces in order, each with frame=\(expected) for the next"
        case .recordingTooLong(let id, let byteCount, let sampleRate):
            return
                "recording \(id) would be \(byteCount) bytes with this piece, more than a take may have; expected at most \(TakeRecording.maximumBytes) bytes, \(TakeRecording.maximumBytes / 4 / sampleRate) s at \(sampleRate) Hz"
        case .recordingEnded(let id):
            return
                "recording \(id) has ended; expected a piece of the recording in progress, or POST /api/recordings to start another"
        case .recordingInProgress(let id):
            return
                "recording \(id) is still in progress; expected POST /api/recordings/\(id)/end before it is checked or kept"
        case .recordingRequest(let reason):
            return reason
        case .anotherPage(let since):
            return "the studio is open in another page since \(since); press Use here to record in this one"
        case .unknownPage(let id):
            return
                "no page \"\(id)\" of this studio; expected X-Studio-Page with the id POST /api/pages answered the page"
        case .sameTake(let clipID, let phrase):
            return "the same audio is take #\(clipID) of \"\(phrase)\" already; expected a new recording"
        case .voicebank(let error):
            return error.description
        case .authoring(let error):
            return error.description
        case .audio(let error):
            return error.description
        case .coverage(let error):
            return error.description
        case .server(let error):
            return error.description
        case .listen(let error):
            return error.description
        case .device(let error):
            return error.description
        case .noWords(let voice, let language):
            return
                "no words to list for voice \(voice), whose language is \(language.isEmpty ? "not given" : language); expected a voice in one of \(Verbalizer.supportedLanguages.joined(separator: ", "))"
        case .pastedText(let reason):
            return
                "the pasted text cannot be added: \(reason); expected plain text or SSML in UTF-8, at most \(StudioPrompts.largestPastedText) bytes"
        case .sameText(let name):
            return "the same text is \(name) already; expected another text"
        case .listenText(let reason):
            return
                "the sentence cannot be rendered: \(reason); expected plain text or SSML in UTF-8, at most \(StudioRenders.largestText) bytes"
        case .render(let error):
            return error.description
        case .unknownRender(let id):
            return
                "no render \(id) in this studio; expected one of the last \(StudioRenders.keptCount) that POST /api/listen made"
        case .textContentType(let type):
            return
                "a text sent as \(type.map { "\"\($0)\"" } ?? "no Content-Type") is not one the studio reads; expected Content-Type: text/plain; charset=utf-8"
        }
    }
}
