import CSampleRate
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
