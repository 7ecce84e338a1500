// SPDX-License-Identifier: GPL-3.0-or-later
/// The voice pack's tables, versioned with `PRAGMA user_version`; migration N takes a pack from version N-1 to N.
package enum Schema {
    /// Marks the SQLite file as a concat-synth voice pack (`PRAGMA application_id`, ASCII "csvb").
    static let applicationID = 0x6373_7662

    /// Applied in order inside one transaction; never edit a shipped step, append a new one.
    static let migrations: [String] = [
        // 1: voices, clips with their lossless original and render-ready PCM.
        """
        CREATE TABLE voice (
            id INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            primary_languages TEXT NOT NULL,   -- BCP 47 tags, comma-separated, in the order given
            supported_languages TEXT NOT NULL  -- includes the primary ones
        ) STRICT;
        CREATE TABLE clip (
            id INTEGER PRIMARY KEY,
            voice_id INTEGER NOT NULL REFERENCES voice(id) ON DELETE CASCADE,
            phrase TEXT NOT NULL,
            phrase_key TEXT NOT NULL,
            token_count INTEGER NOT NULL,
            is_fallback INTEGER NOT NULL DEFAULT 0,
            source_name TEXT NOT NULL,
            source_container TEXT NOT NULL,    -- libsndfile's names, e.g. "AIFF (Apple/SGI)"
            source_sample_format TEXT NOT NULL, -- e.g. "Signed 16 bit PCM"
            source_sample_rate INTEGER NOT NULL,
            source_channel_count INTEGER NOT NULL,
            source_frame_count INTEGER NOT NULL,
            original_encoding TEXT NOT NULL,   -- s16le, s32le, f32le, f64le; interleaved
            original_pcm BLOB NOT NULL,
            content_hash INTEGER NOT NULL,     -- FNV-1a of the original PCM, to spot a re-import
            converter TEXT NOT NULL,
            frame_count INTEGER NOT NULL,      -- render-ready frames at 22050 Hz (played, from schema 3)
            pcm BLOB NOT NULL                  -- render-ready: mono Float32 little-endian at 22050 Hz
        ) STRICT;
        CREATE INDEX clip_by_phrase ON clip(voice_id, is_fallback, phrase_key, id);
        CREATE INDEX clip_by_content ON clip(voice_id, content_hash);
        """,
        // 2: the rate a voice's clips speak at, as a multiple of SSML's default rate.
        """
        ALTER TABLE voice ADD COLUMN normal_rate REAL NOT NULL DEFAULT 1.0;
        """,
        // 3: silence trimming. `pcm` keeps the whole conversion; a clip plays `frame_count` frames of it from
        // `trim_start`. A voice's trimming setting (NULL: none, as every clip imported before had) is what its
        // imports apply and what `voicebank configure` re-applies.
        """
        ALTER TABLE clip ADD COLUMN trim_start INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE voice ADD COLUMN trim_threshold_db REAL;
        ALTER TABLE voice ADD COLUMN trim_pad_frames INTEGER NOT NULL DEFAULT 661;
        """,
        // 4: joins. Each clip fades in and out over edge_fade_frames; crossfade_frames > 0 overlaps adjacent clips.
        """
        ALTER TABLE voice ADD COLUMN edge_fade_frames INTEGER NOT NULL DEFAULT 44;
        ALTER TABLE voice ADD COLUMN crossfade_frames INTEGER NOT NULL DEFAULT 0;
        """,
        // 5: loudness. Each clip's loudness over what it plays (LUFS; NULL for silence or not yet measured) and
        // true peak (dBTP); a voice's target loudness (NULL: play clips as they are) and true-peak ceiling.
        """
        ALTER TABLE clip ADD COLUMN loudness_lufs REAL;
        ALTER TABLE clip ADD COLUMN true_peak_dbtp REAL;
        ALTER TABLE clip ADD COLUMN is_loudness_measured INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE voice ADD COLUMN target_loudness_lufs REAL;
        ALTER TABLE voice ADD COLUMN true_peak_ceiling_dbtp REAL NOT NULL DEFAULT -1.0;
        """,
        // 6: the manifest: what a shared pack says of itself (name, version, license, the speaker's consent, …),
        // one row a key; `PackManifest.Key` lists the keys.
        """
        CREATE TABLE manifest (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) STRICT;
        """,
        // 7: the fallback voice. How a voice speaks the words no clip covers (clip, spell or voice); each clip's F0
        // (Hz; NULL when it has no voiced part or was not measured) and the voice's medians of F0 and loudness over
        // its phrase clips, which import, remove and configure keep current; and the espeak-ng settings configure
        // chose to sound like them. The loudness median of a pack from before is worked out here from what it has.
        """
        ALTER TABLE voice ADD COLUMN fallback_mode TEXT NOT NULL DEFAULT 'clip';
        ALTER TABLE voice ADD COLUMN median_f0_hz REAL;
        ALTER TABLE voice ADD COLUMN median_loudness_lufs REAL;
        ALTER TABLE voice ADD COLUMN fallback_variant TEXT NOT NULL DEFAULT '';
        ALTER TABLE voice ADD COLUMN fallback_pitch INTEGER NOT NULL DEFAULT 50;
        ALTER TABLE voice ADD COLUMN fallback_pitch_range INTEGER NOT NULL DEFAULT 50;
        ALTER TABLE voice ADD COLUMN fallback_words_per_minute INTEGER NOT NULL DEFAULT 175;
        ALTER TABLE voice ADD COLUMN fallback_pitch_shift REAL NOT NULL DEFAULT 0;
        ALTER TABLE clip ADD COLUMN f0_hz REAL;
        ALTER TABLE clip ADD COLUMN is_f0_measured INTEGER NOT NULL DEFAULT 0;
        """ + medianLoudnessUpdate,
        // 8: takes that fit their place. Each clip's position as tagged (NULL: untagged); its measured contour (NULL:
        // no voiced end) and edges: F0 at the first and last voiced hops (Hz; NULL when unvoiced), the RMS level of
        // the first and last sounding analysis frames (dBFS) and their MFCC (`TakeEdges.cepstrumCount` little-endian Float32
        // each), with is_features_measured 0 until measured; and where it was cut from a longer recording (a hash of
        // the recording's samples, and frames in the recording's own rate; NULL for a file of its own). Only the
        // columns: whoever migrates with the means measures the features in the same transaction
        // (VoicebankAuthoring's `VoicePack.openForChanges`), and imports measure those still unmeasured. Each voice's
        // selection weights (`SelectionWeights`, whose defaults these are).
        """
        ALTER TABLE clip ADD COLUMN position TEXT CHECK (position IN ('initial', 'medial', 'final', 'question'));
        ALTER TABLE clip ADD COLUMN contour TEXT CHECK (contour IN ('falling', 'level', 'rising'));
        ALTER TABLE clip ADD COLUMN first_f0_hz REAL;
        ALTER TABLE clip ADD COLUMN last_f0_hz REAL;
        ALTER TABLE clip ADD COLUMN first_energy_db REAL;
        ALTER TABLE clip ADD COLUMN last_energy_db REAL;
        ALTER TABLE clip ADD COLUMN first_mfcc BLOB;
        ALTER TABLE clip ADD COLUMN last_mfcc BLOB;
        ALTER TABLE clip ADD COLUMN is_features_measured INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE clip ADD COLUMN recording INTEGER;
        ALTER TABLE clip ADD COLUMN cut_start INTEGER;
        ALTER TABLE clip ADD COLUMN cut_end INTEGER;
        ALTER TABLE voice ADD COLUMN selection_position_weight REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE voice ADD COLUMN selection_pitch_weight REAL NOT NULL DEFAULT 0.1;
        ALTER TABLE voice ADD COLUMN selection_energy_weight REAL NOT NULL DEFAULT 0.05;
        ALTER TABLE voice ADD COLUMN selection_spectrum_weight REAL NOT NULL DEFAULT 0.05;
        """,
        // 9: how loud the fallback voice speaks. The loudness of espeak-ng's speech at a voice's fallback settings, as
        // it plays with its peaks limited (`FallbackVoiceSettings.spokenLoudnessLUFS`; NULL until an import or
        // configure measures it), so that a run plays at a gain known before it is spoken, while it is made.
        """
        ALTER TABLE voice ADD COLUMN fallback_spoken_loudness_lufs REAL;
        """,
        // 10: alignment. Each aligned take's words and phones, in order, with their start and end (exclusive) in
        // frames of the clip's `pcm` (the whole conversion at 22050 Hz, so that re-trimming keeps them), each phone
        // with the index of its word; and per take the aligner that made them (name and version) and its score (mean
        // acoustic log-probability per frame), or why the take could not be aligned (`failure`, with no words or
        // phones: such a take gives no units). A take with no row has not been aligned.
        """
        CREATE TABLE alignment (
            clip_id INTEGER PRIMARY KEY REFERENCES clip(id) ON DELETE CASCADE,
            aligner TEXT NOT NULL,
            score REAL,
            failure TEXT
        ) STRICT;
        CREATE TABLE aligned_word (
            clip_id INTEGER NOT NULL REFERENCES alignment(clip_id) ON DELETE CASCADE,
            word_index INTEGER NOT NULL,
            label TEXT NOT NULL,
            start_frame INTEGER NOT NULL,
            end_frame INTEGER NOT NULL,
            PRIMARY KEY (clip_id, word_index)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE aligned_phone (
            clip_id INTEGER NOT NULL REFERENCES alignment(clip_id) ON DELETE CASCADE,
            phone_index INTEGER NOT NULL,
            word_index INTEGER NOT NULL,
            label TEXT NOT NULL,
            start_frame INTEGER NOT NULL,
            end_frame INTEGER NOT NULL,
            PRIMARY KEY (clip_id, phone_index)
        ) STRICT, WITHOUT ROWID;
        """,
        // 11: pitch marks. Each take's marks, one a pitch period of its voiced stretches at the period's peak, as
        // little-endian Int32 frames of the clip's `pcm` (the whole conversion at 22050 Hz, as alignment counts them),
        // in increasing order; an empty blob for a take with nothing voiced. Measured in the upgrade's transaction for
        // the clips there are, and by every import after. A take with no row has not been measured.
        """
        CREATE TABLE pitch_marks (
            clip_id INTEGER PRIMARY KEY REFERENCES clip(id) ON DELETE CASCADE,
            marks BLOB NOT NULL
        ) STRICT;
        """,
        // 12: units without reading audio. Each aligned take's join features (`JoinFeatures`: the cepstrum, F0 and
        // energy at the middle of each of its phones, in phone order, as little-endian Float32), which go with its
        // alignment; measured in the upgrade's transaction for the takes aligned already, and by every alignment
        // after. An index that answers a take's level (its loudness and true peak) without walking its audio, which
        // comes before those columns in the row. Each voice's units' weights (`UnitWeights`, whose defaults these are).
        """
        CREATE TABLE join_features (
            clip_id INTEGER PRIMARY KEY REFERENCES alignment(clip_id) ON DELETE CASCADE,
            features BLOB NOT NULL
        ) STRICT;
        CREATE INDEX clip_level ON clip(voice_id, is_fallback, id, loudness_lufs, true_peak_dbtp);
        ALTER TABLE voice ADD COLUMN unit_context_weight REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE voice ADD COLUMN unit_stress_weight REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE voice ADD COLUMN unit_word_place_weight REAL NOT NULL DEFAULT 0.5;
        ALTER TABLE voice ADD COLUMN unit_phrase_place_weight REAL NOT NULL DEFAULT 0.5;
        ALTER TABLE voice ADD COLUMN unit_duration_weight REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE voice ADD COLUMN unit_spectrum_weight REAL NOT NULL DEFAULT 0.5;
        ALTER TABLE voice ADD COLUMN unit_pitch_weight REAL NOT NULL DEFAULT 0.25;
        ALTER TABLE voice ADD COLUMN unit_energy_weight REAL NOT NULL DEFAULT 0.05;
        """,
    ]

    /// The first version whose take features (position, contour, edges, cut) a clip row holds, and whose voices hold
    /// selection weights.
    static let takeFeaturesVersion = 8

    /// The first version whose voices hold how loud their fallback voice speaks.
    static let spokenLoudnessVersion = 9

    /// The first version that holds the takes' alignments.
    static let alignmentVersion = 10

    /// The first version that holds the takes' pitch marks.
    static let pitchMarksVersion = 11

    /// The first version that holds the aligned takes' join features and the voices' units' weights.
    static let joinFeaturesVersion = 12

    /// The voice columns of the units' weights, in the order of `UnitWeights.names`.
    package static let unitWeightColumns = [
        "unit_context_weight", "unit_stress_weight", "unit_word_place_weight", "unit_phrase_place_weight",
        "unit_duration_weight", "unit_spectrum_weight", "unit_pitch_weight", "unit_energy_weight",
    ]

    /// The oldest version a read-only open reads as it is, writing nothing: the readers' queries need the columns of
    /// schema 7 and read the take features only from a pack that has them (`VoicePack.hasTakeFeatures`). An older
    /// pack is upgraded first, as every version did.
    static let oldestReadVersion = 7

    /// Sets each voice's `median_loudness_lufs` to the median loudness of its measured phrase clips (the lower of two
    /// middles; NULL when none is measured). Migration 7 runs it as it stands, so the rule changes only by a new step.
    package static let medianLoudnessUpdate = median(of: "loudness_lufs", into: "median_loudness_lufs")

    /// Sets each voice's `median_f0_hz` to the median F0 of its voiced phrase clips, by the same rule.
    package static let medianF0Update = median(of: "f0_hz", into: "median_f0_hz")

    /// An UPDATE of every voice's `target` to the median of its phrase clips' `column` where it is not NULL: one pass
    /// over each voice's clips, numbered in order (SQLite takes no correlated OFFSET). It ends without `;`, so that a
    /// WHERE can pick the voices.
    private static func median(of column: String, into target: String) -> String {
        """
        UPDATE voice SET \(target) = (
            SELECT \(column) FROM (
                SELECT \(column), row_number() OVER (ORDER BY \(column)) AS place, count(*) OVER () AS clips
                FROM clip WHERE clip.voice_id = voice.id AND is_fallback = 0 AND \(column) IS NOT NULL)
            WHERE place = (clips + 1) / 2)
        """
    }

    static var currentVersion: Int { migrations.count }

    /// A row of `sqlite_schema` as the store checks it: its type (`table`, `index`, `view`, `trigger`), its name, and
    /// the table it belongs to.
    struct Object: Hashable {
        var type: String
        var name: String
        var table: String

        static func table(_ name: String) -> Object { Object(type: "table", name: name, table: name) }
        static func index(_ name: String, on table: String) -> Object {
            Object(type: "index", name: name, table: table)
        }
    }

    /// The `sqlite_schema` rows each step of `migrations` makes, step by step: a pack of version N holds those of
    /// the first N steps and nothing else (`VoicePack` refuses anything more). Listed rather than learnt by running
    /// the steps when a pack opens, which would cost every render process a second database; `UntrustedPackTests`
    /// runs the steps of every version in SQLite and checks that this list is what they make. `ALTER TABLE … ADD
    /// COLUMN` makes no row, and neither SQLite's `sqlite_sequence` (no AUTOINCREMENT) nor `sqlite_stat1` (no ANALYZE)
    /// is ever made. A new step that makes a table or index adds it here.
    static let objectsMade: [[Object]] = [
        [
            .table("voice"), .index("sqlite_autoindex_voice_1", on: "voice"),  // identifier UNIQUE
            .table("clip"), .index("clip_by_phrase", on: "clip"), .index("clip_by_content", on: "clip"),
        ],
        [],
        [],
        [],
        [],
        [.table("manifest"), .index("sqlite_autoindex_manifest_1", on: "manifest")],  // key PRIMARY KEY
        [],
        [],
        [],
        // WITHOUT ROWID tables keep their primary key in the table itself: no index row.
        [.table("alignment"), .table("aligned_word"), .table("aligned_phone")],
        // An INTEGER PRIMARY KEY is the rowid: no index row.
        [.table("pitch_marks")],
        [.table("join_features"), .index("clip_level", on: "clip")],
    ]

    /// The `sqlite_schema` rows a pack of schema `version` holds, in the order the steps make them.
    static func objects(version: Int) -> [Object] {
        Array(objectsMade.prefix(version).joined())
    }

    /// Every column of a pack of `version` (the current one, or `oldestReadVersion` and later, which a read-only open
    /// reads as they are), table by table: a pack that lacks one (a hand edit, another tool) is refused when it opens,
    /// before any query half-reads it.
    static func columns(version: Int) -> [(table: String, columns: String)] {
        let tables = columns.filter { table in
            (version >= alignmentVersion || !alignmentTables.contains(table.table))
                && (version >= pitchMarksVersion || table.table != "pitch_marks")
                && (version >= joinFeaturesVersion || table.table != "join_features")
        }
        return tables.map { table in
            switch (table.table, version) {
            case ("clip", ..<takeFeaturesVersion): (table.table, clipColumnsBeforeTakeFeatures)
            case ("voice", ..<takeFeaturesVersion): (table.table, voiceColumnsBeforeTakeFeatures)
            case ("voice", ..<spokenLoudnessVersion): (table.table, voiceColumnsOfTakeFeatures)
            case ("voice", ..<joinFeaturesVersion): (table.table, voiceColumnsOfSpokenLoudness)
            default: table
            }
        }
    }

    /// The voice columns of schema 7, before step 8 added the selection weights.
    private static let voiceColumnsBeforeTakeFeatures = """
        id, identifier, name, primary_languages, supported_languages, normal_rate, trim_threshold_db,
        trim_pad_frames, edge_fade_frames, crossfade_frames, target_loudness_lufs, true_peak_ceiling_dbtp,
        fallback_mode, median_f0_hz, median_loudness_lufs, fallback_variant, fallback_pitch, fallback_pitch_range,
        fallback_words_per_minute, fallback_pitch_shift
        """

    /// The clip columns of schema 7, before step 8 added the take features.
    private static let clipColumnsBeforeTakeFeatures = """
        id, voice_id, phrase, phrase_key, token_count, is_fallback, source_name, source_container,
        source_sample_format, source_sample_rate, source_channel_count, source_frame_count, original_encoding,
        original_pcm, content_hash, converter, frame_count, pcm, trim_start, loudness_lufs, true_peak_dbtp,
        is_loudness_measured, f0_hz, is_f0_measured
        """

    /// The voice columns of schema 8, before step 9 added the fallback voice's spoken loudness.
    private static let voiceColumnsOfTakeFeatures =
        voiceColumnsBeforeTakeFeatures
        + ", selection_position_weight, selection_pitch_weight, selection_energy_weight, selection_spectrum_weight"

    /// The voice columns of schema 9 to 11, before step 12 added the units' weights.
    private static let voiceColumnsOfSpokenLoudness = voiceColumnsOfTakeFeatures + ", fallback_spoken_loudness_lufs"

    /// Every column of the current version, table by table.
    static let columns: [(table: String, columns: String)] = [
        ("voice", voiceColumnsOfSpokenLoudness + ", " + unitWeightColumns.joined(separator: ", ")),
        ("clip", clipColumnsBeforeTakeFeatures + ", " + StoredTakeFeatures.columns),
        ("manifest", "key, value"),
        ("alignment", "clip_id, aligner, score, failure"),
        ("aligned_word", "clip_id, word_index, label, start_frame, end_frame"),
        ("aligned_phone", "clip_id, phone_index, word_index, label, start_frame, end_frame"),
        ("pitch_marks", "clip_id, marks"),
        ("join_features", "clip_id, features"),
    ]

    /// The tables step 10 made, which a pack of an older version read as it is does not have.
    private static let alignmentTables: Set<String> = ["alignment", "aligned_word", "aligned_phone"]
}
