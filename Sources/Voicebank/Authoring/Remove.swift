// SPDX-License-Identifier: GPL-3.0-or-later
import Tokens
import Voicebank

extension VoicePack {
    /// Removes clips, by id or by phrase, in one transaction, and returns what was removed.
    ///
    /// A phrase removes every take of it in the voice (the clips whose phrase key is what `phrase` normalises
    /// to, fallback clips included). Removing a voice's last fallback clip is refused unless `allowNoFallback`:
    /// without one, words no clip covers cannot be spoken.
    ///
    /// ```swift
    /// try pack.removeClips(phrases: ["Good morning"], voice: "com.example.ann")   // every take
    /// ```
    /// - Parameters:
    ///   - voice: the voice whose phrases are meant; `nil` for the pack's only voice. Ids are the pack's.
    ///   - choosesFallbackVoice: as for `importFiles`.
    /// - Throws: `AuthoringError.unknownPhrase` (nothing is removed then), `.lastFallback`; `.store` with
    ///   `.unknownClip` or a voice error.
    public func removeClips(
        ids: [Int] = [], phrases: [String] = [], voice: String? = nil, allowNoFallback: Bool = false,
        choosesFallbackVoice: Bool = true
    ) throws(AuthoringError) -> [Clip] {
        try database.transaction { () throws(AuthoringError) in
            var removing: [Clip] = []
            var seen: Set<Int> = []
            do throws(VoicebankError) {
                for id in ids where seen.insert(id).inserted { removing.append(try clip(id: id)) }
            } catch {
                throw .store(error)
            }
            if !phrases.isEmpty {
                let target: Voice
                let voiceClips: [Clip]
                do throws(VoicebankError) {
                    target = try resolveVoice(voice)
                    voiceClips = try clips(voice: target.identifier)
                } catch {
                    throw .store(error)
                }
                for phrase in phrases {
                    let key = Tokenizer.phraseKey(phrase)
                    let takes = voiceClips.filter { $0.phraseKey == key || ($0.isFallback && $0.phrase == phrase) }
                    guard !takes.isEmpty else {
                        throw .unknownPhrase(phrase: phrase, voice: target.identifier, path: path)
                    }
                    for take in takes where seen.insert(take.id).inserted { removing.append(take) }
                }
            }
            let fallbackVoices = Set(removing.filter(\.isFallback).map(\.voice))
            do throws(VoicebankError) {
                let delete = try database.prepare("DELETE FROM clip WHERE id = ?")
                for clip in removing { try delete.bind(.integer(clip.id)).run() }
                for voice in Set(removing.map(\.voice)).sorted() {
                    try updateMeasurements(voice: voice, isChoosingFallbackVoice: choosesFallbackVoice)
                }
            } catch {
                throw .store(error)
            }
            if !allowNoFallback {
                for voice in fallbackVoices.sorted() {
                    let hasFallback: Bool
                    do throws(VoicebankError) {
                        hasFallback = try clips(voice: voice).contains(where: \.isFallback)
                    } catch {
                        throw .store(error)
                    }
                    guard hasFallback else { throw .lastFallback(voice: voice, path: path) }
                }
            }
            return removing.sorted { $0.id < $1.id }
        }
    }

    /// Removes a voice and all its clips in one transaction; returns the voice and how many clips it had.
    ///
    /// - Throws: `VoicebankError.unknownVoice`.
    public func removeVoice(_ identifier: String) throws(VoicebankError) -> (voice: Voice, clipCount: Int) {
        try database.transaction { () throws(VoicebankError) in
            let voices = try voices()
            guard let voice = voices.first(where: { $0.identifier == identifier }) else {
                throw .unknownVoice(identifier: identifier, available: voices.map(\.identifier), path: path)
            }
            let count = try clips(voice: identifier).count
            try database.prepare("DELETE FROM clip WHERE voice_id = (SELECT id FROM voice WHERE identifier = ?)")
                .bind(.text(identifier)).run()
            try database.prepare("DELETE FROM voice WHERE identifier = ?").bind(.text(identifier)).run()
            return (voice, count)
        }
    }
}
