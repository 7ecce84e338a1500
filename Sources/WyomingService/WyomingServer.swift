// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import NIOCore
import NIOPosix
import NetworkServer
import SpeechCore

/// A Wyoming text-to-speech server speaking with the voices of one pack, or of the default and every installed pack
/// (`VoiceCatalog`): what Home Assistant's Wyoming integration and other Wyoming clients connect to.
///
/// Any number of clients at once. Each connection's events are read and its audio written on one event loop
/// thread; renders run on a pool of threads (one per core by default), a 100 ms chunk per step, and the next
/// chunk is rendered only once the client has taken the last (the channel is writable), so a slow client holds
/// back its own render and no one else's.
///
/// ```swift
/// let server = try WyomingServer.start(address: .tcp(host: "127.0.0.1", port: 10200), bank: "my.sqlite") {
///     print($0)   // one line per request, warnings, faults
/// }
/// try server.waitUntilClosed()
/// ```
public final class WyomingServer: Sendable {
    /// Where the server listens; a TCP port asked as 0 is the one the system chose.
    public var address: ServerAddress { listener.address }
    /// The packs whose voices it speaks.
    public let packPaths: [String]
    private let listener: ServerListener

    private init(packPaths: [String], listener: ServerListener) {
        self.packPaths = packPaths
        self.listener = listener
    }

    /// Opens the packs read-only, listens on `address` and serves until `close()`.
    ///
    /// - Parameters:
    ///   - bank: the pack whose voices it speaks; with none, those of the default and every installed pack
    ///     (`VoiceCatalog`), a pack that cannot be opened left out with a warning in the log.
    ///   - renderThreads: renders that run at once; more requests than that wait for a thread.
    ///   - log: told one line per request and per fault, from any thread.
    /// - Throws: `ListenError`; `ConcatSynthError` when the pack cannot be opened or has no voice (with no `bank`, when
    ///   no pack has a voice that can be spoken).
    public static func start(
        address: ServerAddress, bank: String?, renderThreads: Int = System.coreCount,
        limits: WyomingLimits = WyomingLimits(), log: @escaping @Sendable (String) -> Void
    ) throws -> WyomingServer {
        // Each pack is opened here, so one that cannot be read fails the start, not the first request.
        let pools = try SynthesizerPools(VoiceCatalog(bank: bank))
        for warning in pools.warnings { log("warning: \(warning)") }
        let service = WyomingService(pools: pools, limits: limits, log: log)
        let listener = try ServerListener.start(on: address, jobThreads: renderThreads) { channel, client, threadPool in
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(WyomingEventDecoder(limits: limits)))
            try channel.pipeline.syncOperations.addHandler(
                WyomingConnection(
                    service: service, threadPool: threadPool, name: Self.clientName(client, channel.remoteAddress)))
        }
        return WyomingServer(packPaths: pools.packPaths, listener: listener)
    }

    /// The line the log starts with once the server listens: `listening on tcp://127.0.0.1:10200 with the voices of
    /// PACK`, which scripts wait for.
    public var listeningLine: String {
        listener.listeningLine(detail: "with the voices of \(packPaths.joined(separator: ", "))")
    }

    private static func clientName(_ number: Int, _ address: SocketAddress?) -> String {
        switch address {
        case .v4(let v4)?: return "client \(number) (\(v4.host):\(address?.port ?? 0))"
        case .v6(let v6)?: return "client \(number) ([\(v6.host)]:\(address?.port ?? 0))"
        default: return "client \(number)"
        }
    }

    /// Blocks until the server is closed.
    public func waitUntilClosed() throws {
        try listener.waitUntilClosed()
    }

    /// Stops listening, closes every connection and waits for the threads to end.
    public func close() throws {
        try listener.close()
    }
}

/// What every connection of a server shares: the voices and their packs' synthesizers, the limits, the log.
final class WyomingService: Sendable {
    let pools: SynthesizerPools
    let limits: WyomingLimits
    let log: @Sendable (String) -> Void
    /// The answer to `describe`, made once.
    let info: WyomingEvent

    /// The name of the text-to-speech program in `info`, which `select-program` may name.
    static let programName = "concat-synth"

    init(
        pools: SynthesizerPools, limits: WyomingLimits, log: @escaping @Sendable (String) -> Void
    ) {
        self.pools = pools
        self.limits = limits
        self.log = log
        info = WyomingEvent(type: "info", data: Self.info(pools))
    }

    /// Each voice with its attribution (the pack manifest's for it, else the voice's name) and version, as piper's
    /// server gives its voice files' (Wyoming's `version` is a string).
    private static func info(_ pools: SynthesizerPools) -> JSONValue {
        let voiceList: [JSONValue] = pools.voices.map { voice in
            let settings = voice.settings
            return .object([
                "name": .string(settings.identifier),
                "description": .string(settings.name),
                "attribution": .object([
                    "name": .string(voice.attribution ?? settings.name), "url": .string(voice.pack.url ?? ""),
                ]),
                "installed": .bool(true),
                "version": voice.pack.version.map(JSONValue.string) ?? .null,
                "languages": .array(settings.supportedLanguages.map(JSONValue.string)),
                "speakers": .null,
            ])
        }
        let program: JSONValue = .object([
            "name": .string(programName),
            "description": .string("Recorded phrase clips from \(pools.packPaths.joined(separator: ", "))"),
            "attribution": .object(["name": .string("concat-synth"), "url": .string("")]),
            "installed": .bool(true),
            "version": .null,
            "voices": .array(voiceList),
            "supports_synthesize_streaming": .bool(true),
        ])
        return .object([
            "asr": .array([]), "tts": .array([program]), "handle": .array([]), "intent": .array([]),
            "wake": .array([]), "mic": .array([]), "snd": .array([]),
        ])
    }

    /// The voice a request's `voice` field asks for: by `name` (a voice's identifier, or its name), else by
    /// `language` (`en-US`, `en_US` or `en`); the first voice when it asks for neither.
    ///
    /// - Throws: `WyomingError.unknownVoice` naming the voices served.
    func voice(for field: JSONValue?) throws(WyomingError) -> SynthesizerPools.Voice {
        let name = field?["name"]?.string
        let language = field?["language"]?.string
        let found: SynthesizerPools.Voice?
        switch (name, language) {
        case (let name?, _): found = pools.voice(named: name)
        case (nil, let language?): found = pools.voice(language: language)
        case (nil, nil): found = pools.voices[0]
        }
        guard let found else {
            throw .unknownVoice(name: name, language: language, available: pools.voices.map(\.settings.identifier))
        }
        return found
    }
}
