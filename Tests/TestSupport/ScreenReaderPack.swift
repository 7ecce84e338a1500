// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The pack the tests speak with: `org.concatsynth.en`, about a hundred screen-reader phrases, the number words and
/// the letters spoken by flite (`Tests/Fixtures/screen-reader/en.tsv`), and `org.concatsynth.ja`, the default pack's
/// Japanese voice. Made by `tools/build-test-pack` in the build folder once, and again when its sources change, so
/// that no test depends on the default pack, which is built from recordings the tests do not have.
public enum ScreenReaderPack {
    /// The repository, found from where this file was compiled.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The folder the pack and its English clips are made in: beside the build's products.
    static let folder = URL(fileURLWithPath: Binary("voicebank").path).deletingLastPathComponent()
        .appendingPathComponent("screen-reader-pack").path

    /// The pack, built on first use (read it, or copy it to change it).
    public static var path: String {
        precondition(built.isEmpty, "tools/build-test-pack failed: \(built)")
        return "\(folder)/screen-reader.sqlite"
    }

    /// The folder of its English clips and their transcript (`en.tsv`, `en/hello.aiff`, …).
    public static var englishSources: String {
        _ = path
        return "\(folder)/sources"
    }

    /// Empty once the pack is built; else why it is not.
    private static let built: String = {
        do {
            // Named, so that `Binary.start` does not ask for this pack while it is being made.
            let result = try Binary(path: "\(repository)/tools/build-test-pack").run(
                [folder, Binary("voicebank").path], environment: ["CONCAT_SYNTH_BANK": nil])
            return result.status == 0 ? "" : result.standardError
        } catch {
            return "\(error)"
        }
    }()
}
