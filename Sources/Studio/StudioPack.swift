// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import Voicebank
import VoicebankAuthoring

/// A studio's pack, opened for writing, and the voice whose takes it keeps: every read and change of the pack goes
/// through `withPack`, one at a time.
final class StudioPack: Sendable {
    let path: String
    let voice: Voice
    private let pack: Mutex<VoicePack>

    /// - Parameter pack: opened for writing; the studio's from now on.
    init(_ pack: sending VoicePack, voice: Voice) {
        path = pack.path
        self.voice = voice
        self.pack = Mutex(pack)
    }

    /// Runs `body` on the pack, while no other request reads or changes it.
    ///
    /// - Throws: `StudioError.voicebank` for what `body` throws.
    func withPack<T: Sendable>(_ body: (VoicePack) throws(VoicebankError) -> T) throws(StudioError) -> T {
        do {
            return try pack.withLock { (pack) throws(VoicebankError) -> T in try body(pack) }
        } catch {
            throw .voicebank(error)
        }
    }

    /// Runs `body`, a change authoring makes (an import, a removal), as `withPack` runs a read.
    ///
    /// - Throws: `StudioError.voicebank` for what the pack refused, `.authoring` for the rest.
    func withPack<T: Sendable>(_ body: (VoicePack) throws(AuthoringError) -> T) throws(StudioError) -> T {
        do {
            return try pack.withLock { (pack) throws(AuthoringError) -> T in try body(pack) }
        } catch .store(let error) {
            throw .voicebank(error)
        } catch {
            throw .authoring(error)
        }
    }
}
