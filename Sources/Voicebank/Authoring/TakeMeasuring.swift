// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import SpeechCore
import Units
import Voicebank

/// What `VoicePack.migrate(path:)` did.
public struct MigrationReport: Equatable, Sendable {
    public var path: String
    /// The schema version the pack had; the same as `toVersion` when it was current already.
    public var fromVersion: Int
    public var toVersion: Int
    /// Clips whose take features were measured.
    public var measuredClipCount: Int

    public init(path: String, fromVersion: Int, toVersion: Int, measuredClipCount: Int) {
        self.path = path
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.measuredClipCount = measuredClipCount
    }
}

// The take features import measures (`TakeAnalyzer`): measured for each file as it is imported, and for the clips of a
// pack from before schema 8 when it is upgraded.
extension VoicePack {
    /// Opens a pack to change it: a pack from an older schema is upgraded, and in the same transaction the take
    /// features and pitch marks of its clips and the join features of its aligned takes are measured, so that a kill
    /// part way leaves it as it was. What `voicebank` opens every pack it writes with.
    ///
    /// ```swift
    /// let pack = try VoicePack.openForChanges(path: "my.sqlite")
    /// ```
    /// - Parameter access: `.readWrite`, or `.create` to make the pack if there is no file.
    /// - Throws: as `VoicePack(path:access:)`; `.measurement` when aubio cannot measure.
    public static func openForChanges(path: String, access: Access = .readWrite) throws(VoicebankError) -> VoicePack {
        try VoicePack(path: path, access: access) { pack, _ throws(VoicebankError) in
            _ = try pack.measureTakeFeatures(voice: nil)
            _ = try pack.measurePitchMarks(voice: nil)
            _ = try pack.measureJoinFeatures(voice: nil)
            try pack.measureSpokenLoudness()
        }
    }

    /// Brings a pack to the current schema in one transaction, measuring the take features of every clip that lacks
    /// them (all of them, for a pack from before schema 8); run again, it measures any clip still without them (one
    /// that a program that cannot measure stored or upgraded), and otherwise changes nothing.
    ///
    /// ```swift
    /// let report = try VoicePack.migrate(path: "old.sqlite")   // from 7 to 8, 180 clips measured
    /// ```
    /// - Parameter progress: called after each clip measured, with its number among those to measure.
    /// - Throws: as `VoicePack(path:access:)`; `.measurement`. Whatever it throws, the pack is as it was.
    public static func migrate(
        path: String, progress: (ImportProgress) -> Void = { _ in }
    ) throws(VoicebankError) -> MigrationReport {
        var fromVersion: Int?
        var measured = 0
        let pack = try VoicePack(path: path, access: .readWrite) { pack, version throws(VoicebankError) in
            fromVersion = version
            measured = try pack.measureTakeFeatures(voice: nil, progress: progress)
            _ = try pack.measurePitchMarks(voice: nil)
            _ = try pack.measureJoinFeatures(voice: nil)
            try pack.measureSpokenLoudness()
        }
        let version = try pack.schemaVersion
        if fromVersion == nil {
            measured = try pack.database.transaction { () throws(VoicebankError) in
                let measured = try pack.measureTakeFeatures(voice: nil, progress: progress)
                _ = try pack.measurePitchMarks(voice: nil)
                _ = try pack.measureJoinFeatures(voice: nil)
                try pack.measureSpokenLoudness()
                return measured
            }
        }
        return MigrationReport(
            path: path, fromVersion: fromVersion ?? version, toVersion: version, measuredClipCount: measured)
    }

    /// Clips measured at once, on every core: enough to keep the cores busy, few enough that their samples are a
    /// few megabytes.
    static let measuringBatch = 64

