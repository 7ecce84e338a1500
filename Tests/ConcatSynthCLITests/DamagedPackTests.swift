// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

/// A pack of three short tones made through the library: "hello", "world", and a fallback clip.
struct SmallPack {
    let directory: TemporaryDirectory
    let path: String
    static let voice = "com.example.ann"

    init(_ label: String = "small-pack") throws {
        directory = TemporaryDirectory(label)
        path = directory.file("pack.sqlite")
        let pack = try VoicePack(path: path, access: .create)
        try pack.addVoice(Voice(identifier: Self.voice, name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (name, frequency, isFallback) in [("hello", 440.0, false), ("world", 330.0, false), ("beep", 880.0, true)] {
            let file = try Fixture.seedClip(at: directory.file("\(name).aiff"), seconds: 0.3, frequency: frequency)
            requests.append(ImportRequest(path: file, isFallback: isFallback))
        }
        _ = try pack.importFiles(requests, into: nil)
    }

    /// Changes the pack as a hand edit or a broken sync would, through SQLite's C API.
    func damage(_ sql: String) throws { try execute(sql, on: path) }

    /// The files in the pack's folder other than the pack and its clip sources.
    func strayFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            !$0.hasPrefix("pack.sqlite") && !$0.hasSuffix(".aiff")
        }.sorted()
    }
}

/// Four ways a clip can be damaged, each as SQL that makes it from a sound clip "hello" (clip #1).
enum ClipDamageCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneByteBlob, hugeFrameCount, nanSamples, negativeTrimStart

    var sql: String {
        switch self {
        case .oneByteBlob: return "UPDATE clip SET pcm = x'00' WHERE phrase = 'hello'"
        case .hugeFrameCount: return "UPDATE clip SET frame_count = 2000000000 WHERE phrase = 'hello'"
        // A quiet NaN (0x7FC00000, little-endian) 100 frames into what the clip plays.
        case .nanSamples:
            return """
                UPDATE clip SET pcm = CAST(
                    substr(pcm, 1, trim_start * 4 + 400) || x'0000C07F' || substr(pcm, trim_start * 4 + 405) AS BLOB)
                WHERE phrase = 'hello'
                """
        case .negativeTrimStart: return "UPDATE clip SET trim_start = -5 WHERE phrase = 'hello'"
        }
    }

    /// Words of the reason the error gives.
    var reason: String {
        switch self {
        case .oneByteBlob: return "is 1 byte long, not a whole number of 4-byte Float32 samples"
        case .hugeFrameCount: return "it plays 2000000000 frames from frame 0; expected"
        case .nanSamples: return "not a number (NaN or infinite) at frame 100"
        case .negativeTrimStart: return "from frame -5; expected a start of 0 or more"
        }
    }

    var description: String { rawValue }
}

@Suite struct DamagedPackRenderTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    @Test(
        "a damaged clip: render exits 1 with one line naming pack, clip and phrase, and writes nothing",
        arguments: ClipDamageCase.allCases)
    func render(damage: ClipDamageCase) throws {
        let pack = try SmallPack()
        try pack.damage(damage.sql)
        let output = pack.directory.file("out.wav")

        let result = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "world hello world"])

        #expect(result.status == 1)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        let line = try #require(lines.first)
        #expect(line.contains("voice pack \(pack.path) has a damaged clip #1 \"hello\""), "\(line)")
        #expect(line.contains(damage.reason), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try pack.strayFiles() == [], "no partial output file is left behind")
    }

    @Test(
        "-o - stops before a damaged clip's samples: no NaN ever reaches standard output",
        arguments: ClipDamageCase.allCases)
    func rawOutput(damage: ClipDamageCase) throws {
        let pack = try SmallPack()
        try pack.damage(damage.sql)

        let result = try concatSynth.run(["render", "--bank", pack.path, "-o", "-", "world hello"])

        #expect(result.status == 1)
        let samples = result.standardOutputBytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.allSatisfy { $0.isFinite })
        // At most the clip before it ("world", 0.3 s) came out.
        #expect(samples.count <= 6_615)
    }

    @Test("voicebank verify reports the clip render refuses, with the same reason", arguments: ClipDamageCase.allCases)
    func verify(damage: ClipDamageCase) throws {
        let pack = try SmallPack()
        #expect(try voicebank.run(["verify", "--bank", pack.path]).status == 0)
        try pack.damage(damage.sql)

        let verified = try voicebank.run(["verify", "--bank", pack.path])
        let rendered = try concatSynth.run(["render", "--bank", pack.path, "-o", "-", "hello"])

        #expect(verified.status == 1)
        let damaged = verified.standardOutput.split(separator: "\n").filter { $0.hasPrefix("damaged: ") }
        #expect(damaged.count == 1, "\(verified.standardOutput)")
        let line = try #require(damaged.first)
        #expect(line.hasPrefix("damaged: clip #1: \"hello\" cannot be spoken: "))
        #expect(line.contains(damage.reason))
        // The same description of the damage, word for word, in both tools.
        let reason = try #require(line.split(separator: "cannot be spoken: ").last?.split(separator: ";").first)
        #expect(rendered.standardError.contains(reason), "\(rendered.standardError)")
    }

    @Test("a sound pack passes verify and renders: the checks refuse only damage")
    func soundPack() throws {
        let pack = try SmallPack()
        let output = pack.directory.file("out.wav")
        #expect(try voicebank.run(["verify", "--bank", pack.path]).status == 0)
        let result = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "hello world"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try PreparedClip(path: output).source.frameCount == 2 * 6_615)
    }
}

