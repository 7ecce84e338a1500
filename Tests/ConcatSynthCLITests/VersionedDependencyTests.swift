// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Foundation
import TestSupport
import Testing
import Voicebank

/// `ConcatSynth` as another package uses it: by version, from a tagged clone of this repository. SwiftPM refuses a
/// versioned dependency whose product's targets carry `unsafeFlags`, so this fails if one comes back.
@Suite struct VersionedDependencyTests {
    @Test("a package that depends on ConcatSynth by url and from: builds and renders a request")
    func versionedDependency() throws {
        let directory = TemporaryDirectory("versioned-dependency")
        let name = "concat-synth-\(UUID().uuidString.prefix(8).lowercased())"
        let repository = directory.file(name)
        let app = directory.file("app")
        let cache = FileManager.default.homeDirectoryForCurrentUser.path + "/.cache/org.swift.swiftpm/repositories"
        defer {
            // SwiftPM leaves the build's lock files in the temporary folder, named after the build's path.
            let temporary = FileManager.default.temporaryDirectory.path
            let locks = app.replacingOccurrences(of: "/", with: "_")
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
            where entry.hasPrefix(locks) {
                try? FileManager.default.removeItem(atPath: temporary + "/" + entry)
            }
            // SwiftPM keeps a clone of every repository it fetches in its shared cache; this one is of no use after.
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? [] where entry.hasPrefix(name)
            {
                try? FileManager.default.removeItem(atPath: cache + "/" + entry)
            }
        }

        // The working tree as it is (its files under version control and the new ones not ignored), committed and
        // tagged in a repository of its own.
        let made = try shell(
            """
            mkdir -p '\(repository)'
            git -C '\(PythonDriver.root)' ls-files -z --cached --others --exclude-standard \
                | (cd '\(PythonDriver.root)' && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C '\(repository)'
            cd '\(repository)'
            git init -q
            git add -A
            git -c user.name=test -c user.email=test@example.com commit -qm 'concat-synth as released'
            git tag 1.0.0
            """)
        try #require(made.status == 0, "\(made.output)")

        try FileManager.default.createDirectory(atPath: app + "/Sources/App", withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "App",
            dependencies: [.package(url: "file://\(repository)", from: "1.0.0")],
            targets: [.executableTarget(name: "App", dependencies: [.product(name: "ConcatSynth", package: "\(name)")])]
        )
        """.write(toFile: app + "/Package.swift", atomically: true, encoding: .utf8)
        try """
        import ConcatSynth

        let synthesizer = try Synthesizer(bank: CommandLine.arguments[1])
        let renderer = try synthesizer.renderer(for: SpeechRequest(.text("Hello")))
        var buffer = [Float](repeating: 0, count: 1_024)
        var frameCount = 0
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            frameCount += pulled.frameCount
            if pulled.isComplete { break }
        }
        print(frameCount)
        """.write(toFile: app + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
        // The versions this repository resolved, so that the build fetches nothing new.
        try? FileManager.default.copyItem(
            atPath: PythonDriver.root + "/Package.resolved", toPath: app + "/Package.resolved")

        let built = try shell("cd '\(app)' && swift build 2>&1")
        try #require(built.status == 0, "\(built.output)")
        let pack = ScreenReaderPack.path
        let rendered = try shell("cd '\(app)' && \"$(swift build --show-bin-path)/App\" '\(pack)'")
        try #require(rendered.status == 0, "\(rendered.output)")
        let expected = try Synthesizer(bank: pack).plan(SpeechRequest(.text("Hello"))).frameCount
        #expect(expected > 0)
        #expect(rendered.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(expected)")
    }

    /// Runs `script` with `sh -e`: it stops at the first step that fails, with that status.
    private func shell(_ script: String) throws -> (status: Int32, output: String) {
        let result = try Binary(path: "/bin/sh").run(["-ec", script])
        return (result.status, result.standardOutput + result.standardError)
    }
}
