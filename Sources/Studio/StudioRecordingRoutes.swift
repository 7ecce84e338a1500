// SPDX-License-Identifier: GPL-3.0-or-later
import HTTPService

/// The routes of a take sent in pieces while it is recorded: start it, add a piece, end it, drop it.
extension StudioSite {
    func startRecording(_ request: HTTPRequest) -> HTTPAnswer {
        let read = Self.upload(request, isEmptyAllowed: true)
        return change(request) { [session] () throws(StudioError) in
            let state = try session.recordings.start(try read())
            return StudioAnswer(
                status: .created, body: encodeJSON(state),
                summary: "started recording \(state.id) at \(state.sampleRate) Hz with \(state.frames) frames")
        }
    }

    func appendToRecording(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        try piece(request, isLast: false)
    }

    func endRecording(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        try piece(request, isLast: true)
    }

    func discardRecording(_ request: HTTPRequest) -> HTTPAnswer {
        change(request) { [session, id = request.parameters["id"] ?? ""] () throws(StudioError) in
            let state = try session.recordings.discard(id: id)
            return StudioAnswer(
                body: encodeJSON(state), summary: "discarded recording \(state.id) of \(state.frames) frames")
        }
    }

    private func piece(_ request: HTTPRequest, isLast: Bool) throws(APIError) -> HTTPAnswer {
        guard let text = request.queryParameters["frame"], let frame = Int(text), frame >= 0 else {
            throw apiError(
                for: StudioError.recordingRequest(
                    reason:
                        "a piece of a recording names no frame it starts at; expected POST \(request.path)?frame=F, F the frames sent before it"
                ))
        }
        let read = Self.upload(request, isEmptyAllowed: true)
        return change(request) { [session, id = request.parameters["id"] ?? ""] () throws(StudioError) in
            let piece = try read()
            let state = try session.recordings.append(id: id, piece, frame: frame, isLast: isLast)
            return StudioAnswer(
                body: encodeJSON(state),
                summary:
                    "\(isLast ? "ended" : "added to") recording \(state.id): \(piece.samples.count) frames from frame \(frame), \(Self.seconds(Double(state.frames) / Double(state.sampleRate))) s in all"
            )
        }
    }

    /// Reads a take or a piece of a recording from the request's headers and body, in a job: the samples are checked
    /// off the event loop.
    static func upload(_ request: HTTPRequest, isEmptyAllowed: Bool = false)
        -> @Sendable () throws(StudioError)
        -> TakeUpload
    {
        let headers = request.head.headers
        let (type, format, rate, body) = (
            headers.first(name: "content-type"), headers.first(name: "x-sample-format"),
            headers.first(name: "x-sample-rate"), request.body
        )
        return { () throws(StudioError) in
            try TakeUpload(
                contentType: type, sampleFormat: format, sampleRate: rate, body: body, isEmptyAllowed: isEmptyAllowed)
        }
    }
}
