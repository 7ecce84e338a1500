// SPDX-License-Identifier: GPL-3.0-or-later
import HTTPService
import SpeechCore
import Voicebank

/// The routes of takes: keep one (sent whole, or a recording that has ended), check its loudness before keeping it,
/// discard one, tag it with another position, play it, and what listening to it and aligning it found.
extension StudioSite {
    func keep(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        guard let promptID = request.queryParameters["prompt"] else {
            throw .invalid("the request names no prompt; expected POST /api/takes?prompt=ID")
        }
        // The prompt's own position unless the page says another; `none` for a take of no particular place.
        let position = try Self.position(request.queryParameters["position"])
        let recordingID = try Self.recording(request)
        let upload = Self.upload(request)
        return change(request) { [session, log] () throws(StudioError) in
            let prompt = try session.prompts.prompt(id: promptID)
            let take: Clip
            if let recordingID {
                take = try session.takes.keep(
                    recordingID: recordingID, prompt: prompt, position: position ?? prompt.position)
            } else {
                take = try session.takes.keep(try upload(), prompt: prompt, position: position ?? prompt.position)
            }
            let prompts = try session.takes.promptStates(phraseKey: prompt.phraseKey)
            let number = prompts.first { $0.id == prompt.id }?.takes.count ?? 0
            try session.takes.listen(to: take, name: "take \(number) of “\(prompt.readText)”") { hearing in
                log(
                    "listened to take #\(take.id) \"\(take.phrase)\" in \(hearing.milliseconds ?? 0) ms: \(hearing.status.rawValue)\(hearing.heard.map { ", heard \"\($0.joined(separator: " "))\"" } ?? "")"
                )
            }
            session.takes.aligning.align(take: take.id, name: "take \(number) of “\(prompt.readText)”") { state in
                log("aligned take #\(take.id) \"\(take.phrase)\": \(state.status.rawValue)")
            }
            let change = StudioChange(
                take: session.takes.state(of: take), prompts: prompts, coverage: try session.prompts.coverage())
            return StudioAnswer(
                status: .created, body: encodeJSON(change),
                summary:
                    "kept take #\(take.id) of prompt \(prompt.id) \"\(prompt.text)\"\(take.position.map { " (\($0))" } ?? ""): \(take.source.sampleRate) Hz, \(Self.seconds(change.take.recordedSeconds)) s recorded, \(Self.seconds(change.take.seconds)) s kept"
            )
        }
    }

    func checkTake(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let recordingID = try Self.recording(request)
        let upload = Self.upload(request)
        return change(request) { [session] () throws(StudioError) in
            let upload =
                if let recordingID { try session.recordings.recordedTake(id: recordingID) } else { try upload() }
            let check = try session.takes.loudnessCheck(upload)
            return StudioAnswer(
                body: encodeJSON(check),
                summary:
                    "checked a take of \(Self.seconds(Double(upload.samples.count) / Double(upload.sampleRate))) s: \(check.message == nil ? "fine" : "stands out")"
            )
        }
    }

    func discard(_ request: HTTPRequest) -> HTTPAnswer {
        change(request) { [session, id = request.parameters["id"] ?? ""] () throws(StudioError) in
            let (take, prompts) = try session.takes.discard(takeID: id)
            let change = StudioChange(
                take: .init(take), prompts: try session.takes.promptStates(phraseKey: take.phraseKey),
                coverage: try session.prompts.coverage())
            return StudioAnswer(
                body: encodeJSON(change),
                summary:
                    "discarded take #\(take.id) of prompt \(prompts.map(\.id).joined(separator: ", ")) \"\(take.phrase)\""
            )
        }
    }

    func reposition(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        guard let chosen = try Self.position(request.queryParameters["position"]) else {
            throw .invalid(
                "the request names no position; expected POST \(request.path)?position=P, P one of \(TakePosition.accepted) or none"
            )
        }
        return change(request) { [session, id = request.parameters["id"] ?? ""] () throws(StudioError) in
            let take = try session.takes.reposition(takeID: id, position: chosen)
            let change = StudioChange(
                take: session.takes.state(of: take),
                prompts: try session.takes.promptStates(phraseKey: take.phraseKey),
                coverage: try session.prompts.coverage())
            return StudioAnswer(
                body: encodeJSON(change),
                summary: "take #\(take.id) \"\(take.phrase)\" is now \(take.position?.rawValue ?? "of no position")")
        }
    }

    /// Not a job: it reads no pack, and a page asks it again and again while the listener works.
    func hearing(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let id = request.parameters["id"] ?? ""
        guard let number = Int(id), let hearing = session.takes.listener.hearing(take: number) else {
            throw apiError(for: StudioError.unknownTake(id: id))
        }
        return .body(.ok, encodeJSON(hearing), contentType: "application/json", headers: Self.headers)
    }

    /// Not a job, as `hearing` is not.
    func alignment(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer {
        let id = request.parameters["id"] ?? ""
        guard let number = Int(id), let state = session.takes.aligning.state(take: number) else {
            throw apiError(for: StudioError.unknownTake(id: id))
        }
        return .body(.ok, encodeJSON(state), contentType: "application/json", headers: Self.headers)
    }

    func takeAudio(_ request: HTTPRequest) -> HTTPAnswer {
        job { [session, id = request.parameters["id"] ?? ""] () throws(StudioError) in
            let samples = try session.takes.audio(takeID: id)
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
    }

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
}
