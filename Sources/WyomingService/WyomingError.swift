// SPDX-License-Identifier: GPL-3.0-or-later
import NetworkServer

/// What goes wrong serving Wyoming clients; each case names the input and what would be accepted.
public enum WyomingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--uri` is not a listening address.
    case invalidAddress(String)
    /// A header line with no newline within the limit.
    case headerTooLong(limit: Int)
    case dataTooLong(type: String, length: Int, limit: Int)
    case payloadTooLong(type: String, length: Int, limit: Int)
    /// A header line that is not a JSON object with a `type`, or whose lengths are not whole numbers.
    case malformedHeader(excerpt: String, reason: String)
    /// A data block that is not a JSON object.
    case malformedData(type: String)
    /// An event type a text-to-speech server does not take.
    case unknownEvent(type: String)
    /// An event without a field it needs.
    case missingField(type: String, field: String)
    /// A voice the server does not speak, by name or language.
    case unknownVoice(name: String?, language: String?, available: [String])
    /// `synthesize-chunk` or `synthesize-stop` without a `synthesize-start` before it.
    case noTextStream(type: String)
    /// A `select-program` naming another program than this server's.
    case unknownProgram(name: String, available: String)

    /// The events a client may send.
    public static let acceptedEvents = [
        "describe", "synthesize", "synthesize-start", "synthesize-chunk", "synthesize-stop", "ping", "select-program",
    ]

    /// `tcp://HOST:PORT` or `unix:///PATH`, as `--uri` takes it (`ServerAddress(uri:)`).
    ///
    /// - Throws: `.invalidAddress`.
    public static func address(_ uri: String) throws(WyomingError) -> ServerAddress {
        guard let address = ServerAddress(uri: uri) else { throw .invalidAddress(uri) }
        return address
    }

    public var description: String {
        switch self {
        case .invalidAddress(let uri):
            return "invalid address \"\(uri)\": expected tcp://HOST:PORT (tcp://0.0.0.0:10200) or unix:///PATH"
        case .headerTooLong(let limit):
            return "event header longer than \(limit) bytes without a newline; expected one JSON line per event"
        case .dataTooLong(let type, let length, let limit):
            return "\(type) event data of \(length) bytes; at most \(limit) are accepted"
        case .payloadTooLong(let type, let length, let limit):
            return "\(type) event payload of \(length) bytes; at most \(limit) are accepted"
        case .malformedHeader(let excerpt, let reason):
            return "malformed event header \"\(excerpt)\": \(reason)"
        case .malformedData(let type): return "malformed \(type) event data: expected a JSON object"
        case .unknownEvent(let type):
            return "unknown event type \"\(type)\"; expected \(Self.acceptedEvents.joined(separator: ", "))"
        case .missingField(let type, let field): return "\(type) event without \"\(field)\""
        case .unknownVoice(let name, let language, let available):
            let asked = name.map { "voice \"\($0)\"" } ?? "a voice for language \"\(language ?? "")\""
            return "this server has no \(asked); its voices: \(available.joined(separator: ", "))"
        case .noTextStream(let type): return "\(type) without synthesize-start before it"
        case .unknownProgram(let name, let available):
            return "no program \"\(name)\"; this server's text-to-speech program is \"\(available)\""
        }
    }

    /// The `code` of the error event sent to the client.
    var code: String {
        switch self {
        case .invalidAddress: return "invalid-address"
        case .headerTooLong, .dataTooLong, .payloadTooLong: return "too-long"
        case .malformedHeader, .malformedData: return "malformed-event"
        case .unknownEvent: return "unknown-event"
        case .missingField: return "missing-field"
        case .unknownVoice: return "unknown-voice"
        case .noTextStream: return "no-text-stream"
        case .unknownProgram: return "unknown-program"
        }
    }
}
