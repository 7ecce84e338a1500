// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
import Voicebank

/// What a server's client reads when the pack fails a request: the library's message, which names no option of the
/// command line that started the server; the command line itself still words the remedy with its flags.
@Suite struct ClientErrorTests {
    let directory = TemporaryDirectory("concat-synth-client-error")

    @Test("an HTTP client asking for a damaged clip gets a 500 that names the clip and no --bank")
    func damagedClipOverHTTP() throws {
        let pack = directory.file("pack.sqlite")
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: pack)
        try execute("UPDATE clip SET trim_start = -5 WHERE phrase = 'hello'", on: pack)
        let server = try WyomingTestServer(arguments: ["serve", "--bank", pack, "--http", "127.0.0.1:0"]) { line in
            line.hasPrefix("HTTP listening on ") ? String(line.dropFirst("HTTP listening on ".count)) : nil
        }
        let body = #"{"model": "tts-1", "input": "Hello", "voice": "org.concatsynth.en", "response_format": "wav"}"#
        let answer = try curl([
            "-H", "Content-Type: application/json", "-d", body, server.uri + "/v1/audio/speech",
        ])
        #expect(answer.status == 500, "\(answer.body)")
        #expect(answer.body.contains("has a damaged clip"), "\(answer.body)")
        #expect(!answer.body.contains("--bank"), "\(answer.body)")

        let rendered = try Binary("concat-synth").run([
            "render", "--bank", pack, "-o", directory.file("x.wav"), "Hello",
        ])
        #expect(rendered.status == 1)
        #expect(
            rendered.standardError.contains("(`voicebank remove --bank \(pack) --clip "), "\(rendered.standardError)")
    }
}
