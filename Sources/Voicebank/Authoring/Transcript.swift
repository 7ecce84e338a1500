// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens
import Voicebank

/// Which phrase each audio file speaks, read from a transcript file.
///
/// Four formats, told apart by the extension (`.csv`, `.tsv`) or else by the first line:
/// - CSV with a header naming the columns `file` and `text` (RFC 4180: quotes, `""`, line breaks in quotes);
/// - TSV with a header `file<TAB>text`;
/// - `id|text` lines with no header, as LJSpeech's `metadata.csv` has them;
/// - `name: text` lines, where lines starting with `;` or `#` are comments.
///
/// Columns other than these are ignored, except in CSV and TSV an optional `role` column whose value `fallback` marks
/// the fallback clip (as in `voicebank/sources/en.tsv`; empty or `clip` is an ordinary clip), and an optional
/// `position` column tagging each take `initial`, `medial`, `final` or `question` (empty: untagged).
///
/// ```swift
/// let transcript = try Transcript(path: "clips/transcript.tsv")
/// let plan = try transcript.requests(for: ["clips/hello.aiff"])   // hello.aiff speaks "Hello there"
/// ```
public struct Transcript: Equatable, Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case csv = "CSV"
        case tsv = "TSV"
        case pipe = "id|text"
        case colon = "name: text"
    }

    /// One line (one record) of a transcript.
    public struct Line: Equatable, Sendable {
        /// The file as the transcript names it: `hello`, `hello.aiff`, `clips/hello.aiff`, `LJ001-0001`.
        public var file: String
        public var text: String
        public var isFallback: Bool
        /// The place in a sentence the take was recorded for; `nil` when the line gives none.
        public var position: TakePosition?
        /// 1-based, of the line the record starts on.
        public var lineNumber: Int

        public init(
            file: String, text: String, isFallback: Bool = false, position: TakePosition? = nil, lineNumber: Int
        ) {
            self.file = file
            self.text = text
            self.isFallback = isFallback
            self.position = position
            self.lineNumber = lineNumber
        }
    }

    public var path: String
    public var format: Format
    public var lines: [Line]

    static let expectedFormats =
        "expected a CSV with a header file,text, a TSV with a header file<TAB>text, id|text lines (LJSpeech), or name: text lines"

    /// Reads and parses the transcript at `path`.
    ///
    /// - Throws: `AuthoringError.fileSystem` when it cannot be read, `.transcript` naming the line when it
    ///   cannot be parsed.
    public init(path: String) throws(AuthoringError) {
        try self.init(parsing: try Files.readText(path), path: path)
    }

    /// Parses `content`; `path` names the transcript in errors and picks the format by its extension.
    ///
    /// - Throws: `AuthoringError.transcript` naming the line and what would be accepted.
    public init(parsing content: String, path: String) throws(AuthoringError) {
        self.path = path
        var text = content
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        let lowercasedPath = path.lowercased()
        if lowercasedPath.hasSuffix(".csv") && Self.looksLikePipe(text) {
            // LJSpeech calls its pipe-separated metadata `metadata.csv`.
            format = .pipe
        } else if lowercasedPath.hasSuffix(".csv") {
            format = .csv
        } else if lowercasedPath.hasSuffix(".tsv") {
            format = .tsv
        } else {
            format = try Self.detectFormat(text, path: path)
        }
        switch format {
        case .csv: lines = try Self.parseTable(Self.csvRecords(text, path: path), format: format, path: path)
        case .tsv: lines = try Self.parseTable(Self.tsvRecords(text), format: format, path: path)
        case .pipe: lines = try Self.parsePipe(text, path: path)
        case .colon: lines = try Self.parseColon(text, path: path)
        }
        var firstLine: [String: Int] = [:]
        for line in lines {
            let key = Self.normalizedName(line.file)
            if let first = firstLine[key] {
                throw .transcript(
                    path: path, line: line.lineNumber,
                    reason: "the file \(line.file) is listed again (first at line \(first)); expected each file once")
            }
            firstLine[key] = line.lineNumber
        }
    }

    // MARK: Formats

    private static func firstContentLine(_ text: String) -> String? {
        splitLines(text).map(\.text).first { line in
            let trimmed = line.trimmingSpaces
            return !trimmed.isEmpty && !trimmed.hasPrefix(";") && !trimmed.hasPrefix("#")
        }
    }

    private static func looksLikePipe(_ text: String) -> Bool {
        guard let first = firstContentLine(text) else { return false }
        return first.contains("|") && !csvFields(first).map({ $0.lowercased() }).contains("file")
    }

    private static func detectFormat(_ text: String, path: String) throws(AuthoringError) -> Format {
        guard let first = firstContentLine(text) else {
            throw .transcript(path: path, line: nil, reason: "it has no lines; \(expectedFormats)")
        }
        let tabFields = first.split(separator: "\t", omittingEmptySubsequences: false).map { $0.lowercased() }
        if tabFields.contains("file") && tabFields.contains("text") { return .tsv }
        let commaFields = csvFields(first).map { $0.trimmingSpaces.lowercased() }
        if commaFields.contains("file") && commaFields.contains("text") { return .csv }
        if first.contains("|") { return .pipe }
        if first.contains(":") { return .colon }
        throw .transcript(
            path: path, line: nil,
            reason: "cannot tell its format from the first line \"\(first.prefix(60))\"; \(expectedFormats)")
    }

    /// Lines split at LF, CRLF or CR, each with its 1-based number.
    private static func splitLines(_ text: String) -> [(number: Int, text: String)] {
        var lines: [(Int, String)] = []
        var current = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append((lines.count + 1, String(current)))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { lines.append((lines.count + 1, String(current))) }
        return lines
    }

    private static func tsvRecords(_ text: String) -> [(number: Int, fields: [String])] {
        splitLines(text).filter { !$0.text.isEmpty }.map {
            ($0.number, $0.text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init))
        }
    }

    /// The fields of one CSV line without line breaks, for telling the format.
    private static func csvFields(_ line: String) -> [String] {
        (try? csvRecords(line, path: ""))?.first?.fields ?? []
    }

    /// RFC 4180 records: fields separated by commas, a field in double quotes may hold commas, line breaks
    /// and `""` for a quote. Empty lines are skipped.
    private static func csvRecords(_ text: String, path: String) throws(AuthoringError) -> [(
        number: Int, fields: [String]
    )] {
        var records: [(Int, [String])] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var isQuoted = false
        var wasQuoted = false
        var afterQuote = false
        var scalars = Array(text.unicodeScalars)
        if scalars.last != "\n" && scalars.last != "\r" { scalars.append("\n") }
        var index = 0
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            wasQuoted = false
            afterQuote = false
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if isQuoted {
                if scalar == "\"" {
                    if index < scalars.count && scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        isQuoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" || (scalar == "\r" && (index >= scalars.count || scalars[index] != "\n")) {
                        line += 1
                    }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                endField()
            case "\r", "\n":
                if scalar == "\r" && index < scalars.count && scalars[index] == "\n" { index += 1 }
                if !(fields.isEmpty && field.isEmpty && !wasQuoted) {
                    endField()
                    records.append((recordLine, fields))
                }
                fields = []
                line += 1
                recordLine = line
            case "\"" where field.isEmpty && !wasQuoted:
                isQuoted = true
                wasQuoted = true
            default:
                if afterQuote {
                    throw .transcript(
                        path: path, line: line,
                        reason:
                            "text after a closing quote; expected a comma or the end of the line (write \"\" for a quote inside quotes)"
                    )
                }
                field.append(scalar)
            }
        }
        if isQuoted {
            throw .transcript(
                path: path, line: recordLine,
                reason: "a quote is never closed; expected a closing \" before the end of the file")
        }
        return records
    }

    /// Lines of a CSV or TSV whose first record is the header naming `file`, `text` and perhaps `role`.
    private static func parseTable(
        _ records: [(number: Int, fields: [String])], format: Format, path: String
    ) throws(AuthoringError) -> [Line] {
        let separator = format == .csv ? "," : "<TAB>"
        guard let header = records.first else {
            throw .transcript(
                path: path, line: nil, reason: "it is empty; expected a header file\(separator)text and a line per file"
            )
        }
        let names = header.fields.map { $0.trimmingSpaces.lowercased() }
        guard let fileColumn = names.firstIndex(of: "file"), let textColumn = names.firstIndex(of: "text") else {
            throw .transcript(
                path: path, line: header.number,
                reason:
                    "the header \"\(header.fields.joined(separator: format == .csv ? "," : "\t").prefix(60))\" names no file and text columns; expected a \(format.rawValue) header file\(separator)text"
            )
        }
        let roleColumn = names.firstIndex(of: "role")
        let positionColumn = names.firstIndex(of: "position")
        var lines: [Line] = []
        for record in records.dropFirst() {
            guard record.fields.count > max(fileColumn, textColumn) else {
                throw .transcript(
                    path: path, line: record.number,
                    reason:
                        "\(record.fields.count) column\(record.fields.count == 1 ? "" : "s"); expected file\(separator)text as the header says"
                )
            }
            let file = record.fields[fileColumn]
            guard !file.trimmingSpaces.isEmpty else {
                throw .transcript(
                    path: path, line: record.number, reason: "no file name; expected the audio file the line is about")
            }
            var isFallback = false
            if let roleColumn, roleColumn < record.fields.count {
                switch record.fields[roleColumn].trimmingSpaces.lowercased() {
                case "", "clip", "phrase": break
                case "fallback": isFallback = true
                case let role:
                    throw .transcript(
                        path: path, line: record.number,
                        reason: "unknown role \"\(role)\"; expected fallback, clip or nothing")
                }
            }
            var position: TakePosition?
            if let positionColumn, positionColumn < record.fields.count {
                let value = record.fields[positionColumn].trimmingSpaces.lowercased()
                if !value.isEmpty {
                    guard let tagged = TakePosition(rawValue: value) else {
                        throw .transcript(
                            path: path, line: record.number,
                            reason:
                                "unknown position \"\(value.prefix(30))\"; expected \(TakePosition.accepted) or nothing"
                        )
                    }
                    guard !isFallback else {
                        throw .transcript(
                            path: path, line: record.number,
                            reason:
                                "a fallback clip has no position, but this line gives \(value); expected no position")
                    }
                    position = tagged
                }
            }
            lines.append(
                Line(
                    file: file, text: record.fields[textColumn], isFallback: isFallback, position: position,
                    lineNumber: record.number))
        }
        return lines
    }

    private static func parsePipe(_ text: String, path: String) throws(AuthoringError) -> [Line] {
        var lines: [Line] = []
        for (number, line) in splitLines(text) where !line.trimmingSpaces.isEmpty {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count >= 2, !fields[0].isEmpty else {
                throw .transcript(
                    path: path, line: number,
                    reason: "\"\(line.prefix(60))\" is not id|text; expected an id, a | and the text")
            }
            lines.append(Line(file: String(fields[0]), text: String(fields[1]), lineNumber: number))
        }
        return lines
    }

    private static func parseColon(_ text: String, path: String) throws(AuthoringError) -> [Line] {
        var lines: [Line] = []
        for (number, line) in splitLines(text) {
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix(";") || trimmed.hasPrefix("#") { continue }
            guard let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex else {
                throw .transcript(
                    path: path, line: number,
                    reason: "\"\(trimmed.prefix(60))\" is not name: text; expected a file name, a colon and the text")
            }
            lines.append(
                Line(
                    file: String(trimmed[..<colon]).trimmingSpaces,
                    text: String(trimmed[trimmed.index(after: colon)...]).trimmingSpaces, lineNumber: number))
        }
        return lines
    }

    // MARK: Files to lines

    /// The transcript applied to audio files: what to import, in transcript order, and what did not pair up.
    public struct Assignment: Sendable {
        /// One per file that has a line, in the order of the transcript's lines.
        public var requests: [ImportRequest]
        /// Files no line names.
        public var unlistedFiles: [String]
        /// Lines that name no file given.
        public var missingFiles: [Line]
        /// Lines left out because they do not pair with one file (a name that still fits several files, a file
        /// that several lines name, a clip line without text): each a `AuthoringError.transcript` naming its
        /// line, in line order. Only with `keepGoing`; otherwise the first of them is thrown.
        public var skippedLines: [AuthoringError]
    }

    /// Pairs `files` with the lines that name them and makes the import requests, in the transcript's order
    /// (so the first take listed is the first take spoken).
    ///
    /// Phone-system prompt sets (Asterisk's core sounds) keep one file name in several folders (`digits/1.wav`
    /// and `silence/1.wav`, `sorry.wav` beside `followme/sorry.wav`) and name files by their path below the
    /// sounds folder, so a line names a file by its last folders and name, with or without the extension:
    /// `clips/hello.aiff` is named by `hello`, `hello.aiff`, `clips/hello` and `clips/hello.aiff`. When that
    /// fits several files:
    /// - a file named by lines with more folders and lines with fewer goes to the ones with more
    ///   (`followme/sorry` takes `followme/sorry.wav` from `sorry`);
    /// - a line whose name still fits several files names the one the fewest folders below its root
    ///   (`sorry` names `sorry.wav` at the root before `followme/sorry.wav`);
    /// - a line that still fits several files at that depth, or a file that several lines name alike
    ///   (`hello` and `hello.wav`), is a problem: it is thrown, or with `keepGoing` reported in
    ///   `skippedLines` and left out while the rest is paired.
    ///
    /// A line with empty text is allowed for a fallback clip only, whose phrase is then its file name.
    ///
    /// Positions come from the transcript's `position` column, and `position` (`voicebank import --position`) tags
    /// the phrase clips whose line gives none. A file whose name has a position prefix (`e.hello.wav`, see
    /// `ImportRequest.positionPrefix`) is refused when a transcript pairs it: the transcript, not the name, says what
    /// a file speaks and where, and a prefix it would ignore must not look like a tag.
    ///
    /// ```swift
    /// let files = try ImportRequest.audioFiles(["sounds/en"])     // sounds/en/digits/1.wav, …
    /// let assignment = try transcript.requests(for: files, keepGoing: true)
    /// ```
    ///
    /// - Parameters:
    ///   - isFallback: every file is a fallback clip (`voicebank import --fallback`).
    ///   - keepGoing: report the lines that do not pair with one file instead of throwing the first.
    ///   - position: the position of each phrase clip whose line gives none.
    /// - Throws: `AuthoringError.transcript` naming the line, unless `keepGoing`: when a line names several
    ///   files, a file is named by several lines, or an ordinary clip's line has no text. Even with `keepGoing`, when
    ///   a file paired with a line has a position prefix, or the line's position is not `position`.
    public func requests(
        for files: [ImportRequest.AudioFile], isFallback: Bool = false, keepGoing: Bool = false,
        position: TakePosition? = nil
    ) throws(AuthoringError) -> Assignment {
        var lineByName: [String: Int] = [:]
        for (index, line) in lines.enumerated() { lineByName[Self.normalizedName(line.file)] = index }
        let folderCounts = lines.map { Self.normalizedName($0.file).split(separator: "/").count - 1 }

        // Each line's candidate files; of the lines that name one file, only those giving the most folders keep it.
        var candidates = [[Int]](repeating: [], count: lines.count)
        for (fileIndex, file) in files.enumerated() {
            let naming = Self.names(forFileAt: file.path).compactMap { lineByName[$0] }.uniqued
            guard let most = naming.map({ folderCounts[$0] }).max() else { continue }
            for line in naming where folderCounts[line] == most { candidates[line].append(fileIndex) }
        }

        var problems: [(line: Int, error: AuthoringError)] = []
        func report(_ index: Int, _ reason: String) {
            problems.append((index, .transcript(path: path, line: lines[index].lineNumber, reason: reason)))
        }
        // Files a reported line could have meant: in its report, so not also "without a line".
        var mentioned = Set<Int>()
        var fileOfLine = [Int?](repeating: nil, count: lines.count)
        for index in lines.indices where !candidates[index].isEmpty {
            let shallowest = candidates[index].map { files[$0].depth }.min()!
            let chosen = candidates[index].filter { files[$0].depth == shallowest }
            guard chosen.count == 1 else {
                mentioned.formUnion(chosen)
                report(index, ambiguity(lines[index], files: chosen.map { files[$0] }))
                continue
            }
            fileOfLine[index] = chosen[0]
        }
        var linesOfFile: [Int: [Int]] = [:]
        for (line, file) in fileOfLine.enumerated() {
            if let file { linesOfFile[file, default: []].append(line) }
        }
        for (file, naming) in linesOfFile where naming.count > 1 {
            // Nothing tells which line is right, so none of them gets the file.
            for line in naming.dropFirst() {
                report(
                    line,
                    "the file \(files[file].path) is named by line \(lines[naming[0]].lineNumber) and by this one; expected one line per file"
                )
            }
            for line in naming { fileOfLine[line] = nil }
            mentioned.insert(file)
        }

        var requests: [ImportRequest] = []
        var missing: [Line] = []
        var assigned = Set<Int>()
        for (index, line) in lines.enumerated() {
            guard let fileIndex = fileOfLine[index] else {
                if candidates[index].isEmpty { missing.append(line) }
                continue
            }
            let file = files[fileIndex].path
            let isFallbackClip = isFallback || line.isFallback
            let hasText = !line.text.trimmingSpaces.isEmpty
            guard hasText || isFallbackClip else {
                mentioned.insert(fileIndex)
                report(index, "no text for the file \(line.file); expected the phrase the file speaks")
                continue
            }
            if let prefixed = ImportRequest.positionPrefix(ofFileAt: file) {
                throw .transcript(
                    path: path, line: line.lineNumber,
                    reason:
                        "the file \(file) is tagged \(prefixed.position) by its name's prefix \(prefixed.prefix), but with a transcript positions come from its position column; expected the file renamed without the prefix"
                )
            }
            if let given = line.position, let position, given != position {
                throw .transcript(
                    path: path, line: line.lineNumber,
                    reason:
                        "the line tags \(line.file) \(given), but the position given tags it \(position); expected one position"
                )
            }
            assigned.insert(fileIndex)
            requests.append(
                ImportRequest(
                    path: file, phrase: hasText ? line.text : nil, isFallback: isFallbackClip,
                    position: isFallbackClip ? nil : line.position ?? position))
        }
        problems.sort { $0.line < $1.line }
        if !keepGoing, let first = problems.first { throw first.error }
        let unlisted = files.indices.filter { !assigned.contains($0) && !mentioned.contains($0) }.map { files[$0].path }
        return Assignment(
            requests: requests, unlistedFiles: unlisted, missingFiles: missing, skippedLines: problems.map(\.error))
    }

    /// Pairs files given by path, each path taken as it is written (its folders count from where it starts).
    ///
    /// - Throws: as `requests(for:isFallback:keepGoing:)` with `ImportRequest.AudioFile`s.
    public func requests(
        for paths: [String], isFallback: Bool = false, keepGoing: Bool = false, position: TakePosition? = nil
    ) throws(AuthoringError) -> Assignment {
        try requests(
            for: paths.map { ImportRequest.AudioFile(path: $0, relativePath: $0) }, isFallback: isFallback,
            keepGoing: keepGoing, position: position)
    }

    /// Why a line that fits several files at one depth names none of them.
    private func ambiguity(_ line: Line, files: [ImportRequest.AudioFile]) -> String {
        let paths = files.map(\.path)
        let which =
            paths.count == 2
            ? "both \(paths[0]) and \(paths[1])"
            : "\(paths.count) files (\(paths.prefix(3).joined(separator: ", "))\(paths.count > 3 ? ", …" : ""))"
        return
            "\"\(line.file)\" names \(which); expected a name with its folder, such as \(files[0].relativePath), that names one file"
    }

    /// A name as lines are compared: folders separated by single slashes, without `./`.
    static func normalizedName(_ name: String) -> String {
        name.trimmingSpaces.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// Every name a line may give a file by: its last 1, 2, … path components, each with and without the
    /// extension of the last.
    static func names(forFileAt path: String) -> [String] {
        let components = normalizedName(path).split(separator: "/").map(String.init)
        guard let last = components.last else { return [] }
        var stem = last
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { stem = String(last[..<dot]) }
        var names: [String] = []
        for count in 1...components.count {
            let folders = components[(components.count - count)..<(components.count - 1)]
            names.append((folders + [last]).joined(separator: "/"))
            if stem != last { names.append((folders + [stem]).joined(separator: "/")) }
        }
        return names
    }
}

