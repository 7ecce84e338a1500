// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Synchronization
import Voicebank
import VoicebankAuthoring

/// Chooses the fallback voice's settings again as takes are kept and discarded, off the requests' path: a moment
/// after the last change, before the page listens, and at the end.
final class FallbackVoiceUpdates: Sendable {
    private let pack: StudioPack
    private let recordings: RecordingInProgress
    /// How many times takes were kept or discarded, and after how many of those the settings were last chosen.
    private let changes = Mutex((made: 0, chosen: 0))
    private let worker = WorkerThread()

    /// How long after the last keep or discard the fallback voice's settings are chosen again.
    static let delaySeconds = 2.0

    init(pack: StudioPack, recordings: RecordingInProgress) {
        self.pack = pack
        self.recordings = recordings
    }

    /// Chooses the fallback voice's settings from the takes as they are now, unless they were chosen after the last
    /// change.
    ///
    /// - Throws: `StudioError.voicebank` when espeak-ng cannot speak the voice's language any more.
    func update() throws(StudioError) {
        guard pack.voice.fallbackMode.usesFallbackVoice else { return }
        try pack.withPack { (pack) throws(VoicebankError) in
            let made = changes.withLock { $0.made }
            guard changes.withLock({ $0.chosen }) < made else { return }
            try pack.updateFallbackVoice(voice: self.pack.voice.identifier)
            changes.withLock { $0.chosen = made }
        }
    }

    /// Notes that takes changed, and chooses the settings again once no other change has come for `delaySeconds`, and
    /// no recording has started since. Choosing them is slow for a voice whose fallback voice is espeak-ng (it speaks
    /// sample phrases in each variant and pitch), which each keep would otherwise wait for; a recording
    /// started meanwhile is kept soon, and its keep would wait for them too.
    func takesChanged() {
        guard pack.voice.fallbackMode.usesFallbackVoice else { return }
        let change = changes.withLock { changes in
            changes.made += 1
            return changes.made
        }
        let recordingNumber = recordings.number
        worker.run(afterSeconds: Self.delaySeconds) { [self] in
            guard changes.withLock({ $0.made == change }), recordings.number == recordingNumber else { return }
            // A failure here changes nothing in the pack; the next Listen chooses again and reports it.
            try? update()
        }
    }
}
