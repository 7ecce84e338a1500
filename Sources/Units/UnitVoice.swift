// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// What the units fallback speaks with for one voice: its aligned takes (read once into a `UnitIndex`, with their join
/// features), their audio, its language's front end and the costs' weights; and what it has worked out of the takes
/// (stress, and the join features of takes the look-up has none for), kept while the pack is unchanged.
///
/// Used by one request at a time, like the clip index it reads through.
public final class UnitVoice {
    public let lookup: any UnitLookup
    public let audio: any ClipAudioSource
    /// The voice's language's front end; `nil` for a language that has none yet, whose words the units never build.
    public let frontEnd: (any PhoneticFrontEnd)?
    public let weights: UnitWeights
    /// Whether joins are cut at pitch marks and F0 is brought to the run's contour, or both left as recorded.
    public let prosody: UnitProsody
    private var built: (index: UnitIndex, version: UInt64?)?
    /// Join features measured from the audio of takes that have none stored, by take and phone in the index.
    private var measured: [FeatureKey: [Float]] = [:]
    private var stresses: [Int: [Int?]] = [:]
    private var audios: [Int: AlignedTake.Audio] = [:]
    private var marks: [Int: [Int]] = [:]

    private struct FeatureKey: Hashable {
        var take: Int
        var phone: Int
    }

    public init(
        lookup: any UnitLookup, audio: any ClipAudioSource, frontEnd: (any PhoneticFrontEnd)?,
        weights: UnitWeights = .standard, prosody: UnitProsody = .shaped
    ) {
        self.lookup = lookup
        self.audio = audio
        self.frontEnd = frontEnd
        self.weights = weights
        self.prosody = prosody
    }

    /// The unit index, built from the look-up on first use and again once the pack has changed.
    ///
    /// - Throws: what the look-up throws.
    public func index() throws -> UnitIndex {
        let version = audio.samplesVersion
        if let built, version != nil, built.version == version { return built.index }
        let index = UnitIndex(takes: try lookup.alignedTakes())
        built = (index, version)
        measured.removeAll()
        stresses.removeAll()
        audios.removeAll()
        marks.removeAll()
        return index
    }

    /// Each phone's stress in a take of `index`, from the front end's phones for its words where they agree with the
    /// aligner's; measured for a take when a unit of it is first weighed.
    func stress(take: Int, phone: Int, in index: UnitIndex) -> Int? {
        if let known = stresses[take] { return known[phone] }
        var result = [Int?](repeating: nil, count: index.takes[take].phones.count)
        let indexed = index.takes[take]
        if let frontEnd, let phones = try? frontEnd.phones(for: indexed.aligned.words.map(\.label)),
            phones.count == indexed.aligned.words.count
        {
            for (word, wordPhones) in phones.enumerated() {
                let indices = indexed.phones.indices.filter { indexed.phones[$0].word == word }
                guard indices.map({ indexed.phones[$0].symbol }) == wordPhones.map(\.symbol) else { continue }
                for (position, phone) in zip(indices, wordPhones) { result[position] = phone.stress }
            }
        }
        stresses[take] = result
        return result[phone]
    }

    /// A take's level and length, asked of the look-up once.
    ///
    /// - Throws: what the look-up throws.
    func audio(of take: AlignedTake) throws -> AlignedTake.Audio {
        if let known = audios[take.clipID] { return known }
        let audio = try lookup.audio(clipID: take.clipID)
        audios[take.clipID] = audio
        return audio
    }

    /// A take's pitch marks, asked of the look-up once.
    ///
    /// - Throws: what the look-up throws.
    func pitchMarks(of take: AlignedTake) throws -> [Int] {
        if let known = marks[take.clipID] { return known }
        let measured = try lookup.pitchMarks(clipID: take.clipID)
        marks[take.clipID] = measured
        return measured
    }

    /// The gain in dB a take plays at.
    func level(of take: AlignedTake) throws -> Double { try take.levelDecibels ?? audio(of: take).levelDecibels }

    /// Words `words` of a take of `index`, cut at their aligned boundaries and within the frames the take plays, at
    /// the take's level.
    ///
    /// - Throws: what the look-up throws.
    public func slice(ofWords words: Range<Int>, inTake take: Int, in index: UnitIndex) throws -> ClipTake {
        let aligned = index.takes[take].aligned
        let audio = try audio(of: aligned)
        let frames = index.frames(ofWords: words, inTake: take)
        let played = frames.clamped(to: audio.playedFrames)
        return aligned.slice(played.isEmpty ? frames : played, levelDecibels: audio.levelDecibels)
    }

    /// The join features at the middle of a phone of a take of `index` (`JoinFeatures`' values for one phone), and
    /// the level its take plays at: as the look-up keeps them with the take, or, for a take it has none for (a pack
    /// from before they were kept, read as it is), measured from the take's audio the first time a join asks.
    ///
    /// - Throws: what reading the audio throws.
    func joinFeatures(take: Int, phone: Int, in index: UnitIndex) throws -> (
        values: ArraySlice<Float>, levelDecibels: Double
    ) {
        let aligned = index.takes[take].aligned
        let level = try level(of: aligned)
        if let stored = aligned.joinFeatures {
            let start = phone * JoinFeatures.valuesPerPhone
            return (stored.values[start..<start + JoinFeatures.valuesPerPhone], level)
        }
        let key = FeatureKey(take: take, phone: phone)
        if let known = measured[key] { return (known[...], level) }
        let frame = index.frame(of: UnitIndex.Cut(take: take, phone: phone, point: .middle))
        let values = EdgeFeatures(
            samples: try samples(of: aligned, frame - EdgeFeatures.windowFrames / 2, EdgeFeatures.windowFrames)
        ).joinValues
        measured[key] = values
        return (values[...], level)
    }

    /// `count` frames of a take's whole samples from `start` on, as stored (not at its level); zeros where they fall
    /// outside it.
    func samples(of take: AlignedTake, _ start: Int, _ count: Int) throws -> [Float] {
        var samples = [Float](repeating: 0, count: count)
        let first = max(0, start)
        let end = min(try audio(of: take).wholeFrameCount, start + count)
        guard end > first else { return samples }
        try samples.withUnsafeMutableBufferPointer { buffer in
            let target = UnsafeMutableBufferPointer(rebasing: buffer[(first - start)..<(end - start)])
            _ = try audio.readRenderReadyPCM(take.slice(first..<end, levelDecibels: 0), from: 0, into: target)
        }
        return samples
    }
}