    /// Measures the take features of every clip of a voice (`nil`: of every voice) whose `is_features_measured` is
    /// 0, inside the caller's transaction, on `parallelism` threads; returns how many it measured.
    ///
    /// - Throws: `.measurement` when aubio cannot measure, `.sqlite`.
    package func measureTakeFeatures(
        voice identifier: String?, parallelism: Int = ProcessorCount.online,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws(VoicebankError) -> Int {
        let filter = identifier == nil ? "" : "AND voice_id = (SELECT id FROM voice WHERE identifier = ?1)"
        let values: [SQLValue?] = identifier.map { [.text($0)] } ?? []
        let total =
            try database.prepare(
                "SELECT count(*) FROM clip WHERE is_features_measured = 0 \(filter)"
            ).bind(values).firstInt() ?? 0
        guard total > 0 else { return 0 }
        let unmeasured = try database.prepare(
            """
            SELECT id, substr(pcm, trim_start * 4 + 1, frame_count * 4) FROM clip
            WHERE is_features_measured = 0 \(filter) ORDER BY id
            """
        ).bind(values)
        let update = try database.prepare(
            "UPDATE clip SET \(Self.measuredColumns.map { "\($0) = ?" }.joined(separator: ", ")), "
                + "is_features_measured = 1 WHERE id = ?")
        var measured = 0
        var isDone = false
        while !isDone {
            var batch: [(id: Int, samples: [Float])] = []
            while batch.count < Self.measuringBatch {
                guard try unmeasured.step() else {
                    isDone = true
                    break
                }
                batch.append((unmeasured.int(0), unmeasured.floats(1)))
            }
            guard !batch.isEmpty else { break }
            let clips = batch
            let pipeline = PreparationPipeline(count: clips.count, workerCount: parallelism) { index in
                Result { () throws(VoicebankError) in try Self.measureTake(clips[index].samples) }
            }
            defer { pipeline.finish() }
            for clip in clips {
                try update.bind(Self.measuredValues(try pipeline.next().get()) + [.integer(clip.id)]).run()
                measured += 1
                progress(ImportProgress(completed: measured, total: total, path: "clip #\(clip.id)"))
            }
        }
        return measured
    }

    /// Measures, in one transaction, the pitch marks of every clip of a voice (`nil`: of every voice) that has none
    /// (clips another program stored): what `voicebank align` does before it aligns. Returns how many it measured.
    ///
    /// ```swift
    /// let measured = try pack.measureMissingPitchMarks(voice: nil)   // 0 for a pack voicebank made
    /// ```
    /// - Throws: `.measurement` when aubio cannot measure, `.sqlite`. Whatever it throws, the pack is as it was.
    public func measureMissingPitchMarks(
        voice identifier: String?, progress: (ImportProgress) -> Void = { _ in }
    ) throws(VoicebankError) -> Int {
        try database.transaction { () throws(VoicebankError) in
            try measurePitchMarks(voice: identifier, progress: progress)
        }
    }

    /// Measures the pitch marks of every clip of a voice (`nil`: of every voice) that has none, inside the caller's
    /// transaction, on `parallelism` threads; returns how many it measured.
    ///
    /// - Throws: `.measurement` when aubio cannot measure, `.sqlite`.
    package func measurePitchMarks(
        voice identifier: String?, parallelism: Int = ProcessorCount.online,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws(VoicebankError) -> Int {
        let filter = identifier == nil ? "" : "AND voice_id = (SELECT id FROM voice WHERE identifier = ?1)"
        let values: [SQLValue?] = identifier.map { [.text($0)] } ?? []
        let unmarked = "FROM clip WHERE id NOT IN (SELECT clip_id FROM pitch_marks) \(filter)"
        let total = try database.prepare("SELECT count(*) \(unmarked)").bind(values).firstInt() ?? 0
        guard total > 0 else { return 0 }
        let statement = try database.prepare("SELECT id, pcm \(unmarked) ORDER BY id").bind(values)
        var measured = 0
        var isDone = false
        while !isDone {
            var batch: [(id: Int, samples: [Float])] = []
            while batch.count < Self.measuringBatch {
                guard try statement.step() else {
                    isDone = true
                    break
                }
                batch.append((statement.int(0), statement.floats(1)))
            }
            guard !batch.isEmpty else { break }
            let clips = batch
            let pipeline = PreparationPipeline(count: clips.count, workerCount: parallelism) { index in
                Result { () throws(VoicebankError) in try Self.measurePitchMarks(clips[index].samples) }
            }
            defer { pipeline.finish() }
            for clip in clips {
                try storePitchMarks(try pipeline.next().get(), clipID: clip.id)
                measured += 1
                progress(ImportProgress(completed: measured, total: total, path: "clip #\(clip.id)"))
            }
        }
        return measured
    }

    /// Measures, inside the caller's transaction, the join features of every aligned take of a voice (`nil`: of every
    /// voice) that has none (the takes of a pack aligned before schema 12), on `parallelism` threads; returns how many
    /// it measured.
    ///
    /// - Throws: `.sqlite`.
    package func measureJoinFeatures(
        voice identifier: String?, parallelism: Int = ProcessorCount.online
    ) throws(VoicebankError) -> Int {
        let filter = identifier == nil ? "" : "AND voice_id = (SELECT id FROM voice WHERE identifier = ?1)"
        let values: [SQLValue?] = identifier.map { [.text($0)] } ?? []
        let statement = try database.prepare(
            """
            SELECT id, pcm FROM clip WHERE id IN (
                SELECT clip_id FROM alignment
                WHERE failure IS NULL AND clip_id NOT IN (SELECT clip_id FROM join_features)) \(filter)
            ORDER BY id
            """
        ).bind(values)
        var measured = 0
        var isDone = false
        while !isDone {
            var batch: [(id: Int, samples: [Float], phones: [AlignedTake.Segment])] = []
            while batch.count < Self.measuringBatch {
                guard try statement.step() else {
                    isDone = true
                    break
                }
                let id = statement.int(0)
                batch.append((id, statement.floats(1), try alignment(clipID: id)?.phones ?? []))
            }
            guard !batch.isEmpty else { break }
            let takes = batch
            let pipeline = PreparationPipeline(count: takes.count, workerCount: parallelism) { index in
                JoinFeatures.measure(samples: takes[index].samples, phones: takes[index].phones)
            }
            defer { pipeline.finish() }
            for take in takes {
                try storeJoinFeatures(pipeline.next(), clipID: take.id)
                measured += 1
            }
        }
        return measured
    }

    /// Measures the pitch marks of a clip's whole conversion.
    ///
    /// - Throws: `.measurement` when aubio cannot make its detector.
    static func measurePitchMarks(_ samples: [Float]) throws(VoicebankError) -> [Int] {
        do throws(AudioFeaturesError) { return try PitchMarks.measure(samples) } catch {
            throw .measurement(error.description)
        }
    }

    /// Measures the samples a take plays.
    ///
    /// - Throws: `.measurement` when aubio cannot make its objects.
    static func measureTake(_ samples: [Float]) throws(VoicebankError) -> TakeMeasurement {
        do throws(AudioFeaturesError) { return try TakeAnalyzer.measure(samples) } catch {
            throw .measurement(error.description)
        }
    }

    /// The clip columns a measurement fills, in the order of `measuredValues`.
    static let measuredColumns = [
        "contour", "first_f0_hz", "last_f0_hz", "first_energy_db", "last_energy_db", "first_mfcc", "last_mfcc",
    ]

    /// A measurement as the values of `measuredColumns`: cepstra as little-endian Float32 blobs.
    static func measuredValues(_ measurement: TakeMeasurement) -> [SQLValue?] {
        let edges = measurement.edges
        return [
            measurement.contour.map { .text($0.rawValue) }, edges.firstF0Hz.map { .real($0) },
            edges.lastF0Hz.map { .real($0) }, .real(edges.firstEnergyDecibels), .real(edges.lastEnergyDecibels),
            .floats(edges.firstCepstrum), .floats(edges.lastCepstrum),
        ]
    }
}
