// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import AudioIO

/// Inputs `tools/fuzz audio` found, fed through the path it feeds them through: `PreparedClip(bytes:)`.
@Suite struct FuzzFindingTests {
    @Test("a 42-byte FLAC whose header claims hours of many channels is refused without allocating them")
    func flacClaimingHours() throws {
        let bytes: [UInt8] = [
            0x66, 0x4C, 0x61, 0x43, 0x00, 0x00, 0x00, 0x22, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00, 0x7F, 0x00, 0x00, 0x01,
            0x7F, 0x00, 0xF4, 0xF0, 0x50, 0x00, 0x22, 0x00, 0x2B, 0x00, 0xF8, 0x43, 0x79, 0x00, 0x00, 0x00, 0xC9, 0x41,
            0x01, 0x7F, 0x00, 0xC0, 0xC1, 0xE0,
        ]
        let claimed = try SoundFileReader(bytes: bytes, name: "claims.flac").format
        // What reading it whole up front would have allocated, in bytes of Float.
        #expect(claimed.frameCount * claimed.channelCount * 4 > 1 << 30)

        // libsndfile stops at the missing frames; which of its errors says so does not matter, only that it is one
        // naming the input.
        #expect {
            try PreparedClip(bytes: bytes, name: "claims.flac")
        } throws: { error in
            (error as? AudioIOError)?.description.contains("claims.flac") == true
        }
    }
}
