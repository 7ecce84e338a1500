// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens
import Units
import Voicebank

/// Words to phones, as phone-pair coverage asks of a language's front end: each word's phones, labelled as the aligner
/// labels a take's (CMU's ARPAbet without stress).
public protocol PhoneTranscriber: AnyObject {
    /// Each word's phones, in order; a word the transcriber cannot phonemize has none.
    ///
    /// - Throws: `AuthoringError.recognition` when the transcriber cannot run at all.
    func phoneLabels(for words: [String]) throws(AuthoringError) -> [[String]]
}

/// Two phones, one after the other within a stretch of speech: the unit a voice must have recorded to join its
/// speaker's own sounds across that boundary.
public struct PhonePair: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var first: String
    public var second: String

    public init(_ first: String, _ second: String) {
        self.first = first
        self.second = second
    }

    /// `AH-L`.
    public var description: String { "\(first)-\(second)" }

    public static func < (left: PhonePair, right: PhonePair) -> Bool {
        (left.first, left.second) < (right.first, right.second)
    }

    /// The pairs of a stretch of phones, in order.
    public static func pairs(_ phones: [String]) -> [PhonePair] {
        zip(phones, phones.dropFirst()).map { PhonePair($0, $1) }
    }
}

/// What the texts need of a voice's phone-pairs: the pairs their words that fall back would be built from, and those
/// no take has, each with the words of the texts that would supply it when recorded.
public struct PhonePairCoverage: Equatable, Sendable, CustomStringConvertible {
    /// A pair no take has, how often the texts need it, and words (or two words, for a pair across their boundary)
    /// of the texts that have it, most frequent first.
    public struct Missing: Equatable, Sendable {
        public var pair: PhonePair
        public var count: Int
        public var words: [String]
    }

    /// Pairs the texts need (distinct), and how many of them some take has.
    public var neededCount: Int
    public var coveredCount: Int
    /// Most needed first, then in order of the pairs.
    public var missing: [Missing]

    /// The most words listed for a missing pair.
    public static let wordsPerPair = 3

    /// Works out the coverage of `runs` (each a run of words spoken together, as the planner hands them on) by the
    /// pairs a voice has.
    ///
    /// - Throws: what `transcriber` throws.
    public init(runs: [[String]], have: Set<PhonePair>, transcriber: PhoneTranscriber = EnglishFrontEnd())
        throws(AuthoringError)
    {
        var counts: [PhonePair: Int] = [:]
        var words: [PhonePair: [String: Int]] = [:]
        for run in runs where !run.isEmpty {
            let phones = try transcriber.phoneLabels(for: run)
            for (index, word) in run.enumerated() {
                for pair in PhonePair.pairs(phones[index]) {
                    counts[pair, default: 0] += 1
                    words[pair, default: [:]][word, default: 0] += 1
                }
                // The pair across the boundary to the next word, which the two words together supply.
                if index + 1 < run.count, let last = phones[index].last, let next = phones[index + 1].first {
                    let pair = PhonePair(last, next)
                    counts[pair, default: 0] += 1
                    words[pair, default: [:]]["\(word) \(run[index + 1])", default: 0] += 1
                }
            }
        }
        neededCount = counts.count
        coveredCount = counts.keys.count { have.contains($0) }
        missing = counts.filter { !have.contains($0.key) }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { pair, count in
                let supplying = (words[pair] ?? [:]).sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                return Missing(pair: pair, count: count, words: supplying.prefix(Self.wordsPerPair).map(\.key))
            }
    }

    /// `phone-pairs: 40 of 52 the fallbacks need (76.9 %)`, then a line per missing pair with its words.
    public var description: String {
        var lines = ["phone-pairs to record:"]
        lines += missing.map { "  \($0.count)\t\($0.pair)\t\($0.words.joined(separator: ", "))" }
        if missing.isEmpty { lines = [] }
        let percent = neededCount == 0 ? 100 : Double(coveredCount) * 100 / Double(neededCount)
        lines.append(
            "phone-pairs: \(coveredCount) of \(neededCount) the fallbacks need (\(decimal(percent, places: 1)) %)")
        return lines.joined(separator: "\n")
    }
}

