// SPDX-License-Identifier: GPL-3.0-or-later
import CEbur128
import SpeechCore

/// How loud a clip is, by EBU R128 (ITU-R BS.1770): integrated loudness and true peak.
public struct Loudness: Equatable, Sendable, CustomStringConvertible {
    /// The shortest audio that has an integrated loudness: one 400 ms gating block.
    public static let minimumSeconds = 0.4

    /// Integrated loudness in LUFS; `nil` when the audio is shorter than 400 ms (R128 measures 400 ms blocks,
    /// so a shorter clip has none) or when every block is below R128's absolute gate of -70 LUFS (silence).
    public var integratedLUFS: Double?
    /// The loudness of the whole clip, whatever its length: the integrated loudness where there is one, else
    /// the ungated BS.1770 loudness over all its samples (a word shorter than one 400 ms block still has one);
    /// `nil` for silence. What loudness normalisation levels clips by.
    public var clipLUFS: Double?
    /// True peak in dBTP (4× oversampled at 22050 Hz); `-infinity` for digital silence; `nil` when not measured
    /// (the oversampling is most of what measuring costs).
    public var truePeakDBTP: Double?
    /// The highest absolute sample in dBFS; `-infinity` for digital silence.
    public var samplePeakDBFS: Double
    public var frameCount: Int
    public var sampleRate: Int

    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    public var description: String {
        (integratedLUFS.map { "\(rounded($0)) LUFS" } ?? "no integrated loudness")
            + (truePeakDBTP.map { ", true peak \($0 == -.infinity ? "-inf" : "\(rounded($0))") dBTP" } ?? "")
    }

    /// Measures mono samples; one meter per call, so clips never share gating history.
    ///
    /// ```swift
    /// let loudness = try Loudness(samples)          // 22050 Hz mono Float
    /// loudness.integratedLUFS                      // -23.1, or nil for a 0.3 s clip
    /// ```
    /// - Throws: `AudioIOError.loudnessMeter` with libebur128's error.
    public init(
        _ samples: [Float], sampleRate: Int = RenderFormat.sampleRate, measuringTruePeak: Bool = true
    ) throws(AudioIOError) {
        let meter = try LoudnessMeter(sampleRate: sampleRate, measuringTruePeak: measuringTruePeak)
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioIOError) in try meter.add(buffer) }
        self = try meter.loudness()
    }

    init(
        integratedLUFS: Double?, clipLUFS: Double?, truePeakDBTP: Double?, samplePeakDBFS: Double, frameCount: Int,
        sampleRate: Int
    ) {
        self.integratedLUFS = integratedLUFS
        self.clipLUFS = clipLUFS
        self.truePeakDBTP = truePeakDBTP
        self.samplePeakDBFS = samplePeakDBFS
        self.frameCount = frameCount
        self.sampleRate = sampleRate
    }
}

private func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

/// An EBU R128 meter for mono audio; owns the `ebur128_state*` and destroys it in `deinit`.
public final class LoudnessMeter {
    public let sampleRate: Int
    private var state: UnsafeMutablePointer<ebur128_state>?
    private var frameCount = 0
    private let measuresTruePeak: Bool

    /// - Throws: `AudioIOError.loudnessMeter` when libebur128 cannot make a meter for the rate.
    public init(sampleRate: Int = RenderFormat.sampleRate, measuringTruePeak: Bool = true) throws(AudioIOError) {
        self.sampleRate = sampleRate
        self.measuresTruePeak = measuringTruePeak
        let truePeak = measuringTruePeak ? EBUR128_MODE_TRUE_PEAK.rawValue : 0
        let mode = Int32(EBUR128_MODE_I.rawValue | truePeak | EBUR128_MODE_SAMPLE_PEAK.rawValue)
        guard sampleRate > 0, let state = ebur128_init(1, UInt(sampleRate), mode) else {
            throw .loudnessMeter(reason: "libebur128 cannot measure at \(sampleRate) Hz")
        }
        self.state = state
    }

    deinit { ebur128_destroy(&state) }

    /// Adds mono samples to the measurement.
    public func add(_ samples: UnsafeBufferPointer<Float>) throws(AudioIOError) {
        guard let base = samples.baseAddress, samples.count > 0 else { return }
        try check(ebur128_add_frames_float(state, base, samples.count), "adding frames")
        frameCount += samples.count
    }

    /// The loudness of everything added so far.
    public func loudness() throws(AudioIOError) -> Loudness {
        var integrated = -Double.infinity
        var truePeak = 0.0
        var samplePeak = 0.0
        try check(ebur128_loudness_global(state, &integrated), "integrated loudness")
        if measuresTruePeak { try check(ebur128_true_peak(state, 0, &truePeak), "true peak") }
        try check(ebur128_sample_peak(state, 0, &samplePeak), "sample peak")
        // libebur128 answers -HUGE_VAL when no 400 ms block passes the gates.
        let blockFrames = Loudness.minimumSeconds * Double(sampleRate)
        let hasBlocks = Double(frameCount) >= blockFrames && integrated.isFinite
        var clip: Double? = hasBlocks ? integrated : nil
        if Double(frameCount) < blockFrames && frameCount > 0 {
            // A clip shorter than the 400 ms momentary window sits in it after silence, so its own ungated
            // loudness is the window's scaled by how much of the window it fills. (A window as long as the clip,
            // ebur128_set_max_window, would do too, but libebur128 holds memory in proportion to the window, far more
            // than the clip.)
            var momentary = -Double.infinity
            try check(ebur128_loudness_momentary(state, &momentary), "momentary loudness")
            let scaled = momentary + Decibels.level(power: blockFrames / Double(frameCount))
            // Under R128's absolute gate (-70 LUFS) it is silence, as an integrated measurement would say.
            clip = momentary.isFinite && scaled > -70 ? scaled : nil
        }
        return Loudness(
            integratedLUFS: hasBlocks ? integrated : nil, clipLUFS: clip,
            truePeakDBTP: measuresTruePeak ? Decibels.level(amplitude: truePeak) : nil,
            samplePeakDBFS: Decibels.level(amplitude: samplePeak), frameCount: frameCount, sampleRate: sampleRate)
    }

    private func check(_ status: Int32, _ what: String) throws(AudioIOError) {
        guard status == Int32(EBUR128_SUCCESS.rawValue) else {
            throw .loudnessMeter(reason: "libebur128 failed at \(what) (error \(status))")
        }
    }
}
