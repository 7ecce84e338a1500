// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import SpeechCore
import Units
import Voicebank

#if canImport(Glibc)
    import Glibc
#endif

/// Item 21: the joins and F0 of words built from units, on an aligned voice with pitch marks (the default pack's
/// Allison): every word of the everyday sentences that no take says whole and that units build in more than one
/// piece, spoken in process twice, as recorded (cuts at the aligner's boundaries, F0 as each piece said it) and shaped
/// (cuts at pitch marks, F0 brought to the contour). At each join, the F0 on either side (aubio's YIN, the median of
/// the two voiced hops nearest the join whose windows lie wholly on that side); at each word's end as a statement's
/// and a question's last word, the F0 movement over its last voiced 300 ms. Then the pitch shifter: the
/// pitch-synchronous overlap-add the units use against libsonic's pitch on a whole buffer, on F0 accuracy and
/// distortion, for takes of the voice and a pulse train.
struct UnitsProsodyBench {
    let pack: String
    let smoke: Bool
    let work: WorkDirectory

    /// F0 of the two voiced hops nearest the join on one side, each hop's window wholly on that side.
    static let sideFrames = PitchTracker.windowFrames + 2 * PitchTracker.hopFrames
    static let endingSeconds = 0.3

    func run() throws -> [TargetResult] {
        // Without the pack (the suite's smoke run, where the default pack may not be built), the tables say n/a.
        var clips: ClipIndex?
        if (fileSize(pack) ?? 0) > 0 {
            let copy = work.file("units-prosody.sqlite")
            _ = try runChecked("/bin/cp", [pack, copy])
            clips = try VoicePack(path: copy, access: .readWrite).clipIndexes().first {
                $0.settings.language.lowercased().hasPrefix("en")
            }
        } else {
            print("\nItem 21: no pack at \(pack); its tables say n/a.")
        }
        return try run(clips)
    }

    /// What the tables show: the words measured, the F0 jumps at their joins for each way of joining, and the
    /// movement at their ends for each way of ending.
    private struct Measured {
        var wordCount = 0
        var jumps: [(name: String, values: [Double], joins: Int)] = []
        var endings: [(name: String, values: [Double])] = []
    }

    private func measure(_ clips: ClipIndex) throws -> Measured {
        let frontEnd = EnglishFrontEnd(language: clips.settings.language)
        let shaped = UnitVoice(lookup: clips, audio: clips, frontEnd: frontEnd, prosody: .shaped)
        let recorded = UnitVoice(lookup: clips, audio: clips, frontEnd: frontEnd, prosody: .asRecorded)
        let index = try shaped.index()
        _ = try recorded.index()
        var words: [UnitChoice] = []
        var seen: Set<String> = []
        let sentences = try EverydaySentence.all()
        for sentence in smoke ? Array(sentences.prefix(3)) : sentences {
            for word in sentence.reference where seen.insert(word).inserted && index.places(ofWord: word).isEmpty {
                guard let phones = try? frontEnd.phones(for: [word]).first,
                    case .built(let choice) = try shaped.choose(word: phones, before: nil, after: nil, in: index),
                    choice.pieces.count > 1
                else { continue }
                words.append(choice)
            }
        }
        var measured = Measured(wordCount: words.count)
        for (name, voice) in [
            ("as recorded (cuts at the aligner's boundaries, F0 as said)", recorded),
            ("shaped (cuts at pitch marks, F0 to the contour)", shaped),
        ] {
            var values: [Double] = []
            var joins = 0
            for choice in words {
                let joined = try voice.join(choice, in: index)
                let spoken = try voice.speak(choice, in: index, contour: WordContour())
                for join in joined.joins {
                    joins += 1
                    if let jump = try Self.jump(spoken.samples, at: join) { values.append(jump) }
                }
            }
            measured.jumps.append((name, values, joins))
        }
        for (name, voice, ending) in [
            ("as recorded", recorded, WordContour.Ending.statement),
            ("shaped, a statement's last word", shaped, .statement),
            ("shaped, a question's last word", shaped, .question),
        ] {
            var values: [Double] = []
            for choice in words {
                let spoken = try voice.speak(choice, in: index, contour: WordContour(ending: ending))
                if let movement = try Self.endMovement(spoken.samples) { values.append(movement) }
            }
            measured.endings.append((name, values))
        }
        return measured
    }

