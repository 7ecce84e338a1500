// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `VoicePack.export` wrote.
public struct ExportReport: Sendable {
    public struct ExportedVoice: Sendable {
        public var voice: Voice
        /// The voice's folder, `<folder>/<identifier>`.
        public var folder: String
        /// Its `transcript.tsv`.
        public var transcript: String
        /// Each clip and the file (inside `folder`) its original audio went to, in import order.
        public var files: [(clip: Clip, file: String)]
    }

    public var folder: String
    public var voices: [ExportedVoice]
    /// `rebuild.sh` in `folder`: the `voicebank` commands that make the pack again.
    public var script: String
    /// Things the round trip cannot carry exactly, one sentence each.
    public var warnings: [String]
}

extension VoicePack {
    /// Writes every clip's original audio back out as files, with a transcript per voice, so that
    /// `voicebank create` and `voicebank import --transcript` make a pack with the same clips again.
    ///
    /// Layout: `<folder>/<voice identifier>/<file>` for each clip and `<folder>/<voice identifier>/transcript.tsv`
    /// (`file<TAB>text<TAB>role<TAB>position`, `role` being `fallback` for fallback clips, `position` a take's
    /// position or empty), in import order, plus
    /// `<folder>/rebuild.sh` with the commands. Files keep their source name where it is unique in the voice
    /// (`hello-2.aiff` otherwise) and their container where it stores the samples exactly (AIFF, CAF, WAV; FLAC for
    /// 16 and 24-bit); anything else is WAV. Samples are written in the encoding they were kept in: 16-bit,
    /// 24-bit, 32-bit, Float32 or Float64, at the source's rate and channel count.
    ///
    /// All or nothing: everything goes to a hidden folder beside `folder`, renamed into place at the end.
    ///
    /// ```swift
    /// let report = try pack.export(to: "exported")   // exported/com.example.ann/transcript.tsv, …
    /// ```
    /// - Parameter voice: one voice's identifier; `nil` for every voice.
    /// - Throws: `AuthoringError.fileSystem` when `folder` is a file or a folder that is not empty or cannot be
    ///   written; `.audio` when a file cannot be written; `.store` with `.unknownVoice`.
    public func export(to folder: String, voice identifier: String? = nil) throws(AuthoringError) -> ExportReport {
        var target = folder
        while target.count > 1 && target.hasSuffix("/") { target.removeLast() }
        let exists = fileExists(target)
        if exists && !Files.isDirectory(target) {
            throw .fileSystem(path: target, reason: "it is a file; expected a new or empty folder to export into")
        }
        if exists && !(directoryEntries(target) ?? []).isEmpty {
            throw .fileSystem(
                path: target, reason: "the folder is not empty; expected a new or empty folder to export into")
        }
        let voices: [Voice]
        do throws(VoicebankError) {
            voices = identifier == nil ? try self.voices() : [try resolveVoice(identifier)]
        } catch {
            throw .store(error)
        }
        // A PendingFolder also removes the hidden folder an export a signal or a crash ended left.
        let folder: PendingFolder
        do throws(FileError) { folder = try PendingFolder(path: target) } catch {
            throw .fileSystem(path: error.path ?? target, reason: error.reason)
        }
        let staging = folder.temporaryPath
        var report = ExportReport(folder: target, voices: [], script: target + "/rebuild.sh", warnings: [])
        for voice in voices {
            report.voices.append(try export(voice, into: staging, finalFolder: target, warnings: &report.warnings))
        }
        try Files.writeText(Self.rebuildScript(report.voices), to: staging + "/rebuild.sh")
        chmod(staging + "/rebuild.sh", 0o755)
        do throws(FileError) { try folder.commit() } catch {
            throw .fileSystem(path: target, reason: error.reason)
        }
        return report
    }

