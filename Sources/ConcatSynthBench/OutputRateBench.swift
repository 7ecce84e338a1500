// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import ConcatSynth
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Item 17: the output's conversion from 22050 Hz to other rates (`--sample-rate`, Asterisk's formats, the HTTP API's
/// 24 kHz), converter by converter: passband flatness, what is left of a sine above the new Nyquist frequency (aliasing,
/// going down) or of a sine's image (going up), the SNR of a 1 kHz sine against the exact sine and of the default
/// pack's clips against libsamplerate's best converter, and the conversion's speed; then what a render costs at each
/// rate through the output's chain (`ConvertedPull`), against the same render converted by libsamplerate's best.
struct OutputRateBench {
    var pack: BenchPack
    var text: String
    var runs: Int
    /// Seconds of the default pack's clips the speech figures convert.
    var speechSeconds: Double

    static let rates = [8_000, 16_000, 24_000, 48_000]

    /// The converters compared: libsamplerate's best (the reference, and the output's converter before soxr), soxr's
    /// `high` (the output's), and the alternatives.
    static let converters: [OutputConverter] = [
        .libsamplerate(.best), .soxr(.high), .soxr(.veryHigh), .soxr(.medium), .libsamplerate(.medium),
        .libsamplerate(.fastest),
    ]

    func run() throws -> [TargetResult] {
        let speech = try Self.speech(seconds: speechSeconds)
        var table = Table(
            "18. Output conversion from 22050 Hz: quality and speed (\(decimal(Double(speech.count) / 22_050, places: 1)) s of the default pack's clips rendered)",
            columns: [
                "rate", "converter", "passband to 0.9 of the lower Nyquist (dB, min…max)",
                "above the new Nyquist: alias or image (dB, worst)", "1 kHz sine SNR (dB)",
                "speech SNR against libsamplerate best (dB)", "speed (x realtime, CPU time)",
            ])
        table.printHeader()
        for rate in Self.rates {
            let reference = try OutputConverter.libsamplerate(.best).convert(speech, to: rate)
            for converter in Self.converters {
                var converted: [Float] = []
                var speed = Samples()
                for _ in 0..<3 {
                    let elapsed = try cpuSeconds { converted = try converter.convert(speech, to: rate) }
                    speed.append(Double(speech.count) / 22_050 / elapsed)
                }
                let passband = try Self.passband(converter, rate: rate)
                table.add([
                    "\(rate)", converter.name,
                    "\(decimal(passband.lowerBound, places: 3) )…\(decimal(passband.upperBound, places: 3))",
                    decimal(try Self.beyondNyquist(converter, rate: rate), places: 1),
                    decimal(try Self.sineSNR(converter, rate: rate), places: 1),
                    converter == .libsamplerate(.best)
                        ? "(reference)" : decimal(Self.snr(converted, reference), places: 1),
                    Unit.timesRealtime.format(speed.median),
                ])
            }
        }
        return try renderCost()
    }

    /// The request rendered at each rate through `ConvertedPull`, pulled as the HTTP server pulls (10 ms, then
    /// 100 ms blocks), against the render converted by libsamplerate's best converter as the chain did before (fewer
    /// runs: each takes about a hundred times as long).
    func renderCost() throws -> [TargetResult] {
        let synthesizer = try Synthesizer(bank: pack.path)
        let request = SpeechRequest(text, isLenient: true)
        let runsBefore = max(3, runs / 20)
        var table = Table(
            "18b. \"\(text)\" rendered and converted in process, \(pack.label)-clip pack: renders per CPU second and the wall-clock time to the first converted frame (median (min–max) of \(runs) runs, \(runsBefore) with libsamplerate best)",
            columns: [
                "rate", "renders/s", "÷ 22050 Hz", "first converted frame (µs)", "renders/s, libsamplerate best",
                "first converted frame, libsamplerate best (µs)",
            ])
        table.printHeader()
        var rendersPerSecond: [Int: Double] = [:]
        for rate in [22_050] + Self.rates {
            var whole = Samples()
            var first = Samples()
            for round in 0..<(runs + 3) {
                let pulled = try Self.pull {
                    try ConvertedPull(synthesizer.renderer(for: request), sampleRate: rate, blockFrames: 2_205)
                }
                guard round >= 3 else { continue }
                whole.append(pulled.cpu)
                first.append(pulled.first)
            }
            var wholeBefore = Samples()
            var firstBefore = Samples()
            for _ in 0..<(rate == 22_050 ? 0 : runsBefore) {
                let pulled = try Self.pullThroughLibsamplerate(synthesizer.renderer(for: request), rate: rate)
                wholeBefore.append(pulled.cpu)
                firstBefore.append(pulled.first)
            }
            rendersPerSecond[rate] = 1 / whole.median
            table.add([
                "\(rate)", decimal(1 / whole.median, places: 0),
                formatRatio(rendersPerSecond[rate]! / rendersPerSecond[22_050]!), Unit.microseconds.summary(first),
                wholeBefore.isEmpty ? "" : decimal(1 / wholeBefore.median, places: 0),
                firstBefore.isEmpty ? "" : Unit.microseconds.summary(firstBefore),
            ])
        }
        return []
    }

