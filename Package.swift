// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "concat-synth",
    products: [
        .executable(name: "voicebank", targets: ["VoicebankCLI"]),
        .executable(name: "concat-synth", targets: ["ConcatSynthCLI"]),
        .library(name: "ConcatSynth", targets: ["ConcatSynth"]),
        .executable(name: "concat-synth-bench", targets: ["ConcatSynthBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(
            name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // No pkgConfig: libutf8proc.pc passes -DUTF8PROC_EXPORTS, a flag SwiftPM refuses; the header is in /usr/include.
        .systemLibrary(name: "CUTF8Proc", providers: [.apt(["libutf8proc-dev"])]),
        // No pkgConfig: Debian's libsonic-dev ships no .pc file; the header is in /usr/include.
        .systemLibrary(name: "CSonic", providers: [.apt(["libsonic-dev"])]),
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),

        // The value types every stage shares (formats, clip takes, prosody, markers); no C, no I/O.
        .target(name: "SpeechCore"),
        .target(name: "AudioIO", dependencies: ["SpeechCore", "CSndFile", "CSampleRate", "CEbur128", "CSonic"]),
        // Playback through ALSA, for `concat-synth say`; only that executable links libasound.
        .target(name: "Playback", dependencies: ["CAlsa"]),
        .target(name: "Tokens", dependencies: ["CUTF8Proc"]),
        .target(name: "SSML", dependencies: ["SpeechCore"]),
        .target(name: "Verbalization"),
        .target(name: "Voicebank", dependencies: ["SpeechCore", "CSQLite", "AudioIO", "Tokens"]),
        // Events to a timed plan: matching, planning, the timeline. Never names the voice pack.
        .target(name: "Planning", dependencies: ["SpeechCore", "SSML", "Tokens", "Verbalization"]),
        // The pull renderer: a plan's timeline to samples, time-stretched where the prosody asks.
        .target(name: "Rendering", dependencies: ["SpeechCore", "Planning", "AudioIO"]),
        .target(
            name: "ConcatSynth",
            dependencies: ["SpeechCore", "SSML", "Tokens", "Planning", "Rendering", "Voicebank", "AudioIO"]),
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "Voicebank", "SpeechCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "VoicebankCLI",
            dependencies: [
                "Voicebank", "Verbalization", "CommandLineSupport", "ConcatSynth", "Planning", "SpeechCore", "Tokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .target(name: "TestSupport", dependencies: ["AudioIO", "CSQLite"], path: "Tests/TestSupport"),
        // In-memory phrases and clips for the planning and rendering tests, which link no SQLite.
        .target(
            name: "SpeechTestSupport", dependencies: ["SpeechCore", "Planning", "Rendering"],
            path: "Tests/SpeechTestSupport"),
        .executableTarget(
            name: "ConcatSynthCLI",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "SSML", "CommandLineSupport", "Playback",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift runtime linked in: a release render's process starts ~1 ms sooner (issue 6). The three
            // libraries are what ArgumentParser's FoundationEssentials needs linked statically.
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"],
                    .when(configuration: .release))
            ]),

        // The benchmark of issue 6 (tools/bench); the test suite runs its --smoke mode.
        .executableTarget(
            name: "ConcatSynthBench",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "Voicebank", "AudioIO", "CSQLite", "CSampleRate",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "SpeechCore", "TestSupport"]),
        .testTarget(name: "TokensTests", dependencies: ["Tokens"]),
        .testTarget(name: "SSMLTests", dependencies: ["SSML", "SpeechCore"]),
        .testTarget(name: "VerbalizationTests", dependencies: ["Verbalization"]),
        .testTarget(
            name: "PlanningTests", dependencies: ["Planning", "SpeechCore", "SSML", "Tokens", "SpeechTestSupport"]),
        .testTarget(
            name: "RenderingTests",
            dependencies: ["Rendering", "Planning", "SpeechCore", "SSML", "AudioIO", "SpeechTestSupport"]),
        .testTarget(
            name: "ConcatSynthTests",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "SSML", "Tokens", "Voicebank", "AudioIO",
                "TestSupport", "SpeechTestSupport",
            ]),
        .testTarget(
            name: "ConcatSynthCLITests",
            dependencies: ["ConcatSynth", "SpeechCore", "Voicebank", "AudioIO", "Tokens", "TestSupport"]),
        .testTarget(
            name: "VoicebankTests", dependencies: ["Voicebank", "SpeechCore", "AudioIO", "CSQLite", "TestSupport"]),
        .testTarget(name: "ConcatSynthBenchTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "VoicebankCLITests", dependencies: ["Voicebank", "SpeechCore", "AudioIO", "CSQLite", "TestSupport"]),
    ]
)

// The libFuzzer targets (tools/fuzz), declared only when tools/fuzz asks for them: built without
// `-sanitize=fuzzer` they have no entry point and would fail to link, and `swift build`/`swift test` should not
// compile four more executables. Being targets of this package, they reach `package` declarations and the in-memory
// test lookups that a separate package could only see through public library products.
if Context.environment["CONCAT_SYNTH_FUZZ"] == "1" {
    package.targets += [
        .executableTarget(
            name: "FuzzText", dependencies: ["SSML", "Planning", "Rendering", "SpeechCore", "SpeechTestSupport"],
            path: "Fuzz/Targets/FuzzText"),
        .executableTarget(name: "FuzzTranscript", dependencies: ["Voicebank"], path: "Fuzz/Targets/FuzzTranscript"),
        .executableTarget(name: "FuzzAudio", dependencies: ["AudioIO"], path: "Fuzz/Targets/FuzzAudio"),
        .executableTarget(
            name: "FuzzPack", dependencies: ["ConcatSynth", "Rendering", "Voicebank"], path: "Fuzz/Targets/FuzzPack"),
    ]
}