    func run(_ clips: ClipIndex?) throws -> [TargetResult] {
        let measured = try clips.map(measure) ?? Measured()
        let jumps = measured.jumps
        let endings = measured.endings
        let words = measured
        var table = Table(
            "21. Units: F0 jumps at joins, \(words.wordCount) words of the everyday sentences built from units in more than one piece",
            columns: ["joins", "joins measured (both sides voiced)", "median jump (st)", "mean (st)", "under 1 st"])
        table.printHeader()
        for (name, values, joins) in jumps {
            table.add(
                values.isEmpty
                    ? [name, "0 of \(joins)", "n/a", "n/a", "n/a"]
                    : [
                        name, "\(values.count) of \(joins)", decimal(Samples(values).median, places: 2),
                        decimal(values.reduce(0, +) / Double(values.count), places: 2),
                        "\(decimal(Double(values.filter { $0 < 1 }.count) * 100 / Double(values.count), places: 0)) %",
                    ])
        }
        var ends = Table(
            "21b. Units: F0 over a word's last voiced 300 ms (the same words)",
            columns: ["word", "words measured", "median movement (st)", "rising", "falling"])
        ends.printHeader()
        for (name, values) in endings {
            ends.add(
                values.isEmpty
                    ? [name, "0", "n/a", "n/a", "n/a"]
                    : [
                        name, "\(values.count) of \(words.wordCount)", decimal(Samples(values).median, places: 2),
                        "\(values.filter { $0 > 0 }.count)", "\(values.filter { $0 < 0 }.count)",
                    ])
        }
        try compareShifters(clips: clips, takeCount: smoke ? 2 : 20)
        let after = jumps.last?.values ?? []
        return [
            TargetResult(
                target: "units: median F0 jump at unit joins below item 16's phrase joins of `best` takes (1.23 st)",
                measured: after.isEmpty
                    ? "n/a"
                    : "\(decimal(Samples(after).median, places: 2)) st over \(after.count) joins (as recorded: "
                        + "\(decimal(Samples(jumps[0].values.isEmpty ? [0] : jumps[0].values).median, places: 2)) st)",
                isMet: after.isEmpty ? nil : Samples(after).median < 1.23)
        ]
    }

    /// The F0 jump in semitones across a join at frame `join` (where its crossfade starts) of `samples`: the F0 just
    /// before the crossfade against the F0 just after it; `nil` unless both sides are voiced.
    static func jump(_ samples: [Float], at join: Int) throws -> Double? {
        let after = join + UnitVoice.crossfadeFrames
        guard join >= sideFrames, after + sideFrames <= samples.count else { return nil }
        let left = try PitchTracker().voicedHops(Array(samples[(join - sideFrames)..<join]))
            .filter { $0.hop >= sideFrames / PitchTracker.hopFrames - 2 }
        // Read backwards, the hops after the join end where it does: the window nearest it is the first full one.
        let right = try PitchTracker().voicedHops(Array(samples[after..<(after + sideFrames)].reversed()))
            .filter { $0.hop >= sideFrames / PitchTracker.hopFrames - 2 }
        guard let leftF0 = PitchTracker.median(left.map(\.frequency)),
            let rightF0 = PitchTracker.median(right.map(\.frequency))
        else { return nil }
        return abs(12 * log2(rightF0 / leftF0))
    }

    /// The F0 movement in semitones over the last voiced `endingSeconds` of `samples`: the last voiced hop's F0 against
    /// the F0 of the voiced hop nearest that long before it (the first voiced hop, for a shorter voice); `nil` with
    /// fewer than two voiced hops.
    static func endMovement(_ samples: [Float]) throws -> Double? {
        let hops = try PitchTracker().voicedHops(samples)
        guard let last = hops.last, hops.count >= 2 else { return nil }
        let back = Int(endingSeconds * Double(RenderFormat.sampleRate)) / PitchTracker.hopFrames
        let start = hops.min { abs($0.hop - (last.hop - back)) < abs($1.hop - (last.hop - back)) }!
        guard start.hop < last.hop else { return nil }
        return 12 * log2(last.frequency / start.frequency)
    }