    /// The wall-clock seconds to the first converted frame and the CPU seconds of the whole request, pulling 10 ms
    /// and then 100 ms at a time.
    static func pull(_ chain: () throws -> ConvertedPull) throws -> (first: Double, cpu: Double) {
        let start = now()
        let startCPU = threadCPUTime()
        let chain = try chain()
        var first: Double?
        var isFirstPull = true
        while !chain.isComplete {
            try chain.pull(maximumFrames: isFirstPull ? 220 : .max) { frames in
                if first == nil && !frames.isEmpty { first = now() - start }
            }
            isFirstPull = false
        }
        return (first ?? now() - start, threadCPUTime() - startCPU)
    }

    /// `pull` with the render converted by libsamplerate's best converter.
    static func pullThroughLibsamplerate(_ renderer: @autoclosure () throws -> Renderer, rate: Int) throws
        -> (first: Double, cpu: Double)
    {
        let start = now()
        let startCPU = threadCPUTime()
        let renderer = try renderer()
        let resampler = try StreamingResampler(from: 22_050, to: rate, converter: .best)
        var block = [Float](repeating: 0, count: 2_205)
        var first: Double?
        var frameCount = 220
        let note: (UnsafeBufferPointer<Float>) -> Void = { frames in
            if first == nil && !frames.isEmpty { first = now() - start }
        }
        while true {
            let pulled = try block.withUnsafeMutableBufferPointer {
                try renderer.render(into: UnsafeMutableBufferPointer(rebasing: $0[..<frameCount]))
            }
            try block.withUnsafeBufferPointer {
                try resampler.convert(UnsafeBufferPointer(rebasing: $0[..<pulled.frameCount]), to: note)
            }
            frameCount = block.count
            if pulled.isComplete { break }
        }
        try resampler.finish(to: note)
        return (first ?? now() - start, threadCPUTime() - startCPU)
    }

