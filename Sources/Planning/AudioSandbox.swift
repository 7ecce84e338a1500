// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decides which files `<audio src>` may play: only files inside directories the person allowed.
///
/// A relative `src` is looked for in each allowed directory in turn; an absolute one is taken as it is. Either
/// way the file's real path (symlinks and `..` resolved) must lie inside an allowed directory's real path.
/// URLs other than `file:` are never fetched.
///
/// Planning reads only a file's length (`measure`, given by whoever reads audio files); the renderer decodes
/// the file when the output reaches it.
public struct AudioSandbox: Sendable {
    /// Real paths of the allowed directories.
    public let directories: [String]
    /// The render-ready frame count of the file at a real path, or why it cannot be read.
    private let measure: @Sendable (String) -> Result<Int, AudioFileProblem>

    /// Why an audio file's length could not be read: one sentence from the audio reader.
    public struct AudioFileProblem: Error, Sendable {
        public var reason: String
        public init(reason: String) { self.reason = reason }
    }

    /// A file `<audio>` may play: its real path, and its length once converted to the render format.
    public struct AllowedFile: Equatable, Sendable {
        public var path: String
        public var frameCount: Int

        public init(path: String, frameCount: Int) {
            self.path = path
            self.frameCount = frameCount
        }
    }

    /// Why an `<audio>` element's file is not played.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case noDirectoryAllowed(source: String)
        case url(source: String)
        case outside(source: String, resolved: String)
        case missing(source: String)
        case unreadable(source: String, reason: String)

        public var description: String {
            switch self {
            case .noDirectoryAllowed(let source):
                return
                    "<audio src=\"\(source)\"> is not played: no audio directory is allowed; its fallback content is spoken"
            case .url(let source):
                return
                    "<audio src=\"\(source)\"> is not played: URLs are not fetched, only local files in an allowed directory; its fallback content is spoken"
            case .outside(let source, let resolved):
                return
                    "<audio src=\"\(source)\"> is not played: \(resolved) is outside the allowed directories; its fallback content is spoken"
            case .missing(let source):
                return
                    "<audio src=\"\(source)\"> is not played: no such file in the allowed directories; its fallback content is spoken"
            case .unreadable(let source, let reason):
                return "<audio src=\"\(source)\"> is not played: \(reason); its fallback content is spoken"
            }
        }
    }

    /// A sandbox that allows nothing: every `<audio>` speaks its fallback content.
    public static let closed = AudioSandbox(realDirectories: [], measure: { _ in .failure(.init(reason: "")) })

    private init(realDirectories: [String], measure: @escaping @Sendable (String) -> Result<Int, AudioFileProblem>) {
        directories = realDirectories
        self.measure = measure
    }

    /// - Parameter measure: the render-ready frame count of the file at a path, read without decoding it.
    /// - Throws: `PlanningError.audioDirectory` for a path that is not an existing directory.
    public init(
        allowing directories: [String], measure: @escaping @Sendable (String) -> Result<Int, AudioFileProblem>
    ) throws(PlanningError) {
        self.measure = measure
        self.directories = try directories.map { (directory) throws(PlanningError) -> String in
            guard let real = Self.realPath(directory), Self.isDirectory(real) else { throw .audioDirectory(directory) }
            return real
        }
    }

    /// The file `source` names, if it may play, and its render-ready length.
    public func resolve(_ source: String) -> Result<AllowedFile, Refusal> {
        guard !directories.isEmpty else { return .failure(.noDirectoryAllowed(source: source)) }
        var path = source
        if source.hasPrefix("file://") {
            path = String(source.dropFirst("file://".count))
        } else if source.contains("://") || source.hasPrefix("data:") {
            return .failure(.url(source: source))
        }
        let candidates = path.hasPrefix("/") ? [path] : directories.map { "\($0)/\(path)" }
        guard let resolved = candidates.lazy.compactMap(Self.realPath).first else {
            return .failure(.missing(source: source))
        }
        guard directories.contains(where: { resolved.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
            return .failure(.outside(source: source, resolved: resolved))
        }
        // Opening a FIFO with no writer would block the render forever, and a folder or device is no recording.
        guard Self.isRegularFile(resolved) else {
            return .failure(.unreadable(source: source, reason: "\(resolved) is not a regular file"))
        }
        switch measure(resolved) {
        case .success(let frameCount): return .success(AllowedFile(path: resolved, frameCount: frameCount))
        case .failure(let problem): return .failure(.unreadable(source: source, reason: problem.reason))
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isDirectory(_ path: String) -> Bool { fileType(path) == S_IFDIR }

    static func isRegularFile(_ path: String) -> Bool { fileType(path) == S_IFREG }

    private static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }
}