    private func export(
        _ voice: Voice, into staging: String, finalFolder: String, warnings: inout [String]
    ) throws(AuthoringError) -> ExportReport.ExportedVoice {
        try Files.makeDirectory(staging + "/" + voice.identifier)
        var usedNames: Set<String> = []
        var files: [(clip: Clip, file: String)] = []
        var transcript = "file\ttext\trole\tposition\n"
        let clips: [Clip]
        do throws(VoicebankError) { clips = try self.clips(voice: voice.identifier) } catch { throw .store(error) }
        for clip in clips {
            let original: OriginalPCM
            let converter: String
            do throws(VoicebankError) {
                original = try originalPCM(clipID: clip.id)
                converter = try self.converter(clipID: clip.id)
            } catch {
                throw .store(error)
            }
            let (format, fileExtension) = Self.exportFormat(clip, original: original)
            let name = Self.uniqueName(stem: Self.stem(of: clip.sourceName), extension: fileExtension, used: &usedNames)
            do throws(AudioIOError) {
                let writer = try AudioFileWriter(
                    path: staging + "/" + voice.identifier + "/" + name, format: format,
                    sampleRate: clip.source.sampleRate,
                    channelCount: original.channelCount)
                switch original.encoding {
                case .int16: try writer.write(original.bytes.reinterpreted(as: Int16.self))
                case .int32: try writer.write(original.bytes.reinterpreted(as: Int32.self))
                case .float32: try writer.write(original.bytes.reinterpreted(as: Float.self))
                case .float64: try writer.write(original.bytes.reinterpreted(as: Double.self))
                }
                try writer.commit()
            } catch {
                throw .audio(error)
            }
            var phrase = clip.phrase
            if phrase.unicodeScalars.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
                phrase = String(
                    String.UnicodeScalarView(
                        phrase.unicodeScalars.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }))
                warnings.append(
                    "clip #\(clip.id)'s phrase has tabs or line breaks, written as spaces in the transcript (its phrase key is the same)"
                )
            }
            if converter != Converter.best.rawValue {
                warnings.append(
                    "clip #\(clip.id) was converted with the \(converter) converter; import \(name) with it to get the same render-ready samples"
                )
            }
            if clip.cut != nil {
                warnings.append(
                    "clip #\(clip.id) was cut from a longer recording; \(name) holds its cut alone, so a pack rebuilt from it does not know which takes were cut one after the other"
                )
            }
            transcript +=
                "\(name)\t\(phrase)\t\(clip.isFallback ? "fallback" : "")\t\(clip.position?.rawValue ?? "")\n"
            files.append((clip, name))
        }
        try Files.writeText(transcript, to: staging + "/" + voice.identifier + "/transcript.tsv")
        let folder = finalFolder + "/" + voice.identifier
        return .init(voice: voice, folder: folder, transcript: folder + "/transcript.tsv", files: files)
    }

    func converter(clipID: Int) throws(VoicebankError) -> String {
        let statement = try database.prepare("SELECT converter FROM clip WHERE id = ?").bind(.integer(clipID))
        guard try statement.step() else { throw .unknownClip(id: clipID, path: path) }
        return statement.text(0)
    }

    /// The container and encoding that store `original` exactly, keeping the source's container where it can.
    static func exportFormat(_ clip: Clip, original: OriginalPCM) -> (AudioFileFormat, String) {
        let encoding: AudioFileFormat.Encoding
        switch original.encoding {
        case .int16: encoding = .pcm16
        case .int32:
            // 24-bit sources are kept left-justified in 32 bits: their low byte is always zero.
            let isLowByteZero = stride(from: 0, to: original.bytes.count, by: 4).allSatisfy { original.bytes[$0] == 0 }
            encoding = clip.source.sampleFormat.contains("24 bit") && isLowByteZero ? .pcm24 : .pcm32
        case .float32: encoding = .float32
        case .float64: encoding = .float64
        }
        let sourceExtension = clip.sourceName.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let container = clip.source.container
        if container.hasPrefix("AIFF") {
            return (
                AudioFileFormat(.aiff, encoding),
                ["aiff", "aif", "aifc"].contains(sourceExtension) ? sourceExtension : "aiff"
            )
        }
        if container.hasPrefix("CAF") { return (AudioFileFormat(.caf, encoding), "caf") }
        if container.hasPrefix("FLAC"), encoding == .pcm16 || encoding == .pcm24 {
            return (AudioFileFormat(.flac, encoding), "flac")
        }
        return (AudioFileFormat(.wav, encoding), "wav")
    }

    /// The source name without its extension and a position prefix (the transcript gives the position, and an
    /// import with a transcript refuses a prefixed name), made safe as a file name that a folder import does not skip.
    static func stem(of sourceName: String) -> String {
        var stem = Substring(sourceName)
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = stem[..<dot] }
        if let prefixed = ImportRequest.positionPrefix(ofName: stem) { stem = prefixed.rest }
        var safe = String(stem.map { $0 == "/" || $0 == "\t" || $0 == "\n" || $0 == "\r" ? "_" : $0 })
        while safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        return safe.isEmpty ? "clip" : safe
    }

    /// `stem.ext`, or `stem-2.ext`, `stem-3.ext`, … when a name (compared without case) is taken.
    static func uniqueName(stem: String, extension fileExtension: String, used: inout Set<String>) -> String {
        var name = "\(stem).\(fileExtension)"
        var number = 2
        while used.contains(name.lowercased()) {
            name = "\(stem)-\(number).\(fileExtension)"
            number += 1
        }
        used.insert(name.lowercased())
        return name
    }

    static func rebuildScript(_ voices: [ExportReport.ExportedVoice]) -> String {
        var lines = [
            "#!/bin/sh",
            "# Makes the exported voices again: rebuild.sh NEW.sqlite (voicebank on PATH).",
            "set -e",
            "bank=${1:?usage: rebuild.sh NEW.sqlite}",
            "here=$(dirname \"$0\")",
        ]
        for exported in voices {
            let voice = exported.voice
            let extra = voice.supportedLanguages.filter { !voice.primaryLanguages.contains($0) }
            lines.append(
                ([
                    "voicebank create --bank \"$bank\" --voice", shellQuoted(voice.identifier), "--name",
                    shellQuoted(voice.name),
                ]
                    + voice.primaryLanguages.map { "--language \(shellQuoted($0))" }
                    + extra.map { "--supported-language \(shellQuoted($0))" }
                    + ["--normal-rate \(voice.normalRate)", "--fallback \(voice.fallbackMode)"]).joined(separator: " "))
            // Trimming and joins before the import, so it trims as the voice did; milliseconds at 22050 Hz give
            // back the same frame counts for the usual settings (2 ms is 44 frames, 30 ms 661).
            let milliseconds = { (frames: Int) in
                "\((frames * 1000 + RenderFormat.sampleRate / 2) / RenderFormat.sampleRate)ms"
            }
            let trimming =
                voice.trimming.map {
                    "--trim-threshold=\($0.thresholdDecibels)dB --trim-pad=\(milliseconds($0.padFrames))"
                } ?? "--no-trim"
            lines.append(
                "voicebank configure --bank \"$bank\" --voice \(shellQuoted(voice.identifier)) \(trimming) "
                    + "--edge-fade=\(milliseconds(voice.joins.edgeFadeFrames)) --crossfade=\(milliseconds(voice.joins.crossfadeFrames))"
            )
            lines.append(
                "voicebank import --bank \"$bank\" --voice \(shellQuoted(voice.identifier)) --strict-transcript "
                    + "--transcript \"$here\"/\(shellQuoted(voice.identifier + "/transcript.tsv"))")
            if let loudness = voice.loudness {
                lines.append(
                    "voicebank configure --bank \"$bank\" --voice \(shellQuoted(voice.identifier)) "
                        + "--target-loudness=\(loudness.targetLUFS) --true-peak-ceiling=\(loudness.truePeakCeilingDBTP)"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

func shellQuoted(_ text: String) -> String {
    "'" + text.replacingAll("'", with: "'\\''") + "'"
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}

extension Array where Element == UInt8 {
    /// The bytes as native (little-endian) values of `type`.
    func reinterpreted<T>(as type: T.Type) -> [T] {
        let count = self.count / MemoryLayout<T>.size
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            self.withUnsafeBytes { raw in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: raw[..<(count * MemoryLayout<T>.size)]))
            }
            initialized = count
        }
    }
}
