// swift-tools-version:6.0
// SPDX-License-Identifier: GPL-3.0-or-later
import PackageDescription

/// How the installed executables (concat-synth, voicebank, sd_concat-synth) are linked in release builds, for a short
/// process's start (a `render` of one short request is measured against espeak-ng's whole process; docs/benchmarks.md
/// has the figures):
/// - `-static-stdlib`: the Swift runtime linked in, so tools/install's copies need no toolchain at run time, and
///   the process loads and binds no shared Swift libraries at start. The three libraries are what ArgumentParser's
///   FoundationEssentials needs.
/// - `--no-export-dynamic`: the toolchain's static-stdlib-args.lnk exports every symbol of the executable, which
///   nothing looks up; the runtime's start-up `dladdr` scanned them all, and they made every start's symbol lookups
///   slower.
/// - `-L tools/link`: its libstdc++.so is a linker script that links GCC's static libstdc++ instead of the shared one,
///   whose symbol bindings every start paid for (see the script).
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization",
            "-Xlinker", "--no-export-dynamic", "-L", Context.packageDirectory + "/tools/link",
        ],
        .when(configuration: .release))
]

/// Every program that links AudioIO exports its stand-in for pcaudiolib's create_audio_device_object, so that
/// libespeak-ng, loaded later, finds it first and probes no sound server (see EspeakNG.swift). A linking trick, so it
/// belongs to the executables (and the test bundle, through TestSupport), never to a target of the library product,
/// which a package that depends on ConcatSynth by version could not use with it: docs/library.md says how such a
/// program adds it.
let exportsNoAudioDevice: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=create_audio_device_object"])
]

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
        // `swift package generate-documentation --target ConcatSynth` (the DocC catalog); a plugin, linked into no
        // product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // SQLite is linked from Debian's static archive (the module map's `link ":libsqlite3.a"`; no pkgConfig, whose
        // -lsqlite3 would load the shared library all the same): libsqlite3.so, linked with -z now, binds all its
        // symbols at every start, most of them its own functions called through its PLT, a good part of a short
        // render's work. The cost: a fix in Debian's libsqlite3 reaches the tools when they are rebuilt.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        // The output's conversion to other rates (ConvertedPull); the import's stays on libsamplerate.
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(
            name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // No pkgConfig: libutf8proc.pc passes -DUTF8PROC_EXPORTS, a flag SwiftPM refuses; the header is in /usr/include.
        .systemLibrary(name: "CUTF8Proc", providers: [.apt(["libutf8proc-dev"])]),
        // No pkgConfig: Debian's libsonic-dev ships no .pc file; the header is in /usr/include.
        .systemLibrary(name: "CSonic", providers: [.apt(["libsonic-dev"])]),
        // SHA-256 of published and installed packs. Nettle rather than OpenSSL's libcrypto: three calls, none deprecated.
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        // No pkgConfig: its only flag is -lasound, and libasound is not linked but loaded by Playback when `say` or
        // `voicebank record` opens a device (see shim.h), so that other commands do not load it at start.
        .systemLibrary(name: "CAlsa", providers: [.apt(["libasound2-dev"])]),
        // No pkgConfig, for the same reason: libespeak-ng is loaded by AudioIO when the fallback voice first speaks.
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        // No pkgConfig, for the same reason: libspandsp, whose G.722 decoder reads Asterisk's `.g722` prompts, is loaded
        // by AudioIO when the first such file is read (see shim.h).
        .systemLibrary(name: "CSpanDSP", providers: [.apt(["libspandsp-dev"])]),
        // Debian's static libaubio (the module map's `link ":libaubio.a"`), of which F0 tracking needs a few objects
        // and libfftw3f: libaubio.so would load its many dependencies (libavcodec, librsvg, …) at every start of
        // `voicebank`.
        .systemLibrary(name: "CAubio", providers: [.apt(["libaubio-dev", "libfftw3-dev"])]),

        // The value types every stage shares (formats, clip takes, prosody, markers); no C, no I/O.
        .target(name: "SpeechCore"),
        .target(
            name: "AudioIO",
            dependencies: [
                "SpeechCore", "CSndFile", "CSampleRate", "CSoxr", "CEbur128", "CSonic", "CEspeakNG", "CSpanDSP",
            ]),
        // What authoring measures of recordings beyond loudness: F0 (aubio's YIN), each take's edges (aubio's phase
        // vocoder and MFCC) and contour. Apart from AudioIO so that the speaking executables, which read what was
        // measured from the pack, load neither aubio nor libfftw3f.
        .target(name: "AudioFeatures", dependencies: ["SpeechCore", "CAubio"]),
        // libpocketsphinx (Debian's libpocketsphinx-dev, with pocketsphinx-en-us's model) is loaded by Recognition when
        // words are first checked, as libespeak-ng is, so that `voicebank` runs everything else on a machine without
        // it: no pkgConfig, whose flags would link it. Not a system-library shim: pocketsphinx.h includes its
        // neighbours by bare name, so only a C file compiled with their folder on its path can include it (see
        // CPocketSphinx.h).
        .target(name: "CPocketSphinx", cSettings: [.unsafeFlags(["-I/usr/include/pocketsphinx"])]),
        // The offline recogniser (pocketsphinx): the words heard in a take, among a grammar's phrases or free-form.
        .target(name: "Recognition", dependencies: ["AudioIO", "CPocketSphinx"]),
        // Sound devices through ALSA: playback for `concat-synth say`, capture and playback for `voicebank record`;
        // libasound is loaded when a device is opened.
        .target(name: "Playback", dependencies: ["CAlsa", "AudioIO"]),
        .target(name: "Tokens", dependencies: ["CUTF8Proc"]),
        .target(name: "SSML", dependencies: ["SpeechCore"]),
        .target(name: "Verbalization"),
        // The voice pack's store: schema and migrations, opening a pack, voices, clip reads and look-ups. All that the
        // speaking path (render, say, the module, the servers) needs of a pack.
        .target(
            name: "Voicebank", dependencies: ["SpeechCore", "CSQLite", "AudioIO"], path: "Sources/Voicebank/Store"),
        // Making and changing packs: voices and their settings, import (transcripts, the preparation pipeline),
        // export, inspection and verify (with its check by listening), remove; only `voicebank`, the tests and the
        // benchmark link it.
        .target(
            name: "VoicebankAuthoring",
            dependencies: [
                "Voicebank", "SpeechCore", "AudioIO", "AudioFeatures", "Tokens", "CNettle", "Recognition", "Units",
            ],
            path: "Sources/Voicebank/Authoring"),
        // The voice's own takes cut into units, one language at a time: the phone set and phonetic front end (English:
        // espeak-ng's phonemes), the unit index read from a pack's alignments, the costs and the search that choose
        // units. Never names the voice pack.
        .target(name: "Units", dependencies: ["SpeechCore", "AudioIO"]),
        // Events to a timed plan: matching, planning, the timeline. Never names the voice pack.
        .target(name: "Planning", dependencies: ["SpeechCore", "SSML", "Tokens", "Verbalization", "Units"]),
        // The pull renderer: a plan's timeline to samples, time-stretched where the prosody asks.
        .target(name: "Rendering", dependencies: ["SpeechCore", "Planning", "AudioIO"]),
        // A picture of a render as SVG, drawn as it is pulled.
        .target(name: "Picture", dependencies: ["SpeechCore", "Planning", "Rendering"]),
        // The only door into the engine: a typed request in, a stream of plan, audio and markers out. Outside
        // Voicebank's own targets, only this, the `voicebank` tool, its studio and the benchmark (which builds packs)
        // import the store.
        .target(
            name: "ConcatSynth",
            dependencies: [
                "SpeechCore", "SSML", "Tokens", "Planning", "Rendering", "Picture", "Voicebank", "AudioIO", "Units",
            ]),
        // The one JSON writer of the tools and the servers (JSONEncoder, keys sorted): apart from the library, so that
        // the speech-dispatcher module, which writes no JSON, loads no Foundation.
        .target(name: "JSONWriter"),
        // The start-up every server shares (Wyoming, the HTTP speech API, the studio): where it listens (tcp:// or
        // unix://), its event loop and job threads, the line it logs once it listens, and how SIGINT and SIGTERM stop it.
        .target(
            name: "NetworkServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The Wyoming text-to-speech server on swift-nio, apart from the speech-dispatcher module's
        // SpeechService so that the module links no NIO.
        .target(
            name: "WyomingService",
            dependencies: [
                "ConcatSynth", "SpeechCore", "AudioIO", "NetworkServer", "JSONWriter",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The HTTP speech API (OpenAI-compatible and MaryTTS) on swift-nio's HTTP/1.1 codec.
        .target(
            name: "HTTPService",
            dependencies: [
                "ConcatSynth", "AudioIO", "NetworkServer", "JSONWriter",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The recording studio (`voicebank studio`): its page, and the routes that keep takes through the import;
        // served on HTTPService's server. And its terminal twin (`voicebank record`), which records through Playback's
        // ALSA capture. The page's files are embedded in the code (`PackageResources`): a resource
        // bundle would need Foundation's Bundle, which the release link has not, and a folder beside the binary that
        // tools/install does not copy.
        .target(
            name: "Studio",
            dependencies: [
                "HTTPService", "NetworkServer", "ConcatSynth", "Voicebank", "VoicebankAuthoring", "AudioIO",
                "SpeechCore",
                "Tokens", "Playback", "Verbalization", "Recognition", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // Each of the page's modules is a file here and a route of StudioFiles.
            resources: [
                .embedInCode("Page/index.html"), .embedInCode("Page/studio.css"), .embedInCode("Page/studio.js"),
                .embedInCode("Page/recorder.js"), .embedInCode("Page/modules/state.js"),
                .embedInCode("Page/modules/words.js"), .embedInCode("Page/modules/announce.js"),
                .embedInCode("Page/modules/api.js"), .embedInCode("Page/modules/pages.js"),
                .embedInCode("Page/modules/prompts.js"), .embedInCode("Page/modules/takes.js"),
                .embedInCode("Page/modules/microphone.js"), .embedInCode("Page/modules/recording.js"),
                .embedInCode("Page/modules/texts.js"), .embedInCode("Page/modules/keyboard.js"),
            ]),
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "ConcatSynth", "SpeechCore", "AudioIO", "JSONWriter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "VoicebankCLI",
            dependencies: [
                "Voicebank", "VoicebankAuthoring", "Verbalization", "CommandLineSupport", "ConcatSynth",
                "SpeechCore", "Tokens", "AudioIO", "Studio", "HTTPService", "NetworkServer", "Recognition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Like concat-synth (see releaseLinking).
            linkerSettings: exportsNoAudioDevice + releaseLinking),

        .target(
            name: "TestSupport", dependencies: ["AudioIO", "AudioFeatures", "CSQLite"], path: "Tests/TestSupport",
            linkerSettings: exportsNoAudioDevice),
        // In-memory phrases and clips for the planning and rendering tests, which link no SQLite.
        .target(
            name: "SpeechTestSupport", dependencies: ["SpeechCore", "Planning", "Rendering"],
            path: "Tests/SpeechTestSupport"),
        .executableTarget(
            name: "ConcatSynthCLI",
            dependencies: [
                "ConcatSynth", "SpeechCore", "AudioIO", "CommandLineSupport", "Playback", "WyomingService",
                "HTTPService", "NetworkServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A release render's whole process is what the latency target measures (see releaseLinking).
            linkerSettings: exportsNoAudioDevice + releaseLinking),

        // The speech-dispatcher module protocol over the library; the module binary is a thin main.
        .target(
            name: "SpeechService",
            dependencies: ["AudioIO", "ConcatSynth", "SpeechCore"]),
        .executableTarget(
            name: "SpeechDispatcherModule",
            dependencies: ["SpeechService"],
            // Like concat-synth (see releaseLinking): the server starts a module at every start and after a crash.
            linkerSettings: exportsNoAudioDevice + releaseLinking),

        // The benchmark (tools/bench); the test suite runs its --smoke mode.
        .executableTarget(
            name: "ConcatSynthBench",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "Voicebank", "VoicebankAuthoring", "AudioIO",
                "AudioFeatures", "Recognition", "CSQLite", "CSampleRate", "CEspeakNG", "SpeechService",
                "WyomingService", "Tokens", "Verbalization", "Units",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: exportsNoAudioDevice),

        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "AudioFeatures", "SpeechCore", "TestSupport"]),
        .testTarget(name: "TokensTests", dependencies: ["Tokens"]),
        .testTarget(
            name: "UnitsTests", dependencies: ["Units", "SpeechCore", "AudioIO", "TestSupport", "SpeechTestSupport"]),
        .testTarget(name: "RecognitionTests", dependencies: ["Recognition", "AudioIO", "SpeechCore", "TestSupport"]),
        .testTarget(name: "SSMLTests", dependencies: ["SSML", "SpeechCore"]),
        .testTarget(name: "VerbalizationTests", dependencies: ["Verbalization"]),
        .testTarget(
            name: "PlanningTests", dependencies: ["Planning", "SpeechCore", "SSML", "Tokens", "SpeechTestSupport"]),
        .testTarget(
            name: "RenderingTests",
            dependencies: ["Rendering", "Planning", "SpeechCore", "SSML", "AudioIO", "SpeechTestSupport", "Units"]),
        .testTarget(
            name: "PictureTests",
            dependencies: [
                "Picture", "Rendering", "Planning", "SpeechCore", "SSML", "SpeechTestSupport", "TestSupport",
            ]),
        .testTarget(
            name: "ConcatSynthTests",
            dependencies: [
                "ConcatSynth", "Planning", "Rendering", "SpeechCore", "SSML", "Tokens", "Voicebank",
                "VoicebankAuthoring", "AudioIO", "AudioFeatures", "TestSupport", "SpeechTestSupport",
            ]),
        .testTarget(
            name: "ConcatSynthCLITests",
            dependencies: [
                "ConcatSynth", "ConcatSynthCLI", "CommandLineSupport", "SpeechCore", "Voicebank", "VoicebankAuthoring",
                "AudioIO", "Tokens", "TestSupport",
            ]),
        .testTarget(
            name: "VoicebankTests",
            dependencies: ["Voicebank", "VoicebankAuthoring", "SpeechCore", "AudioIO", "CSQLite", "TestSupport", "Units"]),
        .testTarget(name: "ConcatSynthBenchTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "SpeechServiceTests",
            dependencies: [
                "SpeechService", "WyomingService", "HTTPService", "NetworkServer", "ConcatSynth", "SSML", "AudioIO",
                "Voicebank", "JSONWriter", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            // The Wyoming tests' Python client, run from the source tree.
            exclude: ["Fixtures/wyoming_driver.py", "Fixtures/http_driver.py"]),
        .testTarget(
            name: "NetworkServerTests",
            dependencies: [
                "NetworkServer", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "HTTPServiceTests",
            dependencies: [
                "HTTPService", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "StudioTests",
            dependencies: ["Studio", "ConcatSynth", "Voicebank", "AudioIO", "TestSupport"],
            // The browser tests' Selenium driver and the terminal tests' pseudo-terminal, run from the source tree.
            exclude: ["Fixtures/studio_driver.py", "Fixtures/terminal_driver.py"]),
        .testTarget(
            name: "VoicebankCLITests",
            dependencies: ["Voicebank", "VoicebankAuthoring", "SpeechCore", "AudioIO", "CSQLite", "TestSupport"]),
    ]
)

// Release code of this package's own modules reaches generic types through their metadata accessors rather than
// by mangled name, which a short render's whole process pays for: by mangled name, the runtime demangles the name at
// its first use and checks the generic requirements by looking each conformance up, a scan of every conformance
// record in the executable each time (Dictionary<KeyBytes, …>, Set<ClipTake>, [PlannerVoice<ClipIndex>], …; the
// figures are in docs/benchmarks.md). Most of those types are made in the library's modules, so the executables'
// flag alone does not reach them; but SwiftPM refuses a versioned dependency whose library targets carry an unsafe
// flag. So the library's targets take it only when the project's own release builds ask (tools/install, tools/bench
// and tools/concat-synth set CONCAT_SYNTH_RELEASE_TUNING=1), and a package that depends on ConcatSynth builds it
// without.
let metadataByAccessor: [SwiftSetting] = [
    .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release))
]
let tunesLibraryTargets = Context.environment["CONCAT_SYNTH_RELEASE_TUNING"] == "1"
for target in package.targets
where target.type == .executable || (target.type == .regular && tunesLibraryTargets) {
    target.swiftSettings = (target.swiftSettings ?? []) + metadataByAccessor
}

// The libFuzzer targets (tools/fuzz), declared only when tools/fuzz asks for them: built without
// `-sanitize=fuzzer` they have no entry point and would fail to link, and `swift build`/`swift test` should not
// compile five more executables. Being targets of this package, they reach `package` declarations and the in-memory
// test lookups that a separate package could only see through public library products.
if Context.environment["CONCAT_SYNTH_FUZZ"] == "1" {
    package.targets += [
        .executableTarget(
            name: "FuzzText", dependencies: ["SSML", "Planning", "Rendering", "SpeechCore", "SpeechTestSupport"],
            path: "Fuzz/Targets/FuzzText"),
        .executableTarget(
            name: "FuzzTranscript", dependencies: ["VoicebankAuthoring"], path: "Fuzz/Targets/FuzzTranscript"),
        .executableTarget(name: "FuzzAudio", dependencies: ["AudioIO"], path: "Fuzz/Targets/FuzzAudio"),
        .executableTarget(
            name: "FuzzPack", dependencies: ["ConcatSynth"], path: "Fuzz/Targets/FuzzPack"),
        .executableTarget(
            name: "FuzzInstall", dependencies: ["Voicebank", "VoicebankAuthoring"], path: "Fuzz/Targets/FuzzInstall"),
    ]
}
