// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Synchronization

/// Time-stretched clips kept for the next segment that plays the same clip at the same speed and pitch.
///
/// A screen reader says the same phrases ("button", "double tap to open") again and again at one rate, and a long
/// text plays its common clips many times; stretching is nearly all the cost of speaking at any speed but the
/// clips' own (libsonic searches for the pitch period all through the input). A stretch depends only on the clip's
/// samples, the speed and the pitch, so what is kept is bit for bit what stretching again gives.
///
/// Bounded by samples: the least recently used go first. Every look-up and insertion names the clip source's
/// `samplesVersion`; a different version empties the cache, so samples from a pack as it was are never played
/// from a pack as it is. A source that cannot tell its version keeps nothing here. Safe from any thread.
///
/// ```swift
/// let cache = StretchCache(sampleCapacity: 2_097_152)
/// let renderer = Renderer(source: stream, audio: pack, stretchCache: cache)
/// ```
public final class StretchCache: Sendable {
    /// What a stretched segment plays: the take, how much of it, and how it is stretched.
    struct Key: Hashable {
        var take: ClipTake
        var sourceFrameCount: Int
        var speed: Double
        var pitchSemitones: Double
    }

    private struct Entry {
        var samples: [Float]
        var lastUse: Int
    }

    private struct State {
        var version: UInt64?
        var entries: [Key: Entry] = [:]
        var sampleCount = 0
        var clock = 0
    }

    /// The most samples kept, over every entry.
    public let sampleCapacity: Int
    private let state = Mutex(State())

    /// The capacity the synthesizer gives its renderers: 2 Mi samples, 8 MB, 95 s of audio at 22050 Hz.
    public static let standardSampleCapacity = 2_097_152

    public init(sampleCapacity: Int = standardSampleCapacity) {
        precondition(sampleCapacity >= 0, "a stretch cache's capacity cannot be negative")
        self.sampleCapacity = sampleCapacity
    }

    /// The samples kept, over every entry.
    public var sampleCount: Int { state.withLock { $0.sampleCount } }

    /// The stretched samples of `key` from a source at `version`, if kept.
    func samples(for key: Key, version: UInt64) -> [Float]? {
        state.withLock { state in
            Self.match(&state, version: version)
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.samples
        }
    }

    /// Keeps `samples` as the stretch of `key` from a source at `version`, letting the least recently used go
    /// until everything fits. Samples larger than the whole capacity are not kept.
    func insert(_ samples: [Float], for key: Key, version: UInt64) {
        guard samples.count <= sampleCapacity else { return }
        state.withLock { state in
            Self.match(&state, version: version)
            if let old = state.entries[key] { state.sampleCount -= old.samples.count }
            while state.sampleCount + samples.count > sampleCapacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.sampleCount -= oldest.value.samples.count
                state.entries[oldest.key] = nil
            }
            state.clock += 1
            state.entries[key] = Entry(samples: samples, lastUse: state.clock)
            state.sampleCount += samples.count
        }
    }

    private static func match(_ state: inout State, version: UInt64) {
        guard state.version != version else { return }
        state.entries.removeAll()
        state.sampleCount = 0
        state.version = version
    }
}
