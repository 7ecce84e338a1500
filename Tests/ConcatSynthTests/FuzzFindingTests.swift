// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Foundation
import Rendering
import TestSupport
import Testing
import Voicebank

/// Inputs `tools/fuzz pack` found, fed through the path it feeds them through: the pack opened read-only and
/// its fixed request rendered. Each input is in the seed corpus, `Fuzz/Seeds/pack`.
@Suite struct FuzzFindingTests {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Seeds/pack").path

    /// What `FuzzPack` does with an input: open, render to the end, or throw.
    func render(_ seed: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pack.sqlite")
        try FileManager.default.copyItem(atPath: "\(Self.seeds)/\(seed)", toPath: path)
        let synthesizer = try Synthesizer(pack: VoicePack(path: path, access: .readOnly))
        let renderer = try synthesizer.renderer(
            for: SpeechRequest(
                #"<speak>hello world <break time="20ms"/> <prosody rate="150%" pitch="+2st">hello 12 zebra</prosody></speak>"#
            ))
        var buffer = [Float](repeating: 0, count: 4_096)
        while try !buffer.withUnsafeMutableBufferPointer({ try renderer.render(into: $0) }).isComplete {}
    }

    @Test("the seed pack renders")
    func seed() throws { try render("hello-world.sqlite") }

    // Rendered 3.4e18 frames of silence, a libFuzzer timeout, before clip rows were checked against their blobs.
    @Test("a clip whose frame_count was changed to 3407362780950692502 is refused, naming the clip")
    func hugeFrameCount() throws {
        #expect {
            try render("huge-frame-count.sqlite")
        } throws: { error in
            let message = "\(error)"
            return message.contains("#1") && message.contains("hello") && message.contains("3407362780950692502")
        }
    }
}
