import ConcatSynth
import NIOHTTP1

/// The speech API's routes: OpenAI's and MaryTTS's endpoints, answering lists at once and speech as a job that renders
/// on the server's threads.
final class SpeechSite: HTTPSite {
    let pools: SynthesizerPools
    let limits: HTTPLimits
    let apiKey: String?
    let temporaryFolder: TemporaryFolder
    let log: @Sendable (String) -> Void

    init(
        pools: SynthesizerPools, limits: HTTPLimits, apiKey: String?, temporaryFolder: TemporaryFolder,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.pools = pools
        self.limits = limits
        self.apiKey = apiKey
        self.temporaryFolder = temporaryFolder
        self.log = log
    }

    /// Any head is read whole: a request without the key still gets its 401 on a connection kept alive.
    func admit(_ request: HTTPRequest) throws(APIError) {}

    func answer(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let head = request.head
        if let key = apiKey, head.headers.first(name: "authorization") != "Bearer \(key)" {
            throw APIError(
                status: .unauthorized, type: "authentication_error",
                message: "the request has no valid API key; expected the header Authorization: Bearer KEY")
        }
        switch (head.method, request.path) {
        case (.POST, "/v1/audio/speech"):
            return speak(try OpenAIAPI.order(body: request.body, voices: pools))
        case (.GET, "/v1/models"):
            return .body(.ok, encodeJSON(OpenAIAPI.ModelList()), contentType: "application/json")
        case (.GET, "/v1/audio/voices"):
            return .body(.ok, encodeJSON(OpenAIAPI.VoiceList(pools)), contentType: "application/json")
        case (.GET, "/process"), (.POST, "/process"):
            let encoded = head.method == .GET ? request.query : String(decoding: request.body, as: UTF8.self)
            return speak(try MaryAPI.order(parameters: HTTPRequest.formParameters(encoded), voices: pools))
        case (.GET, "/voices"):
            return .body(.ok, Array(MaryAPI.voiceLines(pools).utf8), contentType: "text/plain")
        case (.GET, "/locales"):
            return .body(.ok, Array(MaryAPI.localeLines(pools).utf8), contentType: "text/plain")
        case (.GET, "/version"):
            return .body(.ok, Array(MaryAPI.version.utf8), contentType: "text/plain")
        case (_, let path) where Self.methods[path] != nil:
            throw APIError(
                status: .methodNotAllowed, type: "invalid_request_error",
                message: "\(head.method) is not a method of \(path); expected \(Self.methods[path]!)")
        case (_, let path):
            throw APIError(
                status: .notFound, type: "not_found_error",
                message:
                    "no endpoint \(path); expected POST /v1/audio/speech, GET /v1/models, GET /v1/audio/voices, GET or POST /process, GET /voices, /locales or /version"
            )
        }
    }

    /// Each endpoint's methods, for a 405's message.
    private static let methods = [
        "/v1/audio/speech": "POST", "/v1/models": "GET", "/v1/audio/voices": "GET", "/process": "GET or POST",
        "/voices": "GET", "/locales": "GET", "/version": "GET",
    ]

    private func speak(_ order: SpeechOrder) -> HTTPAnswer {
        .job(
            HTTPSpeechJob(order: order, temporaryFolder: temporaryFolder, maximumFileSeconds: limits.maximumFileSeconds)
        )
    }

    /// A render's error as the client's fault (400: SSML, text, audio it named) or the server's (500: a pack that
    /// cannot be read).
    func apiError(for error: any Error) -> APIError {
        if let error = error as? APIError { return error }
        switch ConcatSynthError(error) {
        case .ssml, .request, .noFallbackClip, .audioDirectory, .fallbackInStrictMode, .voiceInSeveralPacks,
            .voiceNotInCatalog:
            return .invalid("\(ConcatSynthError(error))")
        case .noPack, .newerPack, .packBusy, .unusablePack, .damagedClip, .damagedVoice, .noVoice, .unknownVoice,
            .audio, .other:
            return APIError(status: .internalServerError, type: "server_error", message: "\(ConcatSynthError(error))")
        }
    }

    /// OpenAI's JSON under `/v1/`, a line of text for MaryTTS's endpoints.
    func errorBody(_ error: APIError, uri: String) -> (bytes: [UInt8], contentType: String) {
        uri.hasPrefix("/v1/")
            ? (error.jsonBody, "application/json") : (Array((error.message + "\n").utf8), "text/plain; charset=utf-8")
    }
}
