// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// Removal's errors: authoring's own, and the store's carried in them, each leaving the pack as it was.
@Suite struct RemoveTests {
    /// A pack whose voice has a phrase clip and its only fallback clip.
    func packWithFallback() throws -> (temporary: TemporaryPack, phrase: Clip, fallback: Clip) {
        let temporary = try TemporaryPack()
        let hello = try Fixture.seedClip(at: temporary.directory.file("hello.aiff"), seconds: 0.3)
        let beep = try Fixture.seedClip(at: temporary.directory.file("beep.aiff"), seconds: 0.2)
        let report = try temporary.pack.importFiles(
            [ImportRequest(path: hello), ImportRequest(path: beep, isFallback: true)], into: nil)
        return (temporary, report.imported[0], report.imported[1])
    }

    @Test("refused in the transaction after the clips were deleted, a removal leaves every clip in the pack")
    func refusedRemovalRollsBack() throws {
        let (temporary, phrase, fallback) = try packWithFallback()
        #expect(throws: AuthoringError.lastFallback(voice: "com.example.ann", path: temporary.pack.path)) {
            try temporary.pack.removeClips(ids: [phrase.id, fallback.id])
        }
        #expect(try temporary.pack.clips().map(\.id) == [phrase.id, fallback.id])
    }

    @Test("the store's refusal comes as .store, in the store's words, and removes nothing")
    func storeErrorCarried() throws {
        let (temporary, phrase, _) = try packWithFallback()
        let error = try #require(throws: AuthoringError.self) {
            try temporary.pack.removeClips(ids: [phrase.id, 999])
        }
        #expect(error == .store(.unknownClip(id: 999, path: temporary.pack.path)))
        #expect(error.description == "no clip 999 in \(temporary.pack.path)")
        #expect(try temporary.clipCount() == 2)
    }
}
