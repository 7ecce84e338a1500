// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO

/// The module's configuration file, `concat-synth.conf`, which speech-dispatcher passes as the module's first
/// argument. It is in speech-dispatcher's own format, one `Name "value"` a line, `#` for comments:
///
/// ```
/// # The installation's packs, for a module installed outside its prefix.
/// SystemPacks "/usr/local/share/concat-synth/packs"
/// # The one voice pack sd_concat-synth speaks with; without it, every voice of the default and installed packs.
/// VoicePack "/srv/packs/my-voice.sqlite"
/// SoundIconFolder "/usr/share/sounds/sound-icons/"
/// ```
///
/// Names speech-dispatcher's other modules use (`Debug`, …) are ignored.
public struct ModuleConfiguration: Equatable, Sendable {
    /// The pack named by `VoicePack`, relative paths taken from the configuration file's folder; `nil` for the
    /// voices of the default and every installed pack (`ConcatSynthEngine(bank:)`).
    public var voicePack: String?
    /// The installation's packs folder named by `SystemPacks` (relative paths as for `VoicePack`): where
    /// `tools/install` puts the default pack and `voicebank install --system` the system's packs, which the module,
    /// installed in the distribution's module folder, cannot find from its own (`VoiceCatalog(systemPacks:)`).
    public var systemPacks: String?
    /// Where `SOUND_ICON` names are looked for.
    public var soundIconFolder = "/usr/share/sounds/sound-icons/"

    public init(voicePack: String? = nil) { self.voicePack = voicePack }

    /// Reads the configuration at `path`; a file that does not exist is the default configuration (the server
    /// passes a path whether or not the file is there).
    ///
    /// - Throws: `SpeechServiceError.configurationUnreadable` or `.configurationLine`.
    public static func load(path: String?) throws(SpeechServiceError) -> ModuleConfiguration {
        guard let path else { return ModuleConfiguration() }
        let bytes: [UInt8]
        do throws(FileError) { bytes = try readFile(atPath: path) } catch {
            if error.isNoSuchFile { return ModuleConfiguration() }
            throw .configurationUnreadable(path: path, reason: error.reason)
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Reads the text of a configuration file found at `path`.
    ///
    /// - Throws: `SpeechServiceError.configurationLine` for a line that is not `Name "value"` or `Name value`.
    public static func parse(_ text: String, path: String) throws(SpeechServiceError) -> ModuleConfiguration {
        var configuration = ModuleConfiguration()
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw .configurationLine(path: path, line: number + 1, text: String(rawLine))
            }
            let name = line[..<space]
            var value = line[space...].drop { $0 == " " || $0 == "\t" }
            while value.last == " " || value.last == "\t" || value.last == "\r" { value = value.dropLast() }
            if value.first == "\"" {
                guard value.count >= 2, value.last == "\"" else {
                    throw .configurationLine(path: path, line: number + 1, text: String(rawLine))
                }
                value = value.dropFirst().dropLast()
            }
            let path = value.hasPrefix("/") ? String(value) : folder + value
            switch name.lowercased() {
            case "voicepack":
                configuration.voicePack = path
            case "systempacks":
                configuration.systemPacks = path
            case "soundiconfolder":
                configuration.soundIconFolder = String(value)
            default:
                continue
            }
        }
        return configuration
    }
}