    /// The screen-reader pack's clips, each rendered from its phrase by its own voice, end to end, up to `seconds`.
    static func speech(seconds: Double) throws -> [Float] {
        let clips = try VoicePack(path: Locations.screenReaderPack, access: .readOnly).clips().filter {
            !$0.isFallback
        }
        var synthesizers: [String: Synthesizer] = [:]
        var speech: [Float] = []
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4_096)
        defer { buffer.deallocate() }
        for clip in clips where Double(speech.count) < seconds * 22_050 {
            if synthesizers[clip.voice] == nil {
                synthesizers[clip.voice] = try Synthesizer(bank: Locations.screenReaderPack, voice: clip.voice)
            }
            let renderer = try synthesizers[clip.voice]!.renderer(for: SpeechRequest(clip.phrase, isLenient: true))
            var pulled = try renderer.render(into: buffer)
            speech += buffer[..<pulled.frameCount]
            while !pulled.isComplete {
                pulled = try renderer.render(into: buffer)
                speech += buffer[..<pulled.frameCount]
            }
        }
        return Array(speech.prefix(Int(seconds * 22_050)))
    }

    /// Half a second of a sine at 22050 Hz, amplitude 0.5.
    static func sine(_ frequency: Double) -> [Float] {
        (0..<11_025).map { Float(0.5 * sin(2 * .pi * frequency * Double($0) / 22_050)) }
    }

    /// Where the measurements look: all but a tenth of a second at each end, where the filter meets the edges.
    static func middle(_ samples: [Float], rate: Int) -> ArraySlice<Float> {
        samples[(rate / 10)..<(samples.count - rate / 10)]
    }

    /// The lowest and highest gain (dB) of sines from 50 Hz to 0.9 of the lower Nyquist frequency.
    static func passband(_ converter: OutputConverter, rate: Int) throws -> ClosedRange<Double> {
        let top = 0.9 * Double(min(rate, 22_050)) / 2
        var gains: [Double] = []
        for step in 0...24 {
            let frequency = 50 + (top - 50) * Double(step) / 24
            let output = try converter.convert(sine(frequency), to: rate)
            gains.append(20 * log10(amplitude(of: frequency, in: middle(output, rate: rate), rate: rate) / 0.5))
        }
        return gains.min()!...gains.max()!
    }

    /// Going down, the loudest output (dB against the sine) of sines between the new Nyquist frequency and the old:
    /// whatever of them folds back. Going up, the loudest image (22050 Hz less the sine's frequency) of sines up to
    /// the old Nyquist frequency, where it falls below the new.
    static func beyondNyquist(_ converter: OutputConverter, rate: Int) throws -> Double {
        var worst = -Double.infinity
        if rate < 22_050 {
            let (low, high) = (Double(rate) / 2, 11_025.0)
            for step in 0...8 {
                let frequency = low + (high - low) * (0.02 + 0.96 * Double(step) / 8)
                let output = middle(try converter.convert(sine(frequency), to: rate), rate: rate)
                worst = max(worst, 20 * log10(max(rms(output), 1e-12) / (0.5 / 2.squareRoot())))
            }
        } else {
            for fraction in [0.1, 0.3, 0.5, 0.7, 0.9, 0.93, 0.95, 0.98] {
                let frequency = 11_025 * fraction
                let image = 22_050 - frequency
                guard image < Double(rate) / 2 else { continue }
                let output = middle(try converter.convert(sine(frequency), to: rate), rate: rate)
                // The sine itself taken out first, lest the fit at the image see its leakage over a short window.
                let residual = removing(frequency, from: output, rate: rate)
                worst = max(worst, 20 * log10(max(amplitude(of: image, in: residual, rate: rate), 1e-12) / 0.5))
            }
        }
        return worst
    }

    /// A 1 kHz sine's SNR at `rate` against the exact sine at that rate.
    static func sineSNR(_ converter: OutputConverter, rate: Int) throws -> Double {
        let input = (0..<22_050).map { Float(0.5 * sin(2 * .pi * 1_000 * Double($0) / 22_050)) }
        let output = try converter.convert(input, to: rate)
        let exact = (0..<output.count).map { Float(0.5 * sin(2 * .pi * 1_000 * Double($0) / Double(rate))) }
        return snr(Array(middle(output, rate: rate)), Array(middle(exact, rate: rate)))
    }

    /// `10 log10(Σ reference² ÷ Σ (samples − reference)²)`.
    static func snr(_ samples: [Float], _ reference: [Float]) -> Double {
        var (signal, noise) = (0.0, 0.0)
        for (sample, expected) in zip(samples, reference) {
            signal += Double(expected) * Double(expected)
            noise += (Double(sample) - Double(expected)) * (Double(sample) - Double(expected))
        }
        return 10 * log10(signal / max(noise, 1e-30))
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// The amplitude of the sine of `frequency` Hz in `samples`: a least-squares fit of its sine and cosine.
    static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
        SineFit(frequency, to: samples, sampleRate: rate).amplitude
    }

    /// `samples` less their least-squares fit of a sine of `frequency` Hz.
    static func removing(_ frequency: Double, from samples: ArraySlice<Float>, rate: Int) -> ArraySlice<Float> {
        SineFit(frequency, to: samples, sampleRate: rate).removed(from: samples)
    }
}

/// A converter of the output from 22050 Hz: one of libsamplerate's or soxr at a recipe.
enum OutputConverter: Equatable {
    case libsamplerate(Converter)
    case soxr(SoxrQuality)

    var name: String {
        switch self {
        case .libsamplerate(let converter): return "libsamplerate \(converter.rawValue)"
        case .soxr(let quality):
            return "soxr \(quality.rawValue)\(quality == ConvertedPull.quality ? " (the output's)" : "")"
        }
    }

    /// `samples` converted from 22050 Hz to `rate` as one stream, in blocks of 4096 frames.
    func convert(_ samples: [Float], to rate: Int) throws -> [Float] {
        let resampler: StreamingResampler
        switch self {
        case .libsamplerate(let converter):
            resampler = try StreamingResampler(from: 22_050, to: rate, converter: converter)
        case .soxr(let quality): resampler = try StreamingResampler(from: 22_050, to: rate, soxr: quality)
        }
        return try resampler.convertAll(samples, blockFrames: 4_096)
    }
}