/// Voice rows holding settings `voicebank configure` refuses, each as SQL on `SmallPack`'s voice, with the
/// configure option that repairs it.
enum VoiceDamageCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case hugeCrossfade, negativeEdgeFade, hugeTrimPad, zeroNormalRate, negativeNormalRate, hugeNormalRate
    case positiveTrimThreshold, loudTarget, positiveCeiling

    var sql: String { "UPDATE voice SET \(field) = \(value)" + (isLoudness ? ", target_loudness_lufs = -20" : "") }

    private var isLoudness: Bool { self == .positiveCeiling }

    var field: String {
        switch self {
        case .hugeCrossfade: return "crossfade_frames"
        case .negativeEdgeFade: return "edge_fade_frames"
        case .hugeTrimPad: return "trim_pad_frames"
        case .zeroNormalRate, .negativeNormalRate, .hugeNormalRate: return "normal_rate"
        case .positiveTrimThreshold: return "trim_threshold_db"
        case .loudTarget: return "target_loudness_lufs"
        case .positiveCeiling: return "true_peak_ceiling_dbtp"
        }
    }

    var value: String {
        switch self {
        case .hugeCrossfade, .hugeTrimPad: return "9000000000000000000"
        case .negativeEdgeFade: return "-5"
        case .zeroNormalRate: return "0"
        case .negativeNormalRate: return "-1"
        case .hugeNormalRate: return "1e300"
        case .positiveTrimThreshold: return "6"
        case .loudTarget: return "1e308"
        case .positiveCeiling: return "3"
        }
    }

    /// `voicebank configure` arguments that set the field to a sound value.
    var repair: [String] {
        switch self {
        case .hugeCrossfade: return ["--crossfade", "10ms"]
        case .negativeEdgeFade: return ["--edge-fade", "2ms"]
        case .hugeTrimPad: return ["--trim-pad", "30ms"]
        case .zeroNormalRate, .negativeNormalRate, .hugeNormalRate: return ["--normal-rate", "1"]
        case .positiveTrimThreshold: return ["--trim-threshold", "-50dB"]
        case .loudTarget: return ["--target-loudness", "-20"]
        case .positiveCeiling: return ["--true-peak-ceiling", "-1"]
        }
    }

    var description: String { rawValue }
}

@Suite struct DamagedVoiceTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    @Test(
        "a damaged voice setting: render, voices and info exit 1 with one line naming pack, voice and column; configure repairs it",
        arguments: VoiceDamageCase.allCases)
    func damagedVoice(damage: VoiceDamageCase) throws {
        let pack = try SmallPack()
        try pack.damage(damage.sql)
        let output = pack.directory.file("out.wav")
        let expected = "voice pack \(pack.path) has a damaged voice \(SmallPack.voice): its \(damage.field) is "

        for (binary, arguments) in [
            (concatSynth, ["render", "--bank", pack.path, "-o", output, "hello", "--rate", "2"]),
            (concatSynth, ["voices", "--bank", pack.path]), (voicebank, ["info", "--bank", pack.path]),
        ] {
            let result = try binary.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(result.standardError)")
            #expect(lines.first?.contains(expected) == true, "\(result.standardError)")
            let repair = "voicebank configure --bank \(pack.path) --voice \(SmallPack.voice) "
            #expect(lines.first?.contains(repair) == true)
        }
        #expect(!FileManager.default.fileExists(atPath: output))

        let repaired = try voicebank.run(["configure", "--bank", pack.path] + damage.repair)
        #expect(repaired.status == 0, "\(repaired.standardError)")
        let rendered = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "hello"])
        #expect(rendered.status == 0, "\(rendered.standardError)")
    }
}