extension ImportRequest {
    /// An audio file an import found, and where it lies below the argument that named it.
    public struct AudioFile: Equatable, Sendable {
        /// The path to open.
        public var path: String
        /// The path below the folder argument the file was found in (`digits/1.wav` for `sounds/en/digits/1.wav`
        /// found in `sounds/en`), or the path as given for a file argument.
        public var relativePath: String

        public init(path: String, relativePath: String) {
            self.path = path
            self.relativePath = relativePath
        }

        /// How many folders down from its root: 0 for `sorry.wav`, 1 for `followme/sorry.wav`.
        public var depth: Int { max(0, Transcript.normalizedName(relativePath).split(separator: "/").count - 1) }
    }

    /// The audio files that `paths` name: a file as it is, a folder as every audio file in it, every level
    /// down (by extension: `.aiff`, `.wav`, `.flac`, …), each folder's files sorted by name.
    ///
    /// ```swift
    /// let files = try ImportRequest.audioFiles(["sounds/en", "extra.wav"])
    /// // sounds/en/digits/1.wav as digits/1.wav, …, extra.wav as extra.wav
    /// ```
    ///
    /// - Throws: `AuthoringError.noAudioFiles` for a folder with none, `.fileSystem` for one that cannot be read.
    public static func audioFiles(_ paths: [String]) throws(AuthoringError) -> [AudioFile] {
        var files: [AudioFile] = []
        for path in paths {
            guard Files.isDirectory(path) else {
                files.append(AudioFile(path: path, relativePath: path))
                continue
            }
            let found = try Files.audioFiles(under: path)
            guard !found.isEmpty else { throw .noAudioFiles(folder: path) }
            let prefixLength = (path.hasSuffix("/") ? path : path + "/").count
            files += found.map { AudioFile(path: $0, relativePath: String($0.dropFirst(prefixLength))) }
        }
        return files
    }
}
