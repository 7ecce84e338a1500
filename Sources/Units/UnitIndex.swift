// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// What a voice's aligned takes offer the units fallback, built once from their alignments (`UnitLookup`): where each
/// word is spoken whole, and every phone-pair (diphone) with where it was said. The speaking side reads only this:
/// no aligner or recogniser is loaded.
///
/// ```swift
/// let index = UnitIndex(takes: try clipIndex.alignedTakes())
/// index.longestSpan(of: ["good", "evening"], from: 0)   // a take that says "good evening", or "good" alone
/// index.units(ofPair: "HH-AH")                          // every HH followed by AH, in take order
/// ```
public final class UnitIndex: Sendable {
    /// A phone of a take as the index keeps it: its ARPAbet symbol and its place.
    public struct IndexedPhone: Equatable, Sendable {
        public var symbol: String
        public var frames: Range<Int>
        /// The index of its word in the take.
        public var word: Int
        /// Whether a pause (or the take's edge) comes before it, and after it.
        public var followsPause: Bool
        public var precedesPause: Bool
    }

    /// A take with its words and the phones that fit in its audio.
    public struct IndexedTake: Sendable {
        public var aligned: AlignedTake
        public var phones: [IndexedPhone]
    }

    /// A place a unit starts or ends at: a phone of a take, cut at its start, middle or end.
    public struct Cut: Equatable, Hashable, Sendable {
        public enum Point: Int, Sendable { case start, middle, end }
        public var take: Int
        public var phone: Int
        public var point: Point
    }

    public let takes: [IndexedTake]
    /// Each word label and where it is spoken: (take, word index), in take order.
    private let wordPlaces: [String: [(take: Int, word: Int)]]
    /// Each phone-pair (`PhoneSet.pair`) and the index in its take of the pair's first phone, in take order; a pair
    /// with `#` (a pause or the take's edge) counts the phone on its other side.
    private let pairs: [String: [(take: Int, phone: Int)]]
    /// Each phone symbol and where it is said, in take order.
    private let phonePlaces: [String: [(take: Int, phone: Int)]]
    /// The mean length in frames of each phone symbol: the target a unit's length is compared with.
    public let meanPhoneFrames: [String: Double]

    /// A pause between two phones of a take that the aligner left unlabelled (it drops its silences): at least this
    /// long, the phones on either side count as at a phrase's edge.
    public static let pauseFrames = RenderFormat.sampleRate * 50 / 1000

    public init(takes aligned: [AlignedTake]) {
        var takes: [IndexedTake] = []
        var wordPlaces: [String: [(take: Int, word: Int)]] = [:]
        var pairs: [String: [(take: Int, phone: Int)]] = [:]
        var phonePlaces: [String: [(take: Int, phone: Int)]] = [:]
        var phoneFrames: [String: (total: Int, count: Int)] = [:]
        for take in aligned {
            // A segment past the take's audio is found when it is read (the store's reads check every take).
            guard
                !take.words.isEmpty, take.words.allSatisfy({ $0.frames.lowerBound >= 0 && !$0.frames.isEmpty }),
                take.phones.allSatisfy({
                    $0.frames.lowerBound >= 0 && !$0.frames.isEmpty && take.words.indices.contains($0.word)
                })
            else { continue }
            var phones: [IndexedPhone] = []
            for (index, phone) in take.phones.enumerated() {
                let before = index == 0 ? nil : take.phones[index - 1]
                let after = index + 1 == take.phones.count ? nil : take.phones[index + 1]
                phones.append(
                    IndexedPhone(
                        symbol: phone.label, frames: phone.frames, word: phone.word,
                        followsPause: before.map { phone.frames.lowerBound - $0.frames.upperBound >= Self.pauseFrames }
                            ?? true,
                        precedesPause: after.map { $0.frames.lowerBound - phone.frames.upperBound >= Self.pauseFrames }
                            ?? true))
            }
            let number = takes.count
            for (index, word) in take.words.enumerated() { wordPlaces[word.label, default: []].append((number, index)) }
            for (index, phone) in phones.enumerated() {
                phonePlaces[phone.symbol, default: []].append((number, index))
                phoneFrames[phone.symbol, default: (0, 0)].total += phone.frames.count
                phoneFrames[phone.symbol, default: (0, 0)].count += 1
                if phone.followsPause {
                    pairs[PhoneSet.pair(PhoneSet.silence, phone.symbol), default: []].append((number, index))
                }
                if phone.precedesPause {
                    pairs[PhoneSet.pair(phone.symbol, PhoneSet.silence), default: []].append((number, index))
                } else {
                    pairs[PhoneSet.pair(phone.symbol, phones[index + 1].symbol), default: []].append((number, index))
                }
            }
            takes.append(IndexedTake(aligned: take, phones: phones))
        }
        self.takes = takes
        self.wordPlaces = wordPlaces
        self.pairs = pairs
        self.phonePlaces = phonePlaces
        meanPhoneFrames = phoneFrames.mapValues { Double($0.total) / Double($0.count) }
    }

    /// The places (take, word index) where `word` is spoken whole, in take order.
    public func places(ofWord word: String) -> [(take: Int, word: Int)] { wordPlaces[word] ?? [] }

    /// The longest run of `words` from `start` on that one take says word for word, as (take, first word index,
    /// count); among takes that say as many, the one whose place in its phrase fits best (a run that starts a
    /// sentence from a take's first word, one that ends it from a take's last), then the first imported. `nil` when
    /// no take says `words[start]`.
    public func longestSpan(
        of words: [String], from start: Int, startsSentence: Bool = false, endsSentence: Bool = false
    ) -> (take: Int, word: Int, count: Int)? {
        var best: (take: Int, word: Int, count: Int, fit: Int)?
        for place in places(ofWord: words[start]) {
            let takeWords = takes[place.take].aligned.words
            var count = 1
            while start + count < words.count, place.word + count < takeWords.count,
                takeWords[place.word + count].label == words[start + count]
            {
                count += 1
            }
            let isFirst = place.word == 0
            let isLast = place.word + count == takeWords.count
            let fit =
                (isFirst == (startsSentence && start == 0) ? 1 : 0)
                + (isLast == (endsSentence && start + count == words.count) ? 1 : 0)
            if best.map({ count > $0.count || (count == $0.count && fit > $0.fit) }) ?? true {
                best = (place.take, place.word, count, fit)
            }
        }
        return best.map { ($0.take, $0.word, $0.count) }
    }

    /// The frames of words `first..<first + count` of a take, from the first's start to the last's end.
    public func frames(ofWords words: Range<Int>, inTake take: Int) -> Range<Int> {
        let aligned = takes[take].aligned.words
        return aligned[words.lowerBound].frames.lowerBound..<aligned[words.upperBound - 1].frames.upperBound
    }

    /// Where a phone-pair was said: the index in its take of its first phone (for `#-X`, of X), in take order.
    public func units(ofPair pair: String) -> [(take: Int, phone: Int)] { pairs[pair] ?? [] }

    /// Where a phone was said, in take order.
    public func places(ofPhone symbol: String) -> [(take: Int, phone: Int)] { phonePlaces[symbol] ?? [] }

    /// Whether a take has the phone-pair `pair`.
    public func hasPair(_ pair: String) -> Bool { pairs[pair] != nil }

    /// The frame a cut falls on in its take.
    public func frame(of cut: Cut) -> Int {
        let frames = takes[cut.take].phones[cut.phone].frames
        switch cut.point {
        case .start: return frames.lowerBound
        case .middle: return (frames.lowerBound + frames.upperBound) / 2
        case .end: return frames.upperBound
        }
    }

}
