// SPDX-License-Identifier: GPL-3.0-or-later
import HTTPService
import NIOCore
import NIOHTTP1

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
