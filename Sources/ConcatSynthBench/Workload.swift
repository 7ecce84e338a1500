// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the benchmark finds the repository's files and the built tools.
struct Locations {
    /// The repository, found from where this file was compiled (like `PackLocation.defaultPackPath`).
    static let repository: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Sources/ConcatSynthBench/Workload.swift
        return components.joined(separator: "/")
    }()

    /// The pack the benchmark speaks with: the tests' screen-reader pack (tools/build-test-pack, which tools/bench
    /// runs first), a few dozen short phrases in English and Japanese as a screen reader's voice would have.
    static var screenReaderPack: String { binaries + "/screen-reader-pack/screen-reader.sqlite" }
    /// The default pack, Allison's voice (tools/build-default-pack, which tools/bench runs first when it is stale):
    /// the voice the everyday sentences are judged with.
    static var defaultPack: String { repository + "/voicebank/default.sqlite" }
    /// The folder of that pack's clips of `language` (`en` or `ja`): the English ones are made with the pack, the
    /// Japanese ones are the default pack's sources.
    static func clipSources(_ language: String) -> String {
        language == "en" ? binaries + "/screen-reader-pack/sources/en" : repository + "/voicebank/sources/ja"
    }
    /// The project's shared folder sits beside the repository (CI clones it there too).
    /// A copy of the project's shared fixtures (shared/fixtures/voiceover), kept in the repository.
    static var voiceOverFixtures: String { repository + "/Tests/Fixtures/voiceover" }

    /// The folder of the running executable, where SwiftPM puts `concat-synth` and `voicebank` too.
    static let binaries: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(count > 0, "cannot read /proc/self/exe")
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<path.lastIndex(of: "/")!])
    }()
}

/// One screen-reader-sized request: a VoiceOver fixture or the six-word sentence.
struct Request {
    var name: String
    var text: String
    /// The file it was read from, handed to the tools as a file; `nil` for text given as an argument.
    var file: String?

    /// Japanese requests speak with the default pack's Japanese voice (and espeak-ng's), the others in English.
    var isJapanese: Bool { text.unicodeScalars.contains { $0.value > 0x2E80 } }
    var defaultPackVoice: String { isJapanese ? "org.concatsynth.ja" : "org.concatsynth.en" }
    var espeakVoice: String { isJapanese ? "ja" : "en-us" }
    var isSSML: Bool { text.first == "<" }

    /// The request at `speed` times its own speed, on a voice whose normal rate is `normalRate`. VoiceOver's
    /// requests carry the rate VoiceOver means as normal (`rate="400.0%"`, normal on a voice whose normal rate is
    /// 400 %), which a rate around them multiplies; the others (WWDC's example's `rate="200%"` is twice normal)
    /// speak at the voice's normal rate.
    func speech(atSpeed speed: Double, normalRate: Double) -> SpeechRequest {
        SpeechRequest(text, prosody: Prosody(rate: text.contains(#"rate="400.0%""#) ? speed : speed * normalRate))
    }

    static let sentence = Request(name: "six-word sentence", text: "Good morning, double tap to open.", file: nil)

    /// Every `.ssml` file of the fixtures folder, by name, then the six-word sentence.
    static func all(fixtures directory: String) throws -> [Request] {
        var requests: [Request] = []
        guard let folder = opendir(directory) else {
            throw BenchError(description: "cannot read the VoiceOver fixtures in \(directory); give --fixtures DIR")
        }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".ssml") { names.append(name) }
        }
        for name in names.sorted() {
            let path = directory + "/" + name
            requests.append(Request(name: String(name.dropLast(5)), text: try readText(path), file: path))
        }
        return requests + [sentence]
    }
}

/// The whole contents of a UTF-8 file.
func readText(_ path: String) throws -> String {
    do { return String(decoding: try readFile(atPath: path), as: UTF8.self) } catch {
        throw BenchError(description: "cannot read \(path): \(error.reason)")
    }
}

/// Writes `text` to a file that appears whole or not at all.
func writeText(_ text: String, to path: String) throws {
    do { try Array(text.utf8).withUnsafeBytes { try writeFileWhole(atPath: path, $0) } } catch {
        throw BenchError(description: "cannot write \(path): \(error)")
    }
}

/// A long plain text made of the requests' sentences, repeated until it speaks for at least `seconds`.
func longText(speakingFor seconds: Double, with synthesizer: Synthesizer) throws -> (text: String, seconds: Double) {
    let sentences = [
        "Good morning, double tap to open.", "Hello, nice to meet you!", "設定。", "開くにはダブルタップします。",
        "カスタムのアクションを選択するには、上または下にスワイプします。その後ダブルタップしてアクティベートします。",
        "Otoya 拡張, 101 ドット 5 MB使用。",
    ]
    let unit = sentences.joined(separator: "\n")
    let unitSeconds = Double(try synthesizer.renderPlan(unit).frameCount) / Double(RenderFormat.sampleRate)
    let repeats = max(1, Int((seconds / unitSeconds).rounded(.up)))
    let text = Array(repeating: unit, count: repeats).joined(separator: "\n")
    return (text, Double(try synthesizer.renderPlan(text).frameCount) / Double(RenderFormat.sampleRate))
}

/// A fresh folder under `/tmp` (or `base`), removed by `remove()`.
struct WorkDirectory {
    let path: String

    init(base: String?) throws {
        var template = Array(((base ?? "/tmp") + "/concat-synth-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError(description: "cannot make a work folder") }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func subdirectory(_ name: String) throws -> String {
        let directory = file(name)
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
            throw BenchError(description: "cannot make \(directory)")
        }
        return directory
    }

    func remove() {
        _ = try? runChecked("/bin/rm", ["-rf", path])
    }
}
