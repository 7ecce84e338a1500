// SPDX-License-Identifier: GPL-3.0-or-later
import JSONWriter
import NIOCore

#if canImport(FoundationEssentials)
    // JSONDecoder without the rest of Foundation (ICU), which would slow every command's start.
    import FoundationEssentials
#else
    import Foundation
#endif

/// Any JSON value: the `data` of a Wyoming event, whose fields depend on its type.
public enum JSONValue: Equatable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The value as an integer, when it is a number without a fraction.
    public var integer: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) < 1e15 else { return nil }
        return Int(number)
    }
}

/// One Wyoming event: its type, its data (the header's `data` merged with the data block that follows the
/// header) and its binary payload.
public struct WyomingEvent: Sendable {
    public var type: String
    public var data: JSONValue
    public var payload: ByteBuffer?

    public init(type: String, data: JSONValue = .object([:]), payload: ByteBuffer? = nil) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    /// The protocol version this server speaks: the `wyoming` package it was checked against.
    public static let protocolVersion = "1.10.2"

    /// A header line's fields: the event's type and the protocol's version, and the lengths of what follows.
    private struct Header: Encodable {
        var type: String
        var version = WyomingEvent.protocolVersion
        var dataLength: Int?
        var payloadLength: Int?

        enum CodingKeys: String, CodingKey {
            case type, version
            case dataLength = "data_length"
            case payloadLength = "payload_length"
        }
    }

    /// The event as it goes on the wire: a header line, then the data block (when there is data), then the
    /// payload.
    func encoded(dataBytes: [UInt8]?, allocator: ByteBufferAllocator) -> ByteBuffer {
        let payloadLength = payload.map(\.readableBytes) ?? 0
        let header =
            Self.json(
                Header(type: type, dataLength: dataBytes?.count, payloadLength: payloadLength > 0 ? payloadLength : nil)
            )
            + [UInt8(ascii: "\n")]
        var buffer = allocator.buffer(capacity: header.count + (dataBytes?.count ?? 0) + payloadLength)
        buffer.writeBytes(header)
        if let dataBytes { buffer.writeBytes(dataBytes) }
        if var payload { buffer.writeBuffer(&payload) }
        return buffer
    }

    /// The event on the wire, its data encoded as JSON (none when the data is an empty object).
    func encoded(allocator: ByteBufferAllocator) -> ByteBuffer {
        if case .object(let fields) = data, fields.isEmpty { return encoded(dataBytes: nil, allocator: allocator) }
        return encoded(dataBytes: Self.json(data), allocator: allocator)
    }

    static func json(_ value: some Encodable) -> [UInt8] {
        // A header, a JSONValue decoded from JSON or made of the server's strings and numbers, or a struct of
        // strings and numbers: nothing that can fail to encode.
        try! JSONWriter.bytes(value)
    }
}

/// The most a client may send at once; anything longer is refused before it is buffered.
public struct WyomingLimits: Sendable {
    /// Bytes of one header line, without its newline.
    public var headerBytes = 65_536
    /// Bytes of one event's data block.
    public var dataBytes = 1_048_576
    /// Bytes of one event's payload (a text-to-speech server is sent none it uses).
    public var payloadBytes = 1_048_576

    public init() {}
}

/// Reads Wyoming events from a byte stream: a JSON header line with `type`, optional `data`, `data_length` and
/// `payload_length`; then `data_length` bytes of JSON merged into `data`; then `payload_length` bytes of payload.
///
/// - Throws: `WyomingError.headerTooLong`, `.dataTooLong`, `.payloadTooLong`, `.malformedHeader`,
///   `.malformedData`; after one, the connection is closed.
struct WyomingEventDecoder: ByteToMessageDecoder {
    typealias InboundOut = WyomingEvent

    let limits: WyomingLimits
    /// The header read, waiting for its data and payload.
    private var pending: (type: String, data: [String: JSONValue], dataLength: Int, payloadLength: Int)?

    init(limits: WyomingLimits) { self.limits = limits }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if pending == nil {
            let scanned = buffer.readableBytesView.prefix(limits.headerBytes + 1)
            guard let newline = scanned.firstIndex(of: UInt8(ascii: "\n")) else {
                if scanned.count > limits.headerBytes { throw WyomingError.headerTooLong(limit: limits.headerBytes) }
                return .needMoreData
            }
            let line = buffer.readBytes(length: newline - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 1)
            pending = try header(line)
        }
        let (type, headerData, dataLength, payloadLength) = pending!
        guard buffer.readableBytes >= dataLength + payloadLength else { return .needMoreData }
        var data = headerData
        if dataLength > 0 {
            let bytes = buffer.readBytes(length: dataLength)!
            guard case .object(let fields) = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
                throw WyomingError.malformedData(type: type)
            }
            data.merge(fields) { _, new in new }
        }
        let payload = payloadLength > 0 ? buffer.readSlice(length: payloadLength) : nil
        pending = nil
        context.fireChannelRead(wrapInboundOut(WyomingEvent(type: type, data: .object(data), payload: payload)))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        // A client that closes mid-event has gone; what it sent of that event is dropped.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    private func header(_ line: [UInt8]) throws -> (String, [String: JSONValue], Int, Int) {
        let excerpt = String(decoding: line.prefix(80), as: UTF8.self)
        guard case .object(let header) = try? JSONDecoder().decode(JSONValue.self, from: Data(line)),
            let type = header["type"]?.string
        else {
            throw WyomingError.malformedHeader(excerpt: excerpt, reason: "expected a JSON object with a \"type\"")
        }
        var data: [String: JSONValue] = [:]
        switch header["data"] {
        case nil, .null: break
        case .object(let fields): data = fields
        default: throw WyomingError.malformedHeader(excerpt: excerpt, reason: "\"data\" must be an object")
        }
        func length(_ key: String, limit: Int, tooLong: (Int, Int) -> WyomingError) throws -> Int {
            guard let value = header[key], value != .null else { return 0 }
            guard let length = value.integer, length >= 0 else {
                throw WyomingError.malformedHeader(excerpt: excerpt, reason: "\"\(key)\" must be a whole number")
            }
            guard length <= limit else { throw tooLong(length, limit) }
            return length
        }
        let dataLength = try length("data_length", limit: limits.dataBytes) {
            .dataTooLong(type: type, length: $0, limit: $1)
        }
        let payloadLength = try length("payload_length", limit: limits.payloadBytes) {
            .payloadTooLong(type: type, length: $0, limit: $1)
        }
        return (type, data, dataLength, payloadLength)
    }
}