    /// Pitch-synchronous overlap-add against libsonic at -2, 0 and +2 semitones: F0 accuracy (YIN's median F0 of
    /// the output against the input's, moved by the shift) and distortion (at 0, the output against the input; at ±2,
    /// shifted there and back against the input; signal to error in dB, after the lag within ±10 ms that fits best).
    func compareShifters(clips: ClipIndex?, takeCount: Int) throws {
        var speech: [(samples: [Float], marks: [Int])] = []
        for take in try clips?.alignedTakes().prefix(takeCount) ?? [] {
            guard let clips else { break }
            let audio = try clips.audio(clipID: take.clipID)
            var samples = [Float](repeating: 0, count: audio.wholeFrameCount)
            try samples.withUnsafeMutableBufferPointer { buffer in
                _ = try clips.readRenderReadyPCM(
                    take.slice(0..<audio.wholeFrameCount, levelDecibels: 0), from: 0, into: buffer)
            }
            let marks = try clips.pitchMarks(clipID: take.clipID)
            if marks.count > 10 { speech.append((samples, marks)) }
        }
        let period = 184  // 119.8 Hz
        var pulses = [Float](repeating: 0, count: RenderFormat.sampleRate)
        let pulseMarks = Array(stride(from: 400, to: pulses.count - 400, by: period))
        for mark in pulseMarks {
            for offset in 0..<20 {
                pulses[mark + offset] = Float(0.5 * exp(-Double(offset) / 4) * cos(0.7 * Double(offset)))
            }
        }
        let sources = [("speech, \(speech.count) takes", speech), ("pulse train, 120 Hz", [(pulses, pulseMarks)])]
        var table = Table(
            "21c. Pitch shifting: pitch-synchronous overlap-add on the stored marks against libsonic (sonicSetPitch)",
            columns: [
                "material", "shifter", "F0 error at +2 st (cents)", "F0 error at -2 st (cents)",
                "signal to error at 0 st (dB)", "there and back ±2 st (dB)",
            ])
        table.printHeader()
        for (material, items) in sources {
            for shifter in ["PSOLA", "libsonic"] {
                func shift(_ item: ([Float], [Int]), _ semitones: Double) -> [Float] {
                    let ratio = pow(2, semitones / 12)
                    if shifter == "PSOLA" {
                        return PitchSynchronousOverlapAdd.shift(item.0, marks: item.1) { _ in ratio }
                    }
                    return Self.sonic(item.0, pitch: ratio)
                }
                var errors: [Double: [Double]] = [2: [], -2: []]
                var identity: [Double] = []
                var roundTrip: [Double] = []
                for item in items {
                    guard let input = try PitchTracker.medianFrequency(of: item.0) else { continue }
                    for semitones in [2.0, -2.0] {
                        let shifted = shift(item, semitones)
                        if let output = try PitchTracker.medianFrequency(of: shifted) {
                            errors[semitones]!.append(abs(1200 * log2(output / input) - 100 * semitones))
                        }
                        // Back on the shifted signal's own marks: the input's, as PSOLA keeps where periods are.
                        let marks = PitchSynchronousOverlapAdd.shiftedMarks(item.1) { _ in pow(2, semitones / 12) }
                        let back = shift((shifted, marks), -semitones)
                        roundTrip.append(Self.signalToError(item.0, back))
                    }
                    identity.append(Self.signalToError(item.0, shift(item, 0)))
                }
                func median(_ values: [Double]) -> String {
                    values.isEmpty ? "n/a" : decimal(Samples(values).median, places: 1)
                }
                table.add([
                    material, shifter, median(errors[2]!), median(errors[-2]!), median(identity), median(roundTrip),
                ])
            }
        }
    }

    /// `samples` through libsonic with its pitch at `pitch`, the tempo kept, as long as they were.
    static func sonic(_ samples: [Float], pitch: Double) -> [Float] {
        let stretcher = TimeStretcher(speed: 1, pitch: pitch)
        samples.withUnsafeBufferPointer { stretcher.write($0) }
        stretcher.flush()
        var output: [Float] = []
        var buffer = [Float](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stretcher.read(into: $0) }
            if count == 0 { break }
            output += buffer[0..<count]
        }
        output = Array(output.prefix(samples.count))
        return output + [Float](repeating: 0, count: samples.count - output.count)
    }

    /// Signal to error in dB of `output` against `input`, at the lag within ±10 ms with the least error over the middle
    /// 8192 frames (the smallest lag among equals: a periodic signal matches itself a period on).
    static func signalToError(_ input: [Float], _ output: [Float]) -> Double {
        let middle = max(0, input.count / 2 - 4_096)..<min(input.count, input.count / 2 + 4_096)
        func shifted(_ index: Int, _ lag: Int) -> Double {
            index + lag >= 0 && index + lag < output.count ? Double(output[index + lag]) : 0
        }
        func error(_ frames: Range<Int>, _ lag: Int) -> Double {
            frames.reduce(0.0) { sum, index in
                let difference = Double(input[index]) - shifted(index, lag)
                return sum + difference * difference
            }
        }
        let lags = (-220...220).sorted { abs($0) < abs($1) }
        let errors = lags.map { error(middle, $0) }
        let lag = lags[errors.indices.min { errors[$0] < errors[$1] }!]
        let signal = input.reduce(0.0) { $0 + Double($1) * Double($1) }
        let total = error(0..<input.count, lag)
        return total == 0 ? 200 : 10 * log10(signal / total)
    }
}
