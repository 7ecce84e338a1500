// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import TestSupport
import Testing

@Suite struct LoudnessTests {
    @Test(
        "a 1 kHz sine at -20 dBFS measures -23 LUFS (BS.1770: a full-scale sine in one channel is -3.01), its peak -20 dBTP"
    )
    func referenceSine() throws {
        let sine = Signal.sine(frequency: 997, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050 * 2)

        let loudness = try Loudness(sine)

        let integrated = try #require(loudness.integratedLUFS)
        #expect(abs(integrated - -23.01) < 0.1)
        #expect(abs(try #require(loudness.truePeakDBTP) - -20) < 0.2)
        #expect(abs(loudness.samplePeakDBFS - -20) < 0.1)
        #expect(loudness.frameCount == 44_100)
    }

    @Test("6 dB more signal is 6 LU louder")
    func relative() throws {
        let quiet = try Loudness(Signal.sine(frequency: 440, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050))
        let loud = try Loudness(Signal.sine(frequency: 440, amplitude: 0.2, sampleRate: 22_050, frameCount: 22_050))
        let difference = try #require(loud.integratedLUFS) - #require(quiet.integratedLUFS)
        #expect(abs(difference - 6.02) < 0.05)
    }

    @Test("shorter than one 400 ms block, or silent: no integrated loudness, but a peak")
    func unmeasurable() throws {
        let short = try Loudness(Signal.sine(frequency: 440, amplitude: 0.5, sampleRate: 22_050, frameCount: 8_000))
        #expect(short.integratedLUFS == nil)
        #expect(abs(short.samplePeakDBFS - -6.02) < 0.1)

        let silence = try Loudness([Float](repeating: 0, count: 22_050))
        #expect(silence.integratedLUFS == nil)
        #expect(silence.truePeakDBTP == -.infinity)
        #expect(silence.description == "no integrated loudness, true peak -inf dBTP")
    }

    @Test("a meter fed in pieces measures what one call measures")
    func pieces() throws {
        let sine = Signal.sine(frequency: 440, amplitude: 0.3, sampleRate: 22_050, frameCount: 30_000)
        let meter = try LoudnessMeter()
        try sine.withUnsafeBufferPointer { buffer in
            try meter.add(UnsafeBufferPointer(rebasing: buffer[..<12_345]))
            try meter.add(UnsafeBufferPointer(rebasing: buffer[12_345...]))
        }
        #expect(try meter.loudness() == Loudness(sine))
    }
}

@Suite struct ClipLoudnessTests {
    @Test("a clip shorter than one 400 ms block still has a loudness, the same as a longer one of the same level")
    func shortClip() throws {
        let long = try Loudness(Signal.sine(frequency: 1_000, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050))
        let short = try Loudness(Signal.sine(frequency: 1_000, amplitude: 0.1, sampleRate: 22_050, frameCount: 4_410))
        #expect(short.integratedLUFS == nil)
        let longLUFS = try #require(long.clipLUFS)
        let shortLUFS = try #require(short.clipLUFS)
        #expect(longLUFS == long.integratedLUFS)
        #expect(abs(shortLUFS - longLUFS) < 0.2)
        #expect(try Loudness([Float](repeating: 0, count: 4_410)).clipLUFS == nil)
    }

    @Test("true peak is measured only when asked for; the loudness is the same either way")
    func truePeakOptional() throws {
        let sine = Signal.sine(frequency: 997, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050)
        let without = try Loudness(sine, measuringTruePeak: false)
        let with = try Loudness(sine)
        #expect(without.truePeakDBTP == nil)
        #expect(with.truePeakDBTP != nil)
        #expect(without.clipLUFS == with.clipLUFS)
    }
}
