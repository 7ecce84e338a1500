// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// The speaking path links the store, never the authoring code: read off the built executables' symbols, where
/// Swift's mangled names carry their module (`18VoicebankAuthoring`).
@Suite struct LinkTests {
    /// How many of `product`'s symbols belong to `module`.
    func symbolCount(of module: String, in product: String) throws -> Int {
        let symbols = try requireTool("nm", package: "binutils").run([Binary(product).path])
        try #require(symbols.status == 0, "nm \(product): \(symbols.standardError)")
        let mangled = "\(module.utf8.count)\(module)"
        return symbols.standardOutput.split(separator: "\n").filter { $0.contains(mangled) }.count
    }

    @Test(
        "concat-synth and sd_concat-synth link the store and no authoring code",
        arguments: [
            "concat-synth", "sd_concat-synth",
        ])
    func speakingPath(product: String) throws {
        #expect(try symbolCount(of: "VoicebankAuthoring", in: product) == 0)
        #expect(try symbolCount(of: "Voicebank", in: product) > 0)
    }

    /// The `(NEEDED)` lines of `product`'s dynamic section: the libraries the dynamic linker loads at its start.
    func neededLibraries(of product: String) throws -> [Substring] {
        let dynamic = try requireTool("readelf", package: "binutils").run(["--dynamic", Binary(product).path])
        try #require(dynamic.status == 0, "readelf \(product): \(dynamic.standardError)")
        return dynamic.standardOutput.split(separator: "\n").filter { $0.contains("(NEEDED)") }
    }

    /// Release builds link the Swift runtime statically with only the Foundation libraries `releaseLinking` in
    /// Package.swift names (FoundationEssentials and its parts, for JSON): an executable that needs all of Foundation
    /// (`import Foundation` for `FileManager`, say) fails to link in release, which `tools/install` builds. The debug
    /// build links Foundation dynamically, so its needed libraries tell without a release build.
    @Test(
        "no executable needs Foundation beyond FoundationEssentials, which the release link cannot give it",
        arguments: ["concat-synth", "sd_concat-synth", "voicebank"])
    func noFoundation(product: String) throws {
        let needed = try neededLibraries(of: product)
        #expect(!needed.contains { $0.contains("[libFoundation.so]") }, "\(needed)")
        #expect(!needed.contains { $0.contains("libFoundationInternationalization") }, "\(needed)")
    }

    @Test(
        "the speaking executables load neither libespeak-ng (opened when the fallback voice first speaks) nor aubio",
        arguments: ["concat-synth", "sd_concat-synth"])
    func fallbackLibraries(product: String) throws {
        let needed = try neededLibraries(of: product)
        #expect(!needed.isEmpty)
        #expect(!needed.contains { $0.contains("espeak") || $0.contains("fftw") || $0.contains("aubio") })
        #expect(try symbolCount(of: "AudioFeatures", in: product) == 0)
    }

    @Test("voicebank needs neither libpocketsphinx nor libsphinxbase at its start: verify --words opens them")
    func recogniserLibraries() throws {
        let needed = try neededLibraries(of: "voicebank")
        #expect(!needed.isEmpty)
        #expect(!needed.contains { $0.contains("pocketsphinx") || $0.contains("sphinx") }, "\(needed)")
    }

    @Test("the fallback voice probes no sound server: a render with espeak-ng leaves the home as it was")
    func fallbackVoicePlaysNothing() throws {
        let home = TemporaryDirectory("fallback-home")
        let output = TemporaryDirectory("fallback-output")
        // espeak-ng 1.51 opens a PulseAudio stream (which makes ~/.config/pulse) and ALSA's default device when it
        // initialises, unless the executable's stand-in for pcaudiolib's create_audio_device_object is found first.
        let result = try Binary("concat-synth").run(
            ["render", "-o", output.file("zebra.wav"), "zebra crossing"],
            environment: ["HOME": home.path, "XDG_CONFIG_HOME": nil, "XDG_RUNTIME_DIR": nil])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("fallback"), "the words were spoken by the fallback voice")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    @Test("voicebank links the authoring code, so the count above means something")
    func authoringTool() throws {
        #expect(try symbolCount(of: "VoicebankAuthoring", in: "voicebank") > 100)
    }
}
