// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand.Import {
    func validateTranscriptOptions() throws {
        if files.isEmpty && transcript == nil {
            throw ValidationError(
                "Missing audio files to import (files, folders, or --transcript FILE alone for its folder).")
        }
        if transcript != nil && text != nil {
            throw ValidationError("--text and --transcript both give phrases; use one of them.")
        }
        if strictTranscript && transcript == nil {
            throw ValidationError("--strict-transcript needs --transcript FILE.")
        }
        if position != nil && fallback {
            throw ValidationError("--position tags phrase clips; a fallback clip has no position.")
        }
        if labels != nil {
            if files.count != 1 {
                throw ValidationError(
                    "--labels FILE cuts takes from one recording; expected one audio file, not \(files.count).")
            }
            if transcript != nil || text != nil || fallback {
                throw ValidationError(
                    "--labels gives each take its phrase; leave out --transcript, --text and --fallback.")
            }
        }
    }

    /// The files to import, their phrases and positions: from the arguments (folders walked), named by `--text`, the
    /// file names (past a position prefix), or the transcript; tagged by the prefixes, the transcript's position
    /// column or `--position`. Files and lines that do not pair up are warnings, or with
    /// `--strict-transcript` an error; with `--keep-going`, the transcript lines that do not pair with one file
    /// come back to be reported with the files that fail.
    func importRequests() throws -> (requests: [ImportRequest], skippedLines: [AuthoringError]) {
        guard let transcript else {
            let requests = try ImportRequest.audioFiles(files).map { (file) throws(AuthoringError) in
                try ImportRequest.tagged(path: file.path, phrase: text, position: position, isFallback: fallback)
            }
            return (requests, [])
        }
        let parsed = try Transcript(path: transcript)
        // With no files, the transcript's own folder: `voicebank import --transcript exported/ann/transcript.tsv`.
        let arguments = files.isEmpty ? [folder(of: transcript)] : files
        let assignment = try parsed.requests(
            for: try ImportRequest.audioFiles(arguments), isFallback: fallback, keepGoing: keepGoing,
            position: position)
        let missing = assignment.missingFiles.map { "line \($0.lineNumber) (\($0.file))" }
        if strictTranscript && !(assignment.unlistedFiles.isEmpty && missing.isEmpty) {
            var problems: [String] = []
            if !assignment.unlistedFiles.isEmpty {
                problems.append("no line for \(summary(assignment.unlistedFiles))")
            }
            if !missing.isEmpty { problems.append("no file for \(summary(missing))") }
            throw AuthoringError.transcript(
                path: transcript, line: nil,
                reason: problems.joined(separator: " and ")
                    + "; with --strict-transcript expected a line for every file and a file for every line")
        }
        guard !assignment.requests.isEmpty || !assignment.skippedLines.isEmpty else {
            throw AuthoringError.transcript(
                path: transcript, line: nil,
                reason:
                    "it names none of the \(assignment.unlistedFiles.count) files given (\(summary(assignment.unlistedFiles))); "
                    + "expected lines naming them by file name, with or without extension and folders")
        }
        var standardError = StandardError()
        for file in assignment.unlistedFiles {
            print("warning: \(transcript) has no line for \(file); not imported", to: &standardError)
        }
        for line in assignment.missingFiles {
            print(
                "warning: \(transcript) line \(line.lineNumber) names \(line.file), which is not among the files given",
                to: &standardError)
        }
        return (assignment.requests, assignment.skippedLines)
    }

    private func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func summary(_ items: [String]) -> String {
        items.prefix(3).joined(separator: ", ") + (items.count > 3 ? " and \(items.count - 3) more" : "")
    }
}
