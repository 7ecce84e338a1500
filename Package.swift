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

        .target(name: "AudioIO", dependencies: ["CSndFile", "CSampleRate", "CEbur128"]),
        .target(name: "Tokens", dependencies: ["CUTF8Proc"]),
        .target(name: "SSML"),
        .target(name: "Verbalization"),
        .target(name: "Voicebank", dependencies: ["CSQLite", "AudioIO", "Tokens"]),
        .target(name: "ConcatSynth", dependencies: ["SSML", "Tokens", "Verbalization", "Voicebank", "AudioIO"]),
        .target(
            name: "CommandLineSupport",
            dependencies: ["Voicebank", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "VoicebankCLI",
            dependencies: [
                "Voicebank", "Verbalization", "CommandLineSupport", "ConcatSynth", "Tokens",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .target(name: "TestSupport", dependencies: ["AudioIO", "CSQLite"], path: "Tests/TestSupport"),
        .executableTarget(
            name: "ConcatSynthCLI",
            dependencies: [
                "ConcatSynth", "CommandLineSupport",
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
        .target(name: "SpeechService", dependencies: ["ConcatSynth", "Voicebank"]),
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
                "ConcatSynth", "Voicebank", "AudioIO", "CSQLite", "CSampleRate", "SpeechService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "TestSupport"]),
        .testTarget(name: "TokensTests", dependencies: ["Tokens"]),
        .testTarget(name: "SSMLTests", dependencies: ["SSML"]),
        .testTarget(name: "VerbalizationTests", dependencies: ["Verbalization"]),
        .testTarget(
            name: "ConcatSynthTests",
            dependencies: ["ConcatSynth", "SSML", "Tokens", "Voicebank", "AudioIO", "TestSupport"]),
        .testTarget(
            name: "ConcatSynthCLITests", dependencies: ["ConcatSynth", "Voicebank", "AudioIO", "Tokens", "TestSupport"]),
        .testTarget(name: "VoicebankTests", dependencies: ["Voicebank", "AudioIO", "CSQLite", "TestSupport"]),
        .testTarget(name: "ConcatSynthBenchTests", dependencies: ["TestSupport"]),
        .testTarget(name: "VoicebankCLITests", dependencies: ["Voicebank", "AudioIO", "CSQLite", "TestSupport"]),
        .testTarget(name: "SpeechServiceTests", dependencies: ["SpeechService", "Voicebank", "TestSupport"]),
    ]
)
