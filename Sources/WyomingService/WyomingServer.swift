import ConcatSynth
import NIOCore
import NIOPosix
import SpeechCore
import Synchronization

/// A Wyoming text-to-speech server speaking with the voices of one pack, or of the default and every installed pack
/// (`VoiceCatalog`): what Home Assistant's Wyoming integration and other Wyoming clients connect to.
///
/// Any number of clients at once. Each connection's events are read and its audio written on one event loop
/// thread; renders run on a pool of threads (one per core by default), a 100 ms chunk per step, and the next
/// chunk is rendered only once the client has taken the last (the channel is writable), so a slow client holds
/// back its own render and no one else's.
///
/// ```swift
/// let server = try WyomingServer.start(address: WyomingAddress("tcp://127.0.0.1:10200"), bank: "my.sqlite") {
///     print($0)   // one line per request, warnings, faults
/// }
/// try server.waitUntilClosed()
/// ```
public final class WyomingServer: Sendable {
    /// Where the server listens; a TCP port asked as 0 is the one the system chose.
    public let address: WyomingAddress
    /// The packs whose voices it speaks.
    public let packPaths: [String]
    private let channel: Channel
    private let group: MultiThreadedEventLoopGroup
    private let threadPool: NIOThreadPool

    private init(
        address: WyomingAddress, packPaths: [String], channel: Channel, group: MultiThreadedEventLoopGroup,
        threadPool: NIOThreadPool
    ) {
        self.address = address
        self.packPaths = packPaths
        self.channel = channel
        self.group = group
        self.threadPool = threadPool
    }

    /// Opens the packs read-only, listens on `address` and serves until `close()`.
    ///
    /// - Parameters:
    ///   - bank: the pack whose voices it speaks; with none, those of the default and every installed pack
    ///     (`VoiceCatalog`), a pack that cannot be opened left out with a warning in the log.
    ///   - renderThreads: renders that run at once; more requests than that wait for a thread.
    ///   - log: told one line per request and per fault, from any thread.
    /// - Throws: `WyomingError.cannotListen`; `ConcatSynthError` when the pack cannot be opened or has no voice
    ///   (with no `bank`, when no pack has a voice that can be spoken).
    public static func start(
        address: WyomingAddress, bank: String?, renderThreads: Int = System.coreCount,
        limits: WyomingLimits = WyomingLimits(), log: @escaping @Sendable (String) -> Void
    ) throws -> WyomingServer {
        // Each pack is opened here, so one that cannot be read fails the start, not the first request.
        let pools = try SynthesizerPools(VoiceCatalog(bank: bank))
        for warning in pools.warnings { log("warning: \(warning)") }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threadPool = NIOThreadPool(numberOfThreads: max(1, renderThreads))
        threadPool.start()
        let service = WyomingService(pools: pools, threadPool: threadPool, limits: limits, log: log)
        let clientCount = ClientCounter()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let client = clientCount.next()
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(WyomingEventDecoder(limits: limits)))
                    try channel.pipeline.syncOperations.addHandler(
                        WyomingConnection(service: service, name: Self.clientName(client, channel.remoteAddress)))
                }
            }
        let channel: Channel
        do {
            switch address {
            case .tcp(let host, let port): channel = try bootstrap.bind(host: host, port: port).wait()
            case .unix(let path):
                channel = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
            }
        } catch {
            try? threadPool.syncShutdownGracefully()
            try? group.syncShutdownGracefully()
            throw WyomingError.cannotListen(address: address.description, reason: "\(error)")
        }
        var bound = address
        if case .tcp(let host, _) = address, let port = channel.localAddress?.port {
            bound = .tcp(host: host, port: port)
        }
        return WyomingServer(
            address: bound, packPaths: pools.packPaths, channel: channel, group: group, threadPool: threadPool)
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
        try channel.closeFuture.wait()
    }

    /// Stops listening, closes every connection and waits for the threads to end.
    public func close() throws {
        try? channel.close().wait()
        try group.syncShutdownGracefully()
        try threadPool.syncShutdownGracefully()
    }
}

/// Numbers the clients in the order they connect, for the log.
private final class ClientCounter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
}

/// What every connection of a server shares: the voices and their packs' synthesizers, the render threads, the log.
final class WyomingService: Sendable {
    let pools: SynthesizerPools
    let threadPool: NIOThreadPool
    let limits: WyomingLimits
    let log: @Sendable (String) -> Void
    /// The answer to `describe`, made once.
    let info: WyomingEvent

    /// The name of the text-to-speech program in `info`, which `select-program` may name.
    static let programName = "concat-synth"

    init(
        pools: SynthesizerPools, threadPool: NIOThreadPool, limits: WyomingLimits,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.pools = pools
        self.threadPool = threadPool
        self.limits = limits
        self.log = log
        info = WyomingEvent(type: "info", data: Self.info(pools))
    }

    /// Each voice with its pack's attribution (the manifest's, else the voice's name) and version, as piper's
    /// server gives its voice files' (Wyoming's `version` is a string).
    private static func info(_ pools: SynthesizerPools) -> JSONValue {
        let voiceList: [JSONValue] = pools.voices.map { voice in
            let settings = voice.settings
            return .object([
                "name": .string(settings.identifier),
                "description": .string(settings.name),
                "attribution": .object([
                    "name": .string(voice.pack.attribution ?? settings.name), "url": .string(voice.pack.url ?? ""),
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