extension VoicePack {
    /// The phone-pairs a voice's takes have: of an aligned take, each two phones the aligner found next to each other
    /// (no pause between); of a take not aligned yet, the pairs of its phrase as `transcriber` has it; a take whose
    /// alignment failed gives none. Fallback clips give none.
    ///
    /// ```swift
    /// let pairs = try pack.phonePairs(voice: nil)   // [AH-L, L-OW, …]
    /// ```
    /// - Throws: `.store`, what `transcriber` throws.
    public func phonePairs(voice identifier: String?, transcriber: PhoneTranscriber = EnglishFrontEnd())
        throws(AuthoringError) -> Set<PhonePair>
    {
        let clips: [Clip]
        do throws(VoicebankError) {
            clips = try self.clips(voice: try resolveVoice(identifier).identifier)
        } catch {
            throw .store(error)
        }
        var pairs: Set<PhonePair> = []
        for clip in clips where !clip.isFallback {
            let alignment: TakeAlignment?
            do throws(VoicebankError) { alignment = try self.alignment(clipID: clip.id) } catch { throw .store(error) }
            if let alignment {
                for (phone, next) in zip(alignment.phones, alignment.phones.dropFirst())
                where phone.frames.upperBound == next.frames.lowerBound {
                    pairs.insert(PhonePair(phone.label, next.label))
                }
            } else {
                let words = Tokenizer.tokens(in: clip.phrase).map { $0.text.lowercased() }
                pairs.formUnion(PhonePair.pairs(try transcriber.phoneLabels(for: words).flatMap { $0 }))
            }
        }
        return pairs
    }
}

/// A recording script chosen for phone-pairs: a greedy cover of the pairs a voice lacks over a set of sentences.
public enum PhonePairScript {
    /// The sentences to record, in order: each the one that adds the most pairs that neither the voice (`have`) nor
    /// the sentences chosen before it have, each pair weighed by how many of the sentences have it (so that common
    /// pairs come first); the shorter of two that add as much, the earlier of two as long; until no sentence adds a
    /// pair, or `limit` are chosen. `sentences` come in the order they are preferred in (the user's own
    /// texts first, then a set such as `RecordingSentences.english`).
    ///
    /// - Throws: what `transcriber` throws.
    public static func choose(
        from sentences: [String], have: Set<PhonePair>, transcriber: PhoneTranscriber = EnglishFrontEnd(),
        limit: Int = .max
    ) throws(AuthoringError) -> [String] {
        var candidates: [(text: String, pairs: Set<PhonePair>, length: Int)] = []
        var seen: Set<String> = []
        for sentence in sentences {
            let words = Tokenizer.tokens(in: sentence).map { $0.text.lowercased() }
            guard !words.isEmpty, seen.insert(words.joined(separator: " ")).inserted else { continue }
            let phones = try transcriber.phoneLabels(for: words).flatMap { $0 }
            candidates.append((sentence, Set(PhonePair.pairs(phones)), phones.count))
        }
        // A pair common among the sentences is taken to be common in speech, and weighs as often as it occurs.
        var weights: [PhonePair: Int] = [:]
        for candidate in candidates { for pair in candidate.pairs { weights[pair, default: 0] += 1 } }
        var covered = have
        var chosen: [String] = []
        while chosen.count < limit {
            var best: (index: Int, gain: Int)?
            for (index, candidate) in candidates.enumerated() {
                let gain = candidate.pairs.reduce(0) { $0 + (covered.contains($1) ? 0 : weights[$1, default: 0]) }
                guard gain > 0 else { continue }
                if let current = best {
                    let other = candidates[current.index]
                    guard gain > current.gain || (gain == current.gain && candidate.length < other.length) else {
                        continue
                    }
                }
                best = (index, gain)
            }
            guard let best else { break }
            let candidate = candidates.remove(at: best.index)
            covered.formUnion(candidate.pairs)
            chosen.append(candidate.text)
        }
        return chosen
    }

    /// The sentences of a text: split after `.`, `!`, `?` and at line ends; markup (a line with `<`) is left out.
    public static func sentences(in text: String) -> [String] {
        var sentences: [String] = []
        for line in text.split(whereSeparator: \.isNewline) where !line.contains("<") {
            var current = ""
            for character in line {
                current.append(character)
                if ".!?".contains(character) {
                    sentences.append(current.trimmingSpaces)
                    current = ""
                }
            }
            sentences.append(current.trimmingSpaces)
        }
        return sentences.filter { !$0.isEmpty }
    }
}

// The English front end of the units fallback, labelling phones as the aligner does.
extension EnglishFrontEnd: PhoneTranscriber {
    public func phoneLabels(for words: [String]) throws(AuthoringError) -> [[String]] {
        do throws(FrontEndError) { return try phones(for: words).map { $0.map(\.symbol) } } catch {
            throw .recognition(error.description)
        }
    }
}
