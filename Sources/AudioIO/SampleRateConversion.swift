// SPDX-License-Identifier: GPL-3.0-or-later
import CSampleRate
import CSoxr
import SpeechCore

/// libsamplerate's converters, best first.
public enum Converter: String, Sendable, CaseIterable {
    case best, medium, fastest, linear
    case zeroOrderHold = "zero-order-hold"

    var libsamplerateType: Int32 {
        switch self {
        case .best: return Int32(SRC_SINC_BEST_QUALITY)
        case .medium: return Int32(SRC_SINC_MEDIUM_QUALITY)
        case .fastest: return Int32(SRC_SINC_FASTEST)
        case .linear: return Int32(SRC_LINEAR)
        case .zeroOrderHold: return Int32(SRC_ZERO_ORDER_HOLD)
        }
    }
}

/// soxr's quality recipes by their precision, each linear-phase, flat (within 0.01 dB) to 0.913 of the lower Nyquist
/// frequency, with its stopband from that Nyquist frequency on: `medium` to 16 bits, `high` to 20 (sox's `rate -h`,
/// soxr's default), `veryHigh` to 28 (sox's `rate -v`).
public enum SoxrQuality: String, Sendable, CaseIterable {
    case medium, high
    case veryHigh = "very-high"

    var recipe: UInt {
        switch self {
        case .medium: return UInt(SOXR_16_BITQ)
        case .high: return UInt(SOXR_20_BITQ)
        case .veryHigh: return UInt(SOXR_28_BITQ)
        }
    }
}

/// Sample-rate conversion of mono Float audio with libsamplerate.
public enum SampleRateConversion {
    /// The length a conversion produces: `frameCount × targetRate ÷ sourceRate`, rounded half up, at least 1.
    ///
    /// libsamplerate's sinc converters may return a frame fewer (or more) than this; `convert` pads the end
    /// with silence or trims it so that the length depends on the source length alone.
    public static func convertedFrameCount(_ frameCount: Int, from sourceRate: Int, to targetRate: Int) -> Int {
        max(1, (frameCount * targetRate + sourceRate / 2) / sourceRate)
    }

    /// Converts mono samples from `sourceRate` to `targetRate`; the same rate returns the samples unchanged.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with libsamplerate's message.
    public static func convert(
        _ samples: [Float], from sourceRate: Int, to targetRate: Int = RenderFormat.sampleRate,
        converter: Converter = .best
    ) throws(AudioIOError) -> [Float] {
        let outputCount = convertedFrameCount(samples.count, from: sourceRate, to: targetRate)
        guard sourceRate != targetRate else { return samples }
        // Room for libsamplerate's rounding on top of the rule's length.
        var output = [Float](repeating: 0, count: outputCount + 16)
        let ratio = Double(targetRate) / Double(sourceRate)
        var generated = 0
        let status = samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var data = SRC_DATA(
                    data_in: input.baseAddress, data_out: out.baseAddress, input_frames: input.count,
                    output_frames: out.count, input_frames_used: 0, output_frames_gen: 0, end_of_input: 1,
                    src_ratio: ratio)
                let status = src_simple(&data, converter.libsamplerateType, 1)
                generated = data.output_frames_gen
                return status
            }
        }
        guard status == 0 else { throw .conversionFailed(reason: String(cString: src_strerror(status))) }
        // Zero what libsamplerate did not fill, then cut to the rule's length.
        for index in generated..<output.count { output[index] = 0 }
        output.removeLast(output.count - outputCount)
        return output
    }
}

/// Converts a stream of mono Float blocks to another rate through one converter's state, libsamplerate's (the
/// import's) or soxr's (the output's), so a render can be converted as it is pulled, never held whole.
///
/// The same blocks give the same samples, bit for bit, however the stream is cut into blocks. The whole output is
/// `round(inputFrames × targetRate ÷ sourceRate)` frames (half up), the length markers at the target rate assume:
/// `finish` pads the converter's last frames with silence or cuts them to it. At the same rate the blocks pass through
/// untouched. Owns the converter's state (`SRC_STATE*` or `soxr_t`) and deletes it in `deinit`.
///
/// ```swift
/// let resampler = try StreamingResampler(from: 22_050, to: 8_000, soxr: .high)
/// try resampler.convert(block) { converted in try writer.write(converted) }
/// try resampler.finish { converted in try writer.write(converted) }
/// ```
public final class StreamingResampler {
    public let sourceRate: Int
    public let targetRate: Int
    private enum State {
        /// The rates are the same.
        case passThrough
        case libsamplerate(OpaquePointer)
        case soxr(soxr_t)
    }
    private let state: State
    private var output: [Float] = []
    private var inputFrameCount = 0
    private var outputFrameCount = 0

    /// A stream through one of libsamplerate's converters.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with libsamplerate's message.
    public init(from sourceRate: Int, to targetRate: Int, converter: Converter = .best) throws(AudioIOError) {
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        guard sourceRate != targetRate else {
            state = .passThrough
            return
        }
        var error: Int32 = 0
        guard let state = src_new(converter.libsamplerateType, 1, &error) else {
            throw .conversionFailed(reason: String(cString: src_strerror(error)))
        }
        self.state = .libsamplerate(state)
    }

    /// A stream through soxr at `quality`, on the calling thread alone.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with soxr's message.
    public init(from sourceRate: Int, to targetRate: Int, soxr quality: SoxrQuality) throws(AudioIOError) {
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        guard sourceRate != targetRate else {
            state = .passThrough
            return
        }
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var recipe = soxr_quality_spec(quality.recipe, 0)
        // Without this, soxr would use OpenMP's threads for a large conversion.
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        let state = soxr_create(Double(sourceRate), Double(targetRate), 1, &error, &io, &recipe, &runtime)
        guard let state, error == nil else {
            throw .conversionFailed(reason: error.map { String(cString: $0) } ?? "soxr_create failed")
        }
        self.state = .soxr(state)
    }

