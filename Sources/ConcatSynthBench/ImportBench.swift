// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSampleRate
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 4: `voicebank import` of generated clips in x-realtime (seconds of audio imported per second), next to
/// libsamplerate's own single-core rate converting the same samples with the same converter (best sinc).
struct ImportBench {
    var clipCount: Int
    var runs: Int
    var work: WorkDirectory
    static let sourceRate = 24_000

    func run() throws -> [TargetResult] {
        let folder = try work.subdirectory("import-sources")
        var files: [String] = []
        var sources: [[Float]] = []
        var audioSeconds = 0.0
        for index in 0..<clipCount {
            // 0.3 to 0.7 s of two tones, different for every clip so that none is skipped as a re-import.
            let frameCount = Int(Double(Self.sourceRate) * (0.3 + 0.4 * Double(index % 7) / 6))
            let low = 180.0 + Double(index % 50) * 7
            let high = 1_200.0 + Double(index / 50) * 13
            var samples = [Int16](repeating: 0, count: frameCount)
            for frame in 0..<frameCount {
                let time = Double(frame) / Double(Self.sourceRate)
                let value = 0.3 * sin(2 * .pi * low * time) + 0.1 * sin(2 * .pi * high * time)
                samples[frame] = PCM16.sample(Float(value))
            }
            let path = "\(folder)/tone_\(index).aiff"
            let writer = try AudioFileWriter(
                path: path, format: AudioFileFormat(.aiff, .pcm16), sampleRate: Self.sourceRate)
            try writer.write(samples)
            try writer.commit()
            files.append(path)
            sources.append(samples.map(PCM16.value))
            audioSeconds += Double(frameCount) / Double(Self.sourceRate)
        }
        let voicebank = Locations.binaries + "/voicebank"
        let pack = work.file("import.sqlite")
        var imports = Samples()
        var conversions = Samples()
        for _ in 0..<runs {
            unlink(pack)
            try runChecked(
                voicebank,
                [
                    "create", "--bank", pack, "--voice", "org.concatsynth.tones", "--name", "Tones", "--language",
                    "en-US",
                ])
            // Tones are no speech to align: the item measures import's own work, as it always has.
            let time = try spawnAndWait(
                voicebank, ["import", "--no-align", "--bank", pack] + files, showingErrors: true)
            guard time.status == 0 else { throw BenchError(description: "voicebank import exited \(time.status)") }
            imports.append(audioSeconds / time.seconds)
            conversions.append(audioSeconds / (try convertAll(sources)))
        }
        unlink(pack)
        for suffix in ["-wal", "-shm"] { unlink(pack + suffix) }
        var table = Table(
            "4. Import of \(clipCount) clips (\(decimal(audioSeconds, places: 0)) s of 24 kHz 16-bit mono AIFF) in x-realtime, median (min–max) of \(runs) runs",
            columns: ["what", "x-realtime"])
        table.printHeader()
        table.add(["voicebank import (whole process, one transaction)", Unit.timesRealtime.summary(imports)])
        table.add([
            "anchor: libsamplerate best sinc, 24000 → 22050 Hz, one core", Unit.timesRealtime.summary(conversions),
        ])
        let measured = ratio(imports, conversions)
        table.add(["ratio (≥ 1.7)", formatRatio(measured)])
        return [
            TargetResult(
                target: "import ≥ 1.7x libsamplerate's single-core rate", measured: formatRatio(measured),
                isMet: measured.map { $0 >= 1.7 })
        ]
    }

    /// Seconds libsamplerate's `src_simple` takes to convert every source, one after another on this thread.
    private func convertAll(_ sources: [[Float]]) throws -> Double {
        let longest = sources.map(\.count).max() ?? 0
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: longest + 64)
        defer { output.deallocate() }
        let ratio = Double(RenderFormat.sampleRate) / Double(Self.sourceRate)
        let start = now()
        for source in sources { try convertWithLibsamplerate(source, ratio: ratio, into: output) }
        return now() - start
    }
}

/// libsamplerate's `src_simple` with the import's converter (`SRC_SINC_BEST_QUALITY`), nothing of ours around it: the
/// anchor the import and studio items measure against. `output` holds at least `samples.count × ratio` frames.
func convertWithLibsamplerate(
    _ samples: [Float], ratio: Double, into output: UnsafeMutableBufferPointer<Float>
) throws {
    let status = samples.withUnsafeBufferPointer { input in
        var data = SRC_DATA(
            data_in: input.baseAddress, data_out: output.baseAddress, input_frames: input.count,
            output_frames: output.count, input_frames_used: 0, output_frames_gen: 0, end_of_input: 1,
            src_ratio: ratio)
        return src_simple(&data, Int32(SRC_SINC_BEST_QUALITY), 1)
    }
    guard status == 0 else {
        throw BenchError(description: "libsamplerate: \(String(cString: src_strerror(status)))")
    }
}
