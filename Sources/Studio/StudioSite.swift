// SPDX-License-Identifier: GPL-3.0-or-later
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
/// | `GET /studio.css`, `/studio.js`, `/modules/NAME.js`, `/recorder.js` | the page's files: its style sheet, its script and the modules it imports, its capture worklet |
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
/// | `GET /api/takes/ID/alignment` | what aligning a kept take to its words and phones came to, once it is done |
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

    static let routes = RouteTable<StudioSite>(
        [Route(.GET, "/", StudioSite.page)] + StudioFiles.all.map(StudioSite.fileRoute) + [
            Route(.GET, "/api/state", StudioSite.state),
            Route(.POST, "/api/pages", StudioSite.openPage),
            Route(.POST, "/api/recordings", StudioSite.startRecording),
            Route(.POST, "/api/recordings/:id", StudioSite.appendToRecording),
            Route(.POST, "/api/recordings/:id/end", StudioSite.endRecording),
            Route(.DELETE, "/api/recordings/:id", StudioSite.discardRecording),
            Route(.POST, "/api/takes", StudioSite.keep),
            Route(.POST, "/api/takes/check", StudioSite.checkTake),
            Route(.DELETE, "/api/takes/:id", StudioSite.discard),
            Route(.POST, "/api/takes/:id/position", StudioSite.reposition),
            Route(.GET, "/api/takes/:id/audio", StudioSite.takeAudio),
            Route(.GET, "/api/takes/:id/hearing", StudioSite.hearing),
            Route(.GET, "/api/takes/:id/alignment", StudioSite.alignment),
            Route(.POST, "/api/texts", StudioSite.addText),
            Route(.POST, "/api/listen", StudioSite.listen),
            Route(.GET, "/renders/:name", StudioSite.render),
        ])

    func admit(_ request: HTTPRequest) throws(APIError) {
        do throws(StudioError) { try access.check(request) } catch { throw apiError(for: error) }
    }

    func answer(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        try Self.routes.answer(request, site: self)
    }

    // MARK: The page and its files

    private func page(_ request: HTTPRequest) -> HTTPAnswer {
        .body(
            .ok, StudioFiles.page, contentType: "text/html; charset=utf-8",
            headers: Self.headers + Self.pageHeaders + [access.setCookie(port: request.localAddress?.port ?? 0)])
    }

    private static func fileRoute(_ file: StudioFiles.File) -> Route<StudioSite> {
        Route(.GET, PathPattern(file.path)) { _ in
            { _ in .body(.ok, file.bytes, contentType: file.contentType, headers: StudioSite.headers) }
        }
    }

    // MARK: What the page reads

    private func state(_ request: HTTPRequest) -> HTTPAnswer {
        job { [session] () throws(StudioError) in
            let state = try session.state()
            return StudioAnswer(
                body: encodeJSON(state),
                summary: "\(state.prompts.count) prompts, \(state.prompts.reduce(0) { $0 + $1.takes.count }) takes")
        }
    }

    private func openPage(_ request: HTTPRequest) -> HTTPAnswer {
        job { [session] () throws(StudioError) in
            let (page, dropped) = session.openPage()
            return StudioAnswer(
                status: .created, body: encodeJSON(page),
                summary:
                    "page \(page.id) opened: it records from now on\(dropped.map { "; recording \($0), an older page's, dropped" } ?? "")"
            )
        }
    }

    // MARK: Texts and Listen

    private func addText(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        try Self.requirePlainText(request)
        return change(request) { [session, body = request.body] () throws(StudioError) in
            let (text, added) = try session.prompts.addText(body)
            let change = StudioTextChange(text: .init(text), addedPrompts: added.map(\.id), state: try session.state())
            return StudioAnswer(
                status: .created, body: encodeJSON(change),
                summary:
                    "added \(text.name), \(body.count) bytes: \(added.count) new prompt\(added.count == 1 ? "" : "s"), \(change.state.coverage?.summary ?? "")"
            )
        }
    }

    private func listen(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        try Self.requirePlainText(request)
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
    }

    private func render(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let name = request.parameters["name"] ?? ""
        let isPicture = name.hasSuffix(".svg")
        guard isPicture || name.hasSuffix(".wav") else { throw apiError(for: StudioError.unknownRender(id: name)) }
        return job { [session] () throws(StudioError) in
            let render = try session.render(id: String(name.dropLast(4)))
            return isPicture
                ? StudioAnswer(
                    body: Array(render.svg.utf8), contentType: "image/svg+xml; charset=utf-8",
                    headers: Self.pictureHeaders, summary: "render \(render.id)'s picture")
                : StudioAnswer(body: render.wav, contentType: "audio/wav", summary: "render \(render.id)'s audio")
        }
    }

    /// A pasted text and a sentence to listen to are sent as `text/plain`.
    private static func requirePlainText(_ request: HTTPRequest) throws(APIError) {
        let type = request.head.headers.first(name: "content-type")
        guard type?.split(separator: ";").first.map({ String($0).trimmingSpaces.lowercased() }) == "text/plain" else {
            throw StudioSite.error(for: StudioError.textContentType(type))
        }
    }

    // MARK: Jobs

    func job(_ work: @escaping @Sendable () throws(StudioError) -> StudioAnswer) -> HTTPAnswer {
        .job(StudioJob(work: work))
    }

    /// A job that changes the pack or the studio's recording: refused, with nothing done, when it comes from a page
    /// that no longer records.
    func change(_ request: HTTPRequest, _ work: @escaping @Sendable () throws(StudioError) -> StudioAnswer)
        -> HTTPAnswer
    {
        let page = request.head.headers.first(name: "x-studio-page")
        return job { [session] () throws(StudioError) in
            try session.checkPage(page)
            return try work()
        }
    }

    // MARK: Errors and headers

    func apiError(for error: any Error) -> APIError { Self.error(for: error) }

    static func error(for error: any Error) -> APIError {
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

    /// `1.23`.
    static func seconds(_ value: Double) -> String {
        decimal(value, places: 2)
    }
}
