// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CAlsa

#if canImport(Glibc)
    import Glibc
#endif

/// A sound device that could not be opened, played to or recorded from; each case names the device and carries ALSA's
/// reason.
public enum PlaybackError: Error, Equatable, Sendable, CustomStringConvertible {
    case unopenable(device: String, reason: String)
    case unplayable(device: String, sampleRate: Int, reason: String)
    case writeFailed(device: String, reason: String)
    /// A capture device (`CaptureDevice`) that could not be opened.
    case unopenableCapture(device: String, reason: String)
    case unrecordable(device: String, sampleRate: Int, reason: String)
    case readFailed(device: String, reason: String)

    public var description: String {
        switch self {
        case .unopenable(let device, let reason):
            return
                "cannot open the sound device \(device): \(reason); expected an ALSA playback device such as default (aplay -L lists them)"
        case .unplayable(let device, let sampleRate, let reason):
            return
                "the sound device \(device) plays neither Float32 nor 16-bit mono at \(sampleRate) Hz: \(reason); expected a device that converts (default, or plug:NAME)"
        case .writeFailed(let device, let reason):
            return "playing to the sound device \(device) failed: \(reason)"
        case .unopenableCapture(let device, let reason):
            return
                "cannot open the capture device \(device): \(reason); expected an ALSA capture device such as default (arecord -L lists them)"
        case .unrecordable(let device, let sampleRate, let reason):
            return
                "the capture device \(device) records neither Float32 nor 16-bit mono at \(sampleRate) Hz: \(reason); expected a device that converts (default, or plug:NAME)"
        case .readFailed(let device, let reason):
            return "recording from the capture device \(device) failed: \(reason)"
        }
    }
}

/// An ALSA playback device for mono audio, written block by block as the audio is rendered.
///
/// It asks for Float32 at the request's rate and, if the device refuses, 16-bit; either way with ALSA's own
/// resampling allowed, which a `plug` device such as `default` provides. Owns the `snd_pcm_t*` and closes it in
/// `deinit`.
///
/// ```swift
/// let device = try SoundDevice(name: "default", sampleRate: 22_050)
/// try device.write(block) { false }
/// try device.drain()
/// ```
public final class SoundDevice {
    public let name: String
    /// Whether the device took Float32 (else 16-bit, converted here by `PCM16`, the conversion of every 16-bit output).
    public let isFloat: Bool
    /// alsa-lib's functions, loaded when the first device opens (see CAlsa's shim.h).
    private let alsa: UnsafePointer<concat_synth_alsa>
    private var handle: OpaquePointer?
    /// The 16-bit copy of a block, for a device that refused Float32.
    private var shorts = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 0)

    /// - Throws: `PlaybackError.unopenable` or `.unplayable` with ALSA's reason, `.unopenable` if libasound cannot
    ///   be loaded.
    public init(name: String, sampleRate: Int) throws(PlaybackError) {
        self.name = name
        let alsa: UnsafePointer<concat_synth_alsa>
        switch ALSA.load() {
        case .success(let loaded): alsa = loaded
        case .failure(let failure): throw .unopenable(device: name, reason: failure.reason)
        }
        self.alsa = alsa
        var handle: OpaquePointer?
        let opened = alsa.pointee.snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, 0)
        guard opened == 0, let handle else { throw .unopenable(device: name, reason: ALSA.reason(opened, alsa)) }
        self.handle = handle
        // 100 ms of buffer: playback starts with the first block, and Ctrl-C is heard to stop at once.
        let latency: UInt32 = 100_000
        if alsa.pointee.snd_pcm_set_params(
            handle, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, latency)
            == 0
        {
            isFloat = true
            return
        }
        let status = alsa.pointee.snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, latency)
        guard status == 0 else {
            throw .unplayable(device: name, sampleRate: sampleRate, reason: ALSA.reason(status, alsa))
        }
        isFloat = false
    }

    deinit {
        if let handle { _ = alsa.pointee.snd_pcm_close(handle) }
        shorts.deallocate()
    }

    /// Plays `samples` (mono, -1…1), waiting while the device's buffer is full; returns early, leaving the rest
    /// unplayed, once `isInterrupted` says so (checked whenever a wait is interrupted by a signal).
    ///
    /// - Throws: `PlaybackError.writeFailed` with ALSA's reason.
    public func write(_ samples: UnsafeBufferPointer<Float>, isInterrupted: () -> Bool) throws(PlaybackError) {
        guard let handle, !samples.isEmpty else { return }
        if isFloat {
            try write(handle, UnsafeRawPointer(samples.baseAddress!), samples.count, 4, isInterrupted)
            return
        }
        if shorts.count < samples.count {
            shorts.deallocate()
            shorts = .allocate(capacity: samples.count)
        }
        PCM16.convert(samples, into: shorts)
        try write(handle, UnsafeRawPointer(shorts.baseAddress!), samples.count, 2, isInterrupted)
    }

    private func write(
        _ handle: OpaquePointer, _ bytes: UnsafeRawPointer, _ frameCount: Int, _ bytesPerFrame: Int,
        _ isInterrupted: () -> Bool
    ) throws(PlaybackError) {
        var written = 0
        while written < frameCount {
            let result = alsa.pointee.snd_pcm_writei(
                handle, bytes + written * bytesPerFrame, snd_pcm_uframes_t(frameCount - written))
            if result >= 0 {
                written += Int(result)
            } else if result == -Int(EINTR) || result == -Int(EAGAIN) {
                if isInterrupted() { return }
            } else {
                // An underrun (the renderer fell behind) or a suspend: ALSA restarts the stream and playback goes on.
                let recovered = alsa.pointee.snd_pcm_recover(handle, Int32(result), 1)
                guard recovered == 0 else { throw .writeFailed(device: name, reason: ALSA.reason(recovered, alsa)) }
            }
            if isInterrupted() { return }
        }
    }

    /// Waits until everything written has played, then closes the device.
    ///
    /// - Throws: `PlaybackError.writeFailed` with ALSA's reason.
    public func drain() throws(PlaybackError) {
        guard let handle else { return }
        self.handle = nil
        let drained = alsa.pointee.snd_pcm_drain(handle)
        _ = alsa.pointee.snd_pcm_close(handle)
        guard drained == 0 else { throw .writeFailed(device: name, reason: ALSA.reason(drained, alsa)) }
    }

    /// Stops at once, dropping what is buffered, and closes the device.
    public func drop() {
        guard let handle else { return }
        self.handle = nil
        _ = alsa.pointee.snd_pcm_drop(handle)
        _ = alsa.pointee.snd_pcm_close(handle)
    }
}
