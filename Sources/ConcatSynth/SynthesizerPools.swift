// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

/// A `SynthesizerPool` for each pack of a `VoiceCatalog`, and the voices they speak: how a server speaks every voice
/// of the default and installed packs, or of the one pack it was given.
///
/// A server cannot ask which pack a voice is meant from, so each voice identifier is spoken by the first pack of the
/// catalog that has it. A pack whose synthesizer cannot be opened is left out; both are told in `warnings`.
///
/// ```swift
/// let pools = try SynthesizerPools(VoiceCatalog())
/// for warning in pools.warnings { print("warning: \(warning)") }
/// let synthesizer = try pools.voices[0].pool.take()
/// defer { pools.voices[0].pool.giveBack(synthesizer) }
/// ```
public struct SynthesizerPools: Sendable {
    /// A voice spoken, the pack it is in, and that pack's pool.
    public struct Voice: Sendable {
        /// The voice's identifier, name, languages and normal rate.
        public let settings: VoiceSettings
        /// The pack the voice is in.
        public let pack: VoiceCatalog.Pack
        /// Whom to credit for the voice (`VoiceCatalog.Entry.attribution`).
        public let attribution: String?
        /// The synthesizers of the voice's pack, which every voice of that pack shares.
        public let pool: SynthesizerPool
    }

    /// The voices spoken, each identifier once, in the catalog's order.
    public let voices: [Voice]
    /// The catalog's warnings, then a sentence for each pack or voice left out here.
    public let warnings: [String]

    /// Opens a synthesizer of each pack of `catalog` that has a voice, so that a pack that cannot be read fails here
    /// rather than at the first request.
    ///
    /// - Throws: `ConcatSynthError` when no voice is left to speak: the error of the first pack left out, or
    ///   `.noVoice` naming the first pack when no pack has a voice.
    public init(_ catalog: VoiceCatalog) throws(ConcatSynthError) {
        var pools: [String: SynthesizerPool] = [:]
        var voices: [Voice] = []
        var warnings = catalog.warnings
        var firstError: ConcatSynthError?
        for pack in catalog.packs where catalog.voices.contains(where: { $0.pack == pack }) {
            let pool = SynthesizerPool(bank: pack.path)
            do throws(ConcatSynthError) {
                pool.giveBack(try pool.take())
                pools[pack.path] = pool
            } catch {
                firstError = firstError ?? error
                warnings.append("the voices of \(pack.path) are left out: \(error)")
            }
        }
        for entry in catalog.voices {
            guard let pool = pools[entry.pack.path] else { continue }
            if let first = voices.first(where: { $0.settings.identifier == entry.voice.identifier }) {
                warnings.append(
                    "voice \(entry.voice.identifier) of \(entry.pack.path) is left out: \(first.pack.path) has it too, and speaks it"
                )
                continue
            }
            voices.append(Voice(settings: entry.voice, pack: entry.pack, attribution: entry.attribution, pool: pool))
        }
        if voices.isEmpty {
            throw firstError ?? .noVoice(path: catalog.packs[0].path)
        }
        self.voices = voices
        self.warnings = warnings
    }

    /// The voice a server's client names: by identifier, else by name (in any case).
    public func voice(named name: String) -> Voice? {
        voices.first { $0.settings.identifier == name }
            ?? voices.first { $0.settings.name.lowercased() == name.lowercased() }
    }

    /// The first voice that speaks `language` (`en-US`, `en_US`), else the first that speaks its primary language
    /// (`en`).
    public func voice(language: String) -> Voice? {
        let wanted = Self.normalized(language)
        let primary = Self.primary(wanted)
        let languages = { (voice: Voice) in voice.settings.supportedLanguages.map(Self.normalized) }
        return voices.first { languages($0).contains(wanted) }
            ?? voices.first { languages($0).contains { Self.primary($0) == primary } }
    }

    private static func normalized(_ language: String) -> String {
        String(language.map { $0 == "_" ? "-" : $0 }).lowercased()
    }

    private static func primary(_ language: String) -> String {
        language.split(separator: "-").first.map(String.init) ?? language
    }

    /// The paths of the packs whose voices are spoken, in the catalog's order.
    public var packPaths: [String] { voices.map(\.pack.path).uniqued }
}
