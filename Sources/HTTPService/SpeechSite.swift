// SPDX-License-Identifier: GPL-3.0-or-later
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

    static let routes = RouteTable<SpeechSite>([
        Route(.POST, "/v1/audio/speech", SpeechSite.openAISpeech),
        Route(.GET, "/v1/models", SpeechSite.models),
        Route(.GET, "/v1/audio/voices", SpeechSite.openAIVoices),
        Route(.GET, "/process", SpeechSite.marySpeech),
        Route(.POST, "/process", SpeechSite.marySpeech),
        Route(.GET, "/voices", SpeechSite.maryVoices),
        Route(.GET, "/locales", SpeechSite.maryLocales),
        Route(.GET, "/version", SpeechSite.maryVersion),
    ])

    /// Any head is read whole: a request without the key still gets its 401 on a connection kept alive.
    func admit(_ request: HTTPRequest) throws(APIError) {}

    /// With an API key, every request must carry it, whatever its path, before the routes are looked at.
    func answer(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        if let key = apiKey, request.head.headers.first(name: "authorization") != "Bearer \(key)" {
            throw APIError(
                status: .unauthorized, type: "authentication_error",
                message: "the request has no valid API key; expected the header Authorization: Bearer KEY")
        }
        return try Self.routes.answer(request, site: self)
    }

    private func openAISpeech(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        speak(try OpenAIAPI.order(body: request.body, voices: pools))
    }

    private func models(_ request: HTTPRequest) -> HTTPAnswer {
        .body(.ok, encodeJSON(OpenAIAPI.ModelList()), contentType: "application/json")
    }

    private func openAIVoices(_ request: HTTPRequest) -> HTTPAnswer {
        .body(.ok, encodeJSON(OpenAIAPI.VoiceList(pools)), contentType: "application/json")
    }

    /// `GET /process?INPUT_TEXT=…`, or `POST /process` with the same parameters form-encoded.
    private func marySpeech(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let encoded = request.head.method == .GET ? request.query : String(decoding: request.body, as: UTF8.self)
        return speak(try MaryAPI.order(parameters: HTTPRequest.formParameters(encoded), voices: pools))
    }

    private func maryVoices(_ request: HTTPRequest) -> HTTPAnswer {
        .body(.ok, Array(MaryAPI.voiceLines(pools).utf8), contentType: "text/plain")
    }

    private func maryLocales(_ request: HTTPRequest) -> HTTPAnswer {
        .body(.ok, Array(MaryAPI.localeLines(pools).utf8), contentType: "text/plain")
    }

    private func maryVersion(_ request: HTTPRequest) -> HTTPAnswer {
        .body(.ok, Array(MaryAPI.version.utf8), contentType: "text/plain")
    }

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
