// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Voicebank

/// A clip's measured loudness and the gain its voice's loudness target gives it.
public struct ClipLoudness: Equatable, Sendable {
    public var clipID: Int
    /// `nil` for silence.
    public var loudnessLUFS: Double?
    /// `nil` when not measured (a voice without a loudness target).
    public var truePeakDBTP: Double?
    public var gainDecibels: Double

    /// The loudness it plays at: measured plus gain.
    public var playedLUFS: Double? { loudnessLUFS.map { $0 + gainDecibels } }
}

extension Loudness {
    /// The true peak as a pack stores it: NULL when not measured, -200 dBTP for digital silence.
    var storedTruePeak: SQLValue? {
        truePeakDBTP.map { .real($0.isFinite ? $0 : -200) }
    }
}

// Adding voices and changing their settings: what `voicebank create` and `voicebank configure` write.
extension VoicePack {
    /// Adds a voice, in its fallback mode (`Voice.newVoiceFallbackMode` is the one a new voice starts in unless its
    /// maker says otherwise).
    ///
    /// - Throws: `VoicebankError.duplicateVoice` when the identifier is in the pack already.
    public func addVoice(_ voice: Voice) throws(VoicebankError) {
        try database.transaction { () throws(VoicebankError) in
            guard try voiceRowID(voice.identifier) == nil else {
                throw .duplicateVoice(identifier: voice.identifier, path: path)
            }
            try database.prepare(
                """
                INSERT INTO voice (identifier, name, primary_languages, supported_languages, normal_rate,
                    trim_threshold_db, trim_pad_frames, edge_fade_frames, crossfade_frames, target_loudness_lufs,
                    true_peak_ceiling_dbtp, fallback_mode)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                .text(voice.identifier), .text(voice.name), .text(voice.primaryLanguages.joined(separator: ",")),
                .text(voice.supportedLanguages.joined(separator: ",")), .real(voice.normalRate),
                voice.trimming.map { .real($0.thresholdDecibels) },
                .integer(voice.trimming?.padFrames ?? Trimming.standard.padFrames),
                .integer(voice.joins.edgeFadeFrames), .integer(voice.joins.crossfadeFrames),
                voice.loudness.map { .real($0.targetLUFS) }, .real(voice.loudness?.truePeakCeilingDBTP ?? -1),
                .text(voice.fallbackMode.rawValue)
            ).run()
        }
    }

    /// Sets the rate at which a voice's clips play as recorded (see `Voice.normalRate`).
    ///
    /// - Throws: `VoicebankError.invalidNormalRate`, `.unknownVoice`.
    public func setNormalRate(_ rate: Double, voice identifier: String) throws(VoicebankError) {
        guard Voice.normalRates.contains(rate) else { throw .invalidNormalRate(rate) }
        try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare("UPDATE voice SET normal_rate = ? WHERE identifier = ?")
                .bind(.real(rate), .text(voice.identifier)).run()
        }
    }

    /// Sets the loudness a voice's clips play at (`nil`: as recorded), measuring any clip not measured yet
    /// (clips of packs made before loudness was measured). Returns the voice's clips' loudness.
    ///
    /// - Throws: `VoicebankError.invalidLoudnessTarget` for a target outside `LoudnessTarget.targets` or a ceiling
    ///   above 0 dBTP; `.unknownVoice`.
    @discardableResult
    public func setLoudnessTarget(_ target: LoudnessTarget?, voice identifier: String) throws(VoicebankError)
        -> [ClipLoudness]
    {
        if let target, !LoudnessTarget.targets.contains(target.targetLUFS) || target.truePeakCeilingDBTP > 0 {
            throw .invalidLoudnessTarget(target)
        }
        return try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare(
                "UPDATE voice SET target_loudness_lufs = ?, true_peak_ceiling_dbtp = ? WHERE identifier = ?"
            )
            .bind(
                target.map { .real($0.targetLUFS) }, .real(target?.truePeakCeilingDBTP ?? -1), .text(voice.identifier)
            )
            .run()
            let unmeasured = try database.prepare(
                """
                SELECT clip.id, substr(pcm, trim_start * 4 + 1, frame_count * 4) FROM clip
                JOIN voice ON voice.id = clip.voice_id
                WHERE voice.identifier = ? AND (is_loudness_measured = 0 OR true_peak_dbtp IS NULL)
                """
            ).bind(.text(voice.identifier))
            let update = try database.prepare(
                "UPDATE clip SET loudness_lufs = ?, true_peak_dbtp = ?, is_loudness_measured = 1 WHERE id = ?")
            while try unmeasured.step() {
                let loudness = try Self.measure(unmeasured.floats(1))
                try update.bind(
                    loudness.clipLUFS.map { .real($0) }, loudness.storedTruePeak,
                    .integer(unmeasured.int(0))
                ).run()
            }
            // The fallback voice plays at the target, or at the median this may have just measured.
            try updateMeasurements(voice: voice.identifier, isChoosingFallbackVoice: false)
            return try clipLoudness(voice: voice.identifier)
        }
    }

    /// Each clip's loudness and true peak, and the gain its voice's target gives it.
    public func clipLoudness(voice identifier: String) throws(VoicebankError) -> [ClipLoudness] {
        // Unchecked: `voicebank configure --target-loudness` reports the loudness before it repairs a damaged target.
        let voice = try resolveVoice(identifier, isChecked: false)
        let rows = try database.prepare(
            """
            SELECT clip.id, loudness_lufs, true_peak_dbtp FROM clip JOIN voice ON voice.id = clip.voice_id
            WHERE voice.identifier = ? AND is_loudness_measured = 1 ORDER BY clip.id
            """
        ).bind(.text(voice.identifier))
        var result: [ClipLoudness] = []
        while try rows.step() {
            let loudness = rows.optionalDouble(1)
            let peak = rows.optionalDouble(2)
            result.append(
                ClipLoudness(
                    clipID: rows.int(0), loudnessLUFS: loudness, truePeakDBTP: peak,
                    gainDecibels: voice.loudness?.gainDecibels(loudness: loudness, truePeak: peak) ?? 0))
        }
        return result
    }

    static func measure(_ samples: [Float], measuringTruePeak: Bool = true) throws(VoicebankError) -> Loudness {
        do throws(AudioIOError) {
            return try Loudness(samples, measuringTruePeak: measuringTruePeak)
        } catch {
            throw .measurement(error.description)
        }
    }

    /// Sets how a voice's clips meet in renders.
    ///
    /// - Throws: `VoicebankError.invalidJoins` for a fade outside 0…`Joins.maximumFrames`; `.unknownVoice`.
    public func setJoins(_ joins: Joins, voice identifier: String) throws(VoicebankError) {
        let range = 0...Joins.maximumFrames
        guard range.contains(joins.edgeFadeFrames), range.contains(joins.crossfadeFrames) else {
            throw .invalidJoins(joins)
        }
        try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare("UPDATE voice SET edge_fade_frames = ?, crossfade_frames = ? WHERE identifier = ?")
                .bind(.integer(joins.edgeFadeFrames), .integer(joins.crossfadeFrames), .text(voice.identifier)).run()
        }
    }

    /// Sets how a voice's take selection weighs a take's place against its joins.
    ///
    /// - Throws: `VoicebankError.invalidSelectionWeight` naming a weight outside `SelectionWeights.weights`;
    ///   `.unknownVoice`.
    public func setSelectionWeights(_ weights: SelectionWeights, voice identifier: String) throws(VoicebankError) {
        let named = [
            ("position", weights.position), ("pitch", weights.pitch), ("energy", weights.energy),
            ("spectrum", weights.spectrum),
        ]
        for (name, weight) in named where !SelectionWeights.weights.contains(weight) {
            throw .invalidSelectionWeight(weight: name, value: weight)
        }
        try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare(
                """
                UPDATE voice SET selection_position_weight = ?, selection_pitch_weight = ?, selection_energy_weight = ?,
                    selection_spectrum_weight = ?
                WHERE identifier = ?
                """
            ).bind(
                .real(weights.position), .real(weights.pitch), .real(weights.energy), .real(weights.spectrum),
                .text(voice.identifier)
            ).run()
        }
    }

    /// Sets how a voice's units fallback weighs its choice of units.
    ///
    /// - Throws: `VoicebankError.invalidSelectionWeight` naming a weight outside `UnitWeights.weights`
    ///   (`unit-context`, …); `.unknownVoice`.
    public func setUnitWeights(_ weights: UnitWeights, voice identifier: String) throws(VoicebankError) {
        for (name, weight) in zip(UnitWeights.names, weights.values) where !UnitWeights.weights.contains(weight) {
            throw .invalidSelectionWeight(weight: "unit-\(name)", value: weight)
        }
        try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare(
                "UPDATE voice SET \(Schema.unitWeightColumns.map { "\($0) = ?" }.joined(separator: ", ")) "
                    + "WHERE identifier = ?"
            ).bind(weights.values.map { .real($0) } + [.text(voice.identifier)]).run()
        }
    }

    /// Sets how a voice trims its clips and re-applies it to every clip it has (the whole conversion is kept,
    /// so nothing needs importing again), measuring their loudness and take features anew; `nil` plays clips whole.
    ///
    /// - Throws: `VoicebankError.unknownVoice`.
    public func setTrimming(_ trimming: Trimming?, voice identifier: String) throws(VoicebankError) {
        try database.transaction { () throws(VoicebankError) in
            let voice = try resolveVoice(identifier, isChecked: false)
            try database.prepare("UPDATE voice SET trim_threshold_db = ?, trim_pad_frames = ? WHERE identifier = ?")
                .bind(
                    trimming.map { .real($0.thresholdDecibels) },
                    .integer(trimming?.padFrames ?? Trimming.standard.padFrames),
                    .text(voice.identifier)
                ).run()
            let clips = try database.prepare(
                "SELECT clip.id, pcm FROM clip JOIN voice ON voice.id = clip.voice_id WHERE voice.identifier = ?"
            ).bind(.text(voice.identifier))
            // What plays is what the take features are measured over: `updateMeasurements` measures them anew.
            let update = try database.prepare(
                """
                UPDATE clip SET trim_start = ?, frame_count = ?, loudness_lufs = ?, true_peak_dbtp = ?,
                    is_loudness_measured = 1, is_features_measured = 0
                WHERE id = ?
                """)
            while try clips.step() {
                let samples = clips.floats(1)
                let played = ClipConditioning.playedRange(samples, trimming: trimming)
                let loudness = try Self.measure(Array(samples[played]), measuringTruePeak: voice.loudness != nil)
                try update.bind(
                    .integer(played.lowerBound), .integer(played.count), loudness.clipLUFS.map { .real($0) },
                    loudness.storedTruePeak, .integer(clips.int(0))
                ).run()
            }
            // What plays, and so its loudness and length, changed: the fallback voice is matched to it anew.
            try updateMeasurements(voice: voice.identifier)
        }
    }
}
