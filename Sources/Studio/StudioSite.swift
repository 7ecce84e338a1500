import HTTPService
import NIOCore
import NIOHTTP1
import SpeechCore
import Voicebank

/// The studio's routes: the page and its files, and the API the page calls.
///
/// | route | answer |
/// |---|---|
/// | `GET /?token=T` | the page |
/// | `GET /studio.js`, `/studio.css`, `/recorder.js` | the page's files |
/// | `GET /api/state` | every prompt with its takes, and the coverage of the texts |
/// | `POST /api/pages` | registers a page just loaded: it records from now on, and older pages may only read |
/// | `POST /api/recordings` | starts a take sent in pieces while it is recorded, replacing the one in progress |
/// | `POST /api/recordings/ID?frame=F` | its next piece, from frame `F`, with a take's headers; converted as it comes |
/// | `POST /api/recordings/ID/end?frame=F` | the last piece, which may be empty: the recording has ended |
/// | `DELETE /api/recordings/ID` | drops the recording; nothing of it was in the pack |
/// | `POST /api/takes?prompt=ID[&position=P]` | keeps a take: raw samples, `X-Sample-Rate`, `X-Sample-Format: f32le` |
/// | `POST /api/takes?prompt=ID[&position=P]&recording=R` | keeps the recording `R` that has ended, with no body |
/// | `POST /api/takes/check[?recording=R]` | what keeping a take (or recording `R`) would be told of its loudness, and the frames it would play (`played`) |
/// | `DELETE /api/takes/ID` | discards a take |
/// | `POST /api/takes/ID/position?position=P` | tags a kept take with another position, or `none` |
/// | `GET /api/takes/ID/audio` | a take as it plays: trimmed, 22050 Hz, f32le |
/// | `GET /api/takes/ID/hearing` | what listening to a kept take found, once the listener got to it |
/// | `POST /api/texts` | adds a pasted text (`text/plain`): its coverage is shown, its missing words are prompts |
/// | `POST /api/listen` | renders a sentence (`text/plain`) with the pack as it stands |
/// | `GET /renders/ID.wav`, `/renders/ID.svg` | a render's audio and picture, for the page's audio and image |
///
/// Whatever touches the pack is a job: on the server's one job thread, so that one change is made at a time, and off
/// the event loop, which goes on reading requests meanwhile. A change (a recording, a take, a text) from a page that
/// a newer page has replaced (its `X-Studio-Page`) is refused in its job, so that it is judged after every page
/// registered before it, in the order the requests came.
final class StudioSite: HTTPSite {
    let session: StudioSession
    let access: StudioAccess
    let log: @Sendable (String) -> Void
    var limits: HTTPLimits { Self.limits }

    /// A take's body may be 32 MiB: nearly three minutes at 48 kHz.
    static let limits: HTTPLimits = {
        var limits = HTTPLimits()
        limits.maximumBodyBytes = 32 << 20
        limits.requestSeconds = 30
        return limits
    }()

    init(session: StudioSession, access: StudioAccess, log: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.access = access
        self.log = log
    }

    func admit(_ request: HTTPRequest) throws(APIError) {
        do throws(StudioError) { try access.check(request) } catch { throw apiError(for: error) }
    }

