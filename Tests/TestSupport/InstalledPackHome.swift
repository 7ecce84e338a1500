// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A data folder (`XDG_DATA_HOME`) in which the real `voicebank install` installs packs made for a test, so that the
/// tools run with `environment` find them as a person's installed packs.
public struct InstalledPackHome: Sendable {
    public let directory = TemporaryDirectory("installed-packs")

    public init() {}

    /// The tools' data folder: the packs are installed in its `concat-synth/packs`.
    public var dataHome: String { directory.file("data") }
    public var packFolder: String { "\(dataHome)/concat-synth/packs" }
    /// For `Binary.run`: `XDG_DATA_HOME` this folder, and no `$CONCAT_SYNTH_BANK`, so the default pack is the
    /// repository's.
    public var environment: [String: String?] { ["XDG_DATA_HOME": dataHome, "CONCAT_SYNTH_BANK": nil] }

    /// Makes a pack with `voicebank create` and `import` (a clip for each phrase, a tone of its own frequency, and a
    /// fallback clip), names it `name` at `version` with `voicebank manifest` (and the `manifest` values, `KEY=VALUE`),
    /// then publishes and installs it as a person would; returns the made pack's path, which renders as the installed
    /// copy does.
    @discardableResult
    public func install(
        name: String, voice: String, voiceName: String, version: String = "1.0.0", manifest: [String] = [],
        phrases: [String] = ["hello", "good morning"], frequency: Double = 440
    ) throws -> String {
        let pack = directory.file("\(name).sqlite")
        let clips = directory.file("\(name)-clips")
        try FileManager.default.createDirectory(atPath: clips, withIntermediateDirectories: true)
        var files: [String] = []
        for (index, phrase) in phrases.enumerated() {
            let file = "\(clips)/\(phrase.replacingOccurrences(of: " ", with: "_")).aiff"
            files.append(try Fixture.seedClip(at: file, frequency: frequency + 55 * Double(index)))
        }
        let fallback = try Fixture.seedClip(at: "\(clips)/beep.aiff", seconds: 0.2, frequency: 1_000)
        let values = ["name=\(name)", "version=\(version)", "license=CC-BY-4.0", "consent=I agree."] + manifest
        try voicebank(["create", "--bank", pack, "--voice", voice, "--name", voiceName, "--language", "en-US"])
        try voicebank(["import", "--bank", pack] + files)
        try voicebank(["import", "--bank", pack, "--fallback", fallback])
        try voicebank(["manifest", "--bank", pack] + values.flatMap { ["--set", $0] })
        let published = directory.file("\(name)-\(version)-published.sqlite")
        try voicebank(["publish", "--bank", pack, "-o", published])
        try voicebank(["install", published])
        return pack
    }

    /// Runs `voicebank` with this data folder; fails the caller when it fails.
    private func voicebank(_ arguments: [String]) throws {
        let result = try Binary("voicebank").run(arguments, environment: environment)
        guard result.status == 0 else {
            throw Binary.Failure(
                description:
                    "voicebank \(arguments.joined(separator: " ")) exited \(result.status): \(result.standardError)")
        }
    }
}
