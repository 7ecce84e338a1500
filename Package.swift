// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "concat-synth",
    products: [
        .executable(name: "voicebank", targets: ["VoicebankCLI"]),
        .executable(name: "concat-synth", targets: ["ConcatSynthCLI"]),
        .library(name: "ConcatSynth", targets: ["ConcatSynth"]),
        .executable(name: "concat-synth-bench", targets: ["ConcatSynthBench"]),
        .executable(name: "sd_concat-synth", targets: ["SpeechDispatcherModule"]),
        .library(name: "SpeechService", targets: ["SpeechService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
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
        .target(name: "Playback", dependencies: ["CAlsa", "AudioIO"]),
        .target(name: "Tokens", dependencies: ["CUTF8Proc"]),
        .target(name: "SSML", dependencies: ["SpeechCore"]),
        .target(name: "Verbalization"),
        .target(name: "Voicebank", dependencies: ["SpeechCore", "CSQLite", "AudioIO", "Tokens"]),
        // Events to a timed plan: matching, planning, the timeline. Never names the voice pack.
        .target(name: "Planning", dependencies: ["SpeechCore", "SSML", "Tokens", "Verbalization"]),
        // The pull renderer: a plan's timeline to samples, time-stretched where the prosody asks.
        .target(name: "Rendering", dependencies: ["SpeechCore", "Planning", "AudioIO"]),
        // A picture of a render as SVG, drawn as it is pulled.
        .target(name: "Picture", dependencies: ["SpeechCore", "Planning", "Rendering"]),
        .target(
            name: "ConcatSynth",
            dependencies: ["SpeechCore", "SSML", "Tokens", "Planning", "Rendering", "Voicebank", "AudioIO"]),
        // The Wyoming text-to-speech server on swift-nio (issue 11), apart from the speech-dispatcher module's
        // SpeechService so that the module links no NIO.
        .target(
            name: "WyomingService",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "Voicebank", "AudioIO",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "Voicebank", "SpeechCore", "AudioIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "VoicebankCLI",
            dependencies: [
                "Voicebank", "Verbalization", "CommandLineSupport", "ConcatSynth", "Planning", "SpeechCore", "Tokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Like concat-synth: the Swift runtime linked in, so tools/install's copy needs no toolchain at run time.
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"],
                    .when(configuration: .release))
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
                "Picture", "WyomingService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift runtime linked in: a release render's process starts ~1 ms sooner (issue 6). The three
            // libraries are what ArgumentParser's FoundationEssentials needs linked statically.
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"],
                    .when(configuration: .release))
            ]),

        // The speech-dispatcher module protocol over the library (issue 14); the module binary is a thin main.
        .target(
            name: "SpeechService",
            dependencies: ["AudioIO", "ConcatSynth", "Planning", "Rendering", "SpeechCore", "Voicebank"]),
        .executableTarget(
            name: "SpeechDispatcherModule",
            dependencies: ["SpeechService"],
            // Like concat-synth: the Swift runtime linked in, so the installed module needs no toolchain at run time
            // and starts sooner (the server starts a module per voice switch after a crash, and at every start).
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
                "SpeechService", "WyomingService",
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
            name: "PictureTests",
            dependencies: [
                "Picture", "Rendering", "Planning", "SpeechCore", "SSML", "SpeechTestSupport", "TestSupport",
            ]),
        .testTarget(
            name: "ConcatSynthTests",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "SSML", "Tokens", "Voicebank", "AudioIO",
                "TestSupport", "SpeechTestSupport",
            ]),
        .testTarget(
            name: "ConcatSynthCLITests",
            dependencies: [
                "ConcatSynth", "CommandLineSupport", "SpeechCore", "Voicebank", "AudioIO", "Tokens", "TestSupport",
            ]),
        .testTarget(
            name: "VoicebankTests", dependencies: ["Voicebank", "SpeechCore", "AudioIO", "CSQLite", "TestSupport"]),
        .testTarget(name: "ConcatSynthBenchTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "SpeechServiceTests",
            dependencies: [
                "SpeechService", "WyomingService", "AudioIO", "Voicebank", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
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
