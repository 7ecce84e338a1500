// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// A voice's phrase look-ups, each asked of the pack once and remembered: for the rest of a plan, and for the plans
/// after it while the lookup's `phrasesVersion` stays the same.
///
/// A plan reads one snapshot of the pack (`VoicePack.reading`), so the answers cannot change while it lasts; the
/// next plan keeps them only if it reads the same version of the pack. It remembers at most `capacity` answers of
/// each kind and starts afresh when full, so that a text with no end of different words keeps a bounded memory.
final class RememberedLookup<Lookup: PhraseLookup>: PhraseLookup {
    let lookup: Lookup
    let capacity: Int
    private var firstKeys: [KeyBytes: String?] = [:]
    private var takesByKey: [KeyBytes: [ClipTake]] = [:]
    /// The version the answers were given under; `nil` when they were given for one plan only.
    private var version: UInt64?

    init(_ lookup: Lookup, capacity: Int = 65_536) {
        self.lookup = lookup
        self.capacity = capacity
    }

    /// Called when a plan first looks up its voice's phrases: the answers are kept only if the lookup reads the
    /// version of the phrases they were given under.
    func beginPlan() {
        let current = lookup.phrasesVersion
        if current == nil || current != version {
            firstKeys.removeAll(keepingCapacity: true)
            takesByKey.removeAll(keepingCapacity: true)
        }
        version = current
    }

    func firstPhraseKey(atOrAfter key: String) throws -> String? {
        if let known = firstKeys[KeyBytes(key)] { return known }
        let found = try lookup.firstPhraseKey(atOrAfter: key)
        if firstKeys.count == capacity { firstKeys.removeAll(keepingCapacity: true) }
        firstKeys[KeyBytes(key)] = .some(found)
        return found
    }

    func takes(forPhraseKey key: String) throws -> [ClipTake] {
        if let known = takesByKey[KeyBytes(key)] { return known }
        let takes = try lookup.takes(forPhraseKey: key)
        if takesByKey.count == capacity { takesByKey.removeAll(keepingCapacity: true) }
        takesByKey[KeyBytes(key)] = takes
        return takes
    }
}

/// A phrase key hashed and compared as its UTF-8 bytes, as the pack compares it: keys are normalised already,
/// and `String`'s own hashing would normalise them again.
struct KeyBytes: Hashable {
    var key: String

    init(_ key: String) { self.key = key }

    static func == (left: KeyBytes, right: KeyBytes) -> Bool {
        var left = left.key
        var right = right.key
        return left.withUTF8 { leftBytes in right.withUTF8 { leftBytes.elementsEqual($0) } }
    }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