    func answer(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let method = request.head.method
        let path = request.path
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch (method, path) {
        case (.GET, "/"):
            return .body(
                .ok, PackageResources.index_html, contentType: "text/html; charset=utf-8",
                headers: Self.headers + Self.pageHeaders + [access.setCookie(port: request.localAddress?.port ?? 0)])
        case (.GET, let path) where Self.files[path] != nil:
            let file = Self.files[path]!
            return .body(.ok, file.bytes, contentType: file.type, headers: Self.headers)
        case (.POST, "/api/pages"):
            return job { [session] () throws(StudioError) in
                let (page, dropped) = session.openPage()
                return StudioAnswer(
                    status: .created, body: encodeJSON(page),
                    summary:
                        "page \(page.id) opened: it records from now on\(dropped.map { "; recording \($0), an older page's, dropped" } ?? "")"
                )
            }
        case (.GET, "/api/state"):
            return job { [session] () throws(StudioError) in
                let state = try session.state()
                return StudioAnswer(
                    body: encodeJSON(state),
                    summary:
                        "\(state.prompts.count) prompts, \(state.prompts.reduce(0) { $0 + $1.takes.count }) takes")
            }
        case (.POST, "/api/takes"):
            guard let promptID = request.queryParameters["prompt"] else {
                throw .invalid("the request names no prompt; expected POST /api/takes?prompt=ID")
            }
            // The prompt's own position unless the page says another; `none` for a take of no particular place.
            let position = try Self.position(request.queryParameters["position"])
            let recordingID = try Self.recording(request)
            let headers = request.head.headers
            let (type, format, rate) = (
                headers.first(name: "content-type"), headers.first(name: "x-sample-format"),
                headers.first(name: "x-sample-rate")
            )
            return change(request) { [session, log, body = request.body] () throws(StudioError) in
                let prompt = try session.prompt(id: promptID)
                let take: Clip
                if let recordingID {
                    take = try session.keep(
                        recordingID: recordingID, prompt: prompt, position: position ?? prompt.position)
                } else {
                    let upload = try TakeUpload(contentType: type, sampleFormat: format, sampleRate: rate, body: body)
                    take = try session.keep(upload, prompt: prompt, position: position ?? prompt.position)
                }
                let prompts = try session.promptStates(phraseKey: prompt.phraseKey)
                let number = prompts.first { $0.id == prompt.id }?.takes.count ?? 0
                try session.listen(to: take, name: "take \(number) of “\(prompt.readText)”") { hearing in
                    log(
                        "listened to take #\(take.id) \"\(take.phrase)\" in \(hearing.milliseconds ?? 0) ms: \(hearing.status.rawValue)\(hearing.heard.map { ", heard \"\($0.joined(separator: " "))\"" } ?? "")"
                    )
                }
                let change = StudioChange(
                    take: .init(take, hearing: session.listener.hearing(take: take.id)), prompts: prompts,
                    coverage: try session.coverage())
                return StudioAnswer(
                    status: .created, body: encodeJSON(change),
                    summary:
                        "kept take #\(take.id) of prompt \(prompt.id) \"\(prompt.text)\"\(take.position.map { " (\($0))" } ?? ""): \(take.source.sampleRate) Hz, \(Self.seconds(change.take.recordedSeconds)) s recorded, \(Self.seconds(change.take.seconds)) s kept"
                )
            }
        case (.POST, "/api/takes/check"):
            let recordingID = try Self.recording(request)
            let headers = request.head.headers
            let (type, format, rate) = (
                headers.first(name: "content-type"), headers.first(name: "x-sample-format"),
                headers.first(name: "x-sample-rate")
            )
            return change(request) { [session, body = request.body] () throws(StudioError) in
                let upload =
                    if let recordingID { try session.recordedTake(id: recordingID) } else {
                        try TakeUpload(contentType: type, sampleFormat: format, sampleRate: rate, body: body)
                    }
                let check = try session.loudnessCheck(upload)
                return StudioAnswer(
                    body: encodeJSON(check),
                    summary:
                        "checked a take of \(Self.seconds(Double(upload.samples.count) / Double(upload.sampleRate))) s: \(check.message == nil ? "fine" : "stands out")"
                )
            }
        case (.POST, "/api/recordings"):
            let read = Self.piece(request)
            return change(request) { [session] () throws(StudioError) in
                let state = try session.startRecording(try read())
                return StudioAnswer(
                    status: .created, body: encodeJSON(state),
                    summary: "started recording \(state.id) at \(state.sampleRate) Hz with \(state.frames) frames")
            }
        case (.POST, _)
        where parts.count >= 3 && parts.count <= 4 && parts[0] == "api" && parts[1] == "recordings"
            && (parts.count == 3 || parts[3] == "end"):
            let isLast = parts.count == 4
            guard let text = request.queryParameters["frame"], let frame = Int(text), frame >= 0 else {
                throw apiError(
                    for: StudioError.recordingRequest(
                        reason:
                            "a piece of a recording names no frame it starts at; expected POST \(path)?frame=F, F the frames sent before it"
                    ))
            }
            let read = Self.piece(request)
            return change(request) { [session, id = parts[2]] () throws(StudioError) in
                let piece = try read()
                let state = try session.appendToRecording(id: id, piece, frame: frame, isLast: isLast)
                return StudioAnswer(
                    body: encodeJSON(state),
                    summary:
                        "\(isLast ? "ended" : "added to") recording \(state.id): \(piece.samples.count) frames from frame \(frame), \(Self.seconds(Double(state.frames) / Double(state.sampleRate))) s in all"
                )
            }
        case (.DELETE, _) where parts.count == 3 && parts[0] == "api" && parts[1] == "recordings":
            return change(request) { [session, id = parts[2]] () throws(StudioError) in
                let state = try session.discardRecording(id: id)
                return StudioAnswer(
                    body: encodeJSON(state), summary: "discarded recording \(state.id) of \(state.frames) frames")
            }
        case (.POST, "/api/texts"):
            let type = request.head.headers.first(name: "content-type")
            guard type?.split(separator: ";").first.map({ String($0).trimmingSpaces.lowercased() }) == "text/plain"
            else { throw apiError(for: StudioError.textContentType(type)) }
            return change(request) { [session, body = request.body] () throws(StudioError) in
                let (text, added) = try session.addText(body)
                let change = StudioTextChange(
                    text: .init(text), addedPrompts: added.map(\.id), state: try session.state())
                return StudioAnswer(
                    status: .created, body: encodeJSON(change),
                    summary:
                        "added \(text.name), \(body.count) bytes: \(added.count) new prompt\(added.count == 1 ? "" : "s"), \(change.state.coverage?.summary ?? "")"
                )
            }
        case (.POST, "/api/listen"):
            let type = request.head.headers.first(name: "content-type")
            guard type?.split(separator: ";").first.map({ String($0).trimmingSpaces.lowercased() }) == "text/plain"
            else { throw apiError(for: StudioError.textContentType(type)) }
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw apiError(for: StudioError.listenText(reason: "it is not UTF-8 text"))
            }
            return job { [session] () throws(StudioError) in
                let render = try session.listen(text)
                return StudioAnswer(
                    status: .created, body: encodeJSON(render.summary),
                    summary:
                        "rendered \(text.utf8.count) bytes as render \(render.id): \(Self.seconds(render.summary.seconds)) s, \(render.fallbacks.count) fallback\(render.fallbacks.count == 1 ? "" : "s")"
                )
            }
        case (.GET, _) where parts.count == 2 && parts[0] == "renders":
            let name = parts[1]
            let isPicture = name.hasSuffix(".svg")
            guard isPicture || name.hasSuffix(".wav") else {
                throw apiError(for: StudioError.unknownRender(id: name))
            }
            return job { [session] () throws(StudioError) in
                let render = try session.render(id: String(name.dropLast(4)))
                return isPicture
                    ? StudioAnswer(
                        body: Array(render.svg.utf8), contentType: "image/svg+xml; charset=utf-8",
                        headers: Self.pictureHeaders, summary: "render \(render.id)'s picture")
                    : StudioAnswer(
                        body: render.wav, contentType: "audio/wav", summary: "render \(render.id)'s audio")
            }
        case (.DELETE, _) where parts.count == 3 && parts[0] == "api" && parts[1] == "takes":
            return change(request) { [session, id = parts[2]] () throws(StudioError) in
                let (take, prompts) = try session.discard(takeID: id)
                let change = StudioChange(
                    take: .init(take), prompts: try session.promptStates(phraseKey: take.phraseKey),
                    coverage: try session.coverage())
                return StudioAnswer(
                    body: encodeJSON(change),
                    summary:
                        "discarded take #\(take.id) of prompt \(prompts.map(\.id).joined(separator: ", ")) \"\(take.phrase)\""
                )
            }
        case (.POST, _) where parts.count == 4 && parts[0] == "api" && parts[1] == "takes" && parts[3] == "position":
            guard let chosen = try Self.position(request.queryParameters["position"]) else {
                throw .invalid(
                    "the request names no position; expected POST \(path)?position=P, P one of \(TakePosition.accepted) or none"
                )
            }
            return change(request) { [session, id = parts[2]] () throws(StudioError) in
                let take = try session.reposition(takeID: id, position: chosen)
                let change = StudioChange(
                    take: .init(take, hearing: session.listener.hearing(take: take.id)),
                    prompts: try session.promptStates(phraseKey: take.phraseKey), coverage: try session.coverage())
                return StudioAnswer(
                    body: encodeJSON(change),
                    summary:
                        "take #\(take.id) \"\(take.phrase)\" is now \(take.position?.rawValue ?? "of no position")")
            }
        case (.GET, _) where parts.count == 4 && parts[0] == "api" && parts[1] == "takes" && parts[3] == "hearing":
            // Not a job: it reads no pack, and a page asks it again and again while the listener works.
            guard let id = Int(parts[2]), let hearing = session.listener.hearing(take: id) else {
                throw apiError(for: StudioError.unknownTake(id: parts[2]))
            }
            return .body(.ok, encodeJSON(hearing), contentType: "application/json", headers: Self.headers)
        case (.GET, _) where parts.count == 4 && parts[0] == "api" && parts[1] == "takes" && parts[3] == "audio":
            return job { [session, id = parts[2]] () throws(StudioError) in
                let samples = try session.audio(takeID: id)
                var bytes: [UInt8] = []
                bytes.reserveCapacity(samples.count * 4)
                for sample in samples { withUnsafeBytes(of: sample.bitPattern.littleEndian) { bytes += $0 } }
                return StudioAnswer(
                    body: bytes, contentType: "application/octet-stream",
                    headers: [
                        ("x-sample-rate", "\(RenderFormat.sampleRate)"), ("x-sample-format", TakeUpload.sampleFormat),
                    ],
                    summary: "take #\(id), \(samples.count) frames")
            }
        case (_, _)
        where [
            "/", "/api/state", "/api/pages", "/api/takes", "/api/takes/check", "/api/texts", "/api/listen",
            "/api/recordings",
        ].contains(path)
            || Self.files[path] != nil:
            throw APIError(
                status: .methodNotAllowed, type: "invalid_request_error",
                message:
                    "\(method) is not a method of \(path); expected \(["/api/pages", "/api/takes", "/api/takes/check", "/api/texts", "/api/listen", "/api/recordings"].contains(path) ? "POST" : "GET")"
            )
        default:
            throw APIError(
                status: .notFound, type: "not_found_error",
                message:
                    "no endpoint \(method) \(path); expected GET /, GET /api/state, POST /api/pages, POST /api/takes?prompt=ID, POST /api/recordings, POST /api/recordings/ID?frame=F, POST /api/recordings/ID/end?frame=F, DELETE /api/recordings/ID, DELETE /api/takes/ID, POST /api/takes/ID/position?position=P, GET /api/takes/ID/audio, GET /api/takes/ID/hearing, POST /api/texts, POST /api/listen or GET /renders/ID.wav and .svg"
            )
        }
    }

    private func job(_ work: @escaping @Sendable () throws(StudioError) -> StudioAnswer) -> HTTPAnswer {
        .job(StudioJob(work: work))
    }

    /// A job that changes the pack or the studio's recording: refused, with nothing done, when it comes from a page
    /// that no longer records.
    private func change(_ request: HTTPRequest, _ work: @escaping @Sendable () throws(StudioError) -> StudioAnswer)
        -> HTTPAnswer
    {
        let page = request.head.headers.first(name: "x-studio-page")
        return job { [session] () throws(StudioError) in
            try session.checkPage(page)
            return try work()
        }
    }

    func apiError(for error: any Error) -> APIError {
        guard let error = error as? StudioError else {
            return APIError(status: .internalServerError, type: "server_error", message: "\(error)")
        }
        let message = error.description
        switch error {
        case .forbidden: return APIError(status: .forbidden, type: "permission_error", message: message)
        case .anotherPage: return APIError(status: .conflict, type: "page_error", message: message)
        case .unknownPrompt, .unknownTake, .unknownRender, .unknownRecording, .unknownPage:
            return APIError(status: .notFound, type: "not_found_error", message: message)
        case .takeFormat, .pastedText, .texts, .listenText, .recordingFormat, .recordingRequest:
            return .invalid(message)
        case .recordingTooLong:
            return APIError(status: .payloadTooLarge, type: "invalid_request_error", message: message)
        case .recordingOrder, .recordingEnded, .recordingInProgress:
            return APIError(status: .conflict, type: "invalid_request_error", message: message)
        case .render(.ssml), .render(.request): return .invalid(message)
        case .unsupportedContentType, .textContentType:
            return APIError(status: .unsupportedMediaType, type: "invalid_request_error", message: message)
        case .sameTake, .sameText: return APIError(status: .conflict, type: "invalid_request_error", message: message)
        case .voicebank(.busy):
            return APIError(status: .serviceUnavailable, type: "server_error", message: message)
        default: return APIError(status: .internalServerError, type: "server_error", message: message)
        }
    }

    func errorBody(_ error: APIError, uri: String) -> (bytes: [UInt8], contentType: String) {
        (error.jsonBody, "application/json")
    }

    /// The target without the token's value, which the log would otherwise keep.
    func logged(_ uri: String) -> String {
        guard let range = uri.firstRange(of: "token=") else { return uri }
        var logged = uri
        logged.replaceSubrange(
            range.upperBound..<(uri[range.upperBound...].firstIndex(of: "&") ?? uri.endIndex), with: "…")
        return logged
    }

    /// The page's files beside `index.html`.
    private static let files: [String: (bytes: [UInt8], type: String)] = [
        "/studio.js": (PackageResources.studio_js, "text/javascript; charset=utf-8"),
        "/recorder.js": (PackageResources.recorder_js, "text/javascript; charset=utf-8"),
        "/studio.css": (PackageResources.studio_css, "text/css; charset=utf-8"),
    ]

    /// On every answer that is not an error: nothing cached (the page and the pack change together), no type guessed,
    /// no address (with its token) sent on as a referrer.
    static let headers = [
        ("cache-control", "no-store"), ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"),
    ]

    /// The page loads nothing but its own files, runs no inline script, and is framed by no other page.
    private static let pageHeaders = [
        (
            "content-security-policy",
            "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("x-frame-options", "DENY"),
    ]

    /// A render's picture is drawn by its own style sheet, and runs nothing, opened on its own or not.
    private static let pictureHeaders = [
        ("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    ]

    /// The position a take is kept with, from the `position` query parameter: `nil` when it is absent (the prompt's
    /// own), `.some(nil)` for `none`.
    static func position(_ parameter: String?) throws(APIError) -> TakePosition?? {
        guard let parameter else { return nil }
        if parameter == "none" { return .some(nil) }
        guard let position = TakePosition(rawValue: parameter) else {
            throw .invalid("the position \"\(parameter)\" is not one; expected \(TakePosition.accepted) or none")
        }
        return position
    }

    /// The recording a keep or a loudness check names (`recording=R`), which sends no samples of its own: `nil` for
    /// a take sent whole.
    static func recording(_ request: HTTPRequest) throws(APIError) -> String? {
        guard let id = request.queryParameters["recording"] else { return nil }
        guard request.body.isEmpty else {
            throw .invalid(
                "the request names recording \(id) and sends \(request.body.count) bytes of samples too; expected one or the other"
            )
        }
        return id
    }

    /// Reads a piece of a recording from its headers and body, in a job: the samples are checked off the event loop.
    static func piece(_ request: HTTPRequest) -> @Sendable () throws(StudioError) -> TakeUpload {
        let headers = request.head.headers
        let (type, format, rate, body) = (
            headers.first(name: "content-type"), headers.first(name: "x-sample-format"),
            headers.first(name: "x-sample-rate"), request.body
        )
        return { () throws(StudioError) in
            try TakeUpload(contentType: type, sampleFormat: format, sampleRate: rate, body: body, isEmptyAllowed: true)
        }
    }

    /// `1.23`.
    static func seconds(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

/// What a job answers, and what the log says of it.
struct StudioAnswer: Sendable {
    var status: HTTPResponseStatus = .ok
    var body: [UInt8]
    var contentType = "application/json"
    var headers: [(String, String)] = []
    var summary: String
}

/// A take kept or discarded: the take, the prompts of its phrase as they are now (one for each position the script has
/// it for), and the coverage of the texts.
struct StudioChange: Encodable, Sendable {
    var take: StudioState.Take
    var prompts: [StudioState.PromptState]
    var coverage: StudioState.Coverage?
}

/// A text pasted: the text, the ids of the prompts it added to the script, and the whole state after it.
struct StudioTextChange: Encodable, Sendable {
    var text: StudioState.TextState
    var addedPrompts: [String]
    var state: StudioState
}

/// One request's work on the pack, answered whole. A take's import runs to its end once begun: the page's going
/// does not undo a kept take, so there is nothing to cancel.
final class StudioJob: HTTPAnswerJob, @unchecked Sendable {
    // @unchecked Sendable: `summaryText` is written by `step` and read by `summary` after it, never at once (see
    // `HTTPAnswerJob`).
    private let work: @Sendable () throws(StudioError) -> StudioAnswer
    private var summaryText = ""

    init(work: @escaping @Sendable () throws(StudioError) -> StudioAnswer) { self.work = work }

    func step(allocator: ByteBufferAllocator) throws -> HTTPAnswerStep {
        let answer = try work()
        summaryText = answer.summary
        return HTTPAnswerStep(
            bytes: allocator.buffer(bytes: answer.body), isComplete: true, status: answer.status,
            contentType: answer.contentType, contentLength: answer.body.count,
            headers: StudioSite.headers + answer.headers)
    }

    func cancel() {}
    func end() {}

    func summary(byteCount: Int, milliseconds: Int64) -> String { "\(summaryText) in \(milliseconds) ms" }
}