    deinit {
        switch state {
        case .passThrough: break
        case .libsamplerate(let state): src_delete(state)
        case .soxr(let state): soxr_delete(state)
        }
    }

    /// Makes the converter ready for a new stream, which it converts to the same samples as a new converter would;
    /// what it held back of the last stream is dropped. soxr designs its filter again here, at about the cost of a
    /// new converter, so `ResamplerPool` resets a converter when its stream ends rather than when the next begins.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with the converter's message.
    public func reset() throws(AudioIOError) {
        inputFrameCount = 0
        outputFrameCount = 0
        switch state {
        case .passThrough: break
        case .libsamplerate(let state):
            let status = src_reset(state)
            guard status == 0 else { throw .conversionFailed(reason: String(cString: src_strerror(status))) }
        case .soxr(let state):
            if let error = soxr_clear(state) { throw .conversionFailed(reason: String(cString: error)) }
        }
    }

    private var ratio: Double { Double(targetRate) / Double(sourceRate) }

    private var isPassThrough: Bool {
        if case .passThrough = state { return true }
        return false
    }

    /// The output length for `frameCount` input frames.
    private func outputLength(_ frameCount: Int) -> Int {
        (frameCount * targetRate + sourceRate / 2) / sourceRate
    }

    /// Converts `input` and hands what comes out to `sink`: fewer frames than the ratio says, or none, while the
    /// converter holds back a filter's length of input.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with the converter's message, or what `sink` throws.
    public func convert(_ input: UnsafeBufferPointer<Float>, to sink: (UnsafeBufferPointer<Float>) throws -> Void)
        throws
    {
        inputFrameCount += input.count
        if case .passThrough = state {
            outputFrameCount += input.count
            try sink(input)
            return
        }
        guard let base = input.baseAddress, !input.isEmpty else { return }
        var used = 0
        while true {
            let (consumed, generated) = try process(base + used, input.count - used)
            used += consumed
            // The final length is at least this input's share; no frame emitted now is one finish must cut.
            try emit(generated, limit: outputLength(inputFrameCount), to: sink)
            // A full output buffer may leave more to come from input already taken.
            if used == input.count && generated < output.count { break }
            if consumed == 0 && generated == 0 { break }
        }
    }

    /// Ends the stream: the frames the converter held back, then silence or a cut to the whole output's length.
    ///
    /// - Throws: `AudioIOError.conversionFailed` with the converter's message, or what `sink` throws.
    public func finish(to sink: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        let total = outputLength(inputFrameCount)
        if !isPassThrough {
            while true {
                let (_, generated) = try process(nil, 0)
                if generated == 0 { break }
                try emit(generated, limit: total, to: sink)
            }
        }
        guard outputFrameCount < total else { return }
        output = [Float](repeating: 0, count: total - outputFrameCount)
        try emit(output.count, limit: total, to: sink)
    }

    /// `samples` converted as one stream and ended, handed in `blockFrames` at a time as a render's pulls hand them: what
    /// the tests and the benchmark compare block sizes and converters by.
    package func convertAll(_ samples: [Float], blockFrames: Int) throws -> [Float] {
        var converted: [Float] = []
        converted.reserveCapacity(samples.count * targetRate / sourceRate + 1)
        try samples.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: blockFrames) {
                let block = UnsafeBufferPointer(rebasing: buffer[start..<min(start + blockFrames, buffer.count)])
                try convert(block) { converted += $0 }
            }
        }
        try finish { converted += $0 }
        return converted
    }

    /// What libsamplerate reads at the end of the stream: no frame of it, but a valid pointer.
    private static let endOfInput: [Float] = [0]

    /// Runs the converter over `count` input frames into `output`, or to the end of the stream when `input` is `nil`;
    /// returns the input frames used and output made.
    private func process(_ input: UnsafePointer<Float>?, _ count: Int) throws(AudioIOError)
        -> (consumed: Int, generated: Int)
    {
        let room = Int((Double(count) * ratio).rounded(.up)) + 256
        if output.count < room { output = [Float](repeating: 0, count: room) }
        switch state {
        case .passThrough:
            return (count, 0)
        case .libsamplerate(let state):
            let ratio = ratio
            let (status, consumed, generated) = Self.endOfInput.withUnsafeBufferPointer { end in
                output.withUnsafeMutableBufferPointer { out in
                    var data = SRC_DATA(
                        data_in: input ?? end.baseAddress, data_out: out.baseAddress, input_frames: count,
                        output_frames: out.count, input_frames_used: 0, output_frames_gen: 0,
                        end_of_input: input == nil ? 1 : 0, src_ratio: ratio)
                    let status = src_process(state, &data)
                    return (status, data.input_frames_used, data.output_frames_gen)
                }
            }
            guard status == 0 else { throw .conversionFailed(reason: String(cString: src_strerror(status))) }
            return (consumed, generated)
        case .soxr(let state):
            var consumed = 0
            var generated = 0
            // A nil input tells soxr the stream has ended.
            let error = output.withUnsafeMutableBufferPointer { out in
                soxr_process(state, input, count, &consumed, out.baseAddress, out.count, &generated)
            }
            if let error { throw .conversionFailed(reason: String(cString: error)) }
            return (consumed, generated)
        }
    }

    /// Hands the first `count` frames of `output` to `sink`, no further than `limit` frames in all.
    private func emit(_ count: Int, limit: Int, to sink: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        let count = min(count, limit - outputFrameCount)
        guard count > 0 else { return }
        outputFrameCount += count
        try output.withUnsafeBufferPointer { try sink(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }
}
