// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CAlsa

#if canImport(Glibc)
    import Glibc
#endif

/// An ALSA capture device for mono audio, read block by block as it is recorded: a microphone for
/// `voicebank record`.
///
/// It asks for Float32 at `sampleRate` and, if the device refuses, 16-bit; either way with ALSA's own resampling
/// allowed, which a `plug` device such as `default` provides. Capture starts when the device opens. Owns the
/// `snd_pcm_t*` and closes it in `deinit`.
///
/// Reads never run ahead of the clock since the device opened: a microphone never has more to give, so its reads are
/// not slowed, but a device with no clock of its own (ALSA's `file` plugin playing a file's samples over `null`, which
/// hands them out as fast as they are asked for) is read in real time, as a microphone would be heard.
///
/// ```swift
/// let microphone = try CaptureDevice(name: "default", sampleRate: 48_000)
/// var block = [Float](repeating: 0, count: 1_024)
/// let count = try block.withUnsafeMutableBufferPointer { try microphone.read(into: $0) }
/// ```
public final class CaptureDevice {
    public let name: String
    public let sampleRate: Int
    /// Whether the device took Float32 (else 16-bit, converted here).
    public let isFloat: Bool
    /// How many times the device's buffer overflowed because it was not read in time; each loses some audio.
    public private(set) var overrunCount = 0
    /// alsa-lib's functions, loaded when the first device opens (see CAlsa's shim.h).
    private let alsa: UnsafePointer<concat_synth_alsa>
    private var handle: OpaquePointer?
    /// The 16-bit samples of a block, for a device that refused Float32.
    private var shorts = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 0)
    private let startSeconds: Double
    private var framesRead = 0

    /// - Throws: `PlaybackError.unopenableCapture` or `.unrecordable` with ALSA's reason, `.unopenableCapture` if
    ///   libasound cannot be loaded, `.readFailed` if capture cannot start.
    public init(name: String, sampleRate: Int) throws(PlaybackError) {
        self.name = name
        self.sampleRate = sampleRate
        let alsa: UnsafePointer<concat_synth_alsa>
        switch ALSA.load() {
        case .success(let loaded): alsa = loaded
        case .failure(let failure): throw .unopenableCapture(device: name, reason: failure.reason)
        }
        self.alsa = alsa
        var handle: OpaquePointer?
        let opened = alsa.pointee.snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, 0)
        guard opened == 0, let handle else {
            throw .unopenableCapture(device: name, reason: ALSA.reason(opened, alsa))
        }
        self.handle = handle
        // 200 ms of buffer: the reader takes a block every 20 ms or so, with room for a busy moment.
        let latency: UInt32 = 200_000
        if alsa.pointee.snd_pcm_set_params(
            handle, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, latency) == 0
        {
            isFloat = true
        } else {
            let status = alsa.pointee.snd_pcm_set_params(
                handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, latency)
            guard status == 0 else {
                throw .unrecordable(device: name, sampleRate: sampleRate, reason: ALSA.reason(status, alsa))
            }
            isFloat = false
        }
        let started = alsa.pointee.snd_pcm_start(handle)
        guard started == 0 else { throw .readFailed(device: name, reason: ALSA.reason(started, alsa)) }
        startSeconds = Self.monotonicSeconds()
    }

    deinit {
        close()
        shorts.deallocate()
    }

    /// Fills `buffer` with the next samples (mono, -1…1), waiting until they are recorded; returns how many, which is
    /// `buffer.count` unless the device was closed. An overrun (the reader came too late) is recovered from and
    /// counted in `overrunCount`.
    ///
    /// - Throws: `PlaybackError.readFailed` with ALSA's reason.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(PlaybackError) -> Int {
        guard let handle, !buffer.isEmpty else { return 0 }
        waitForClock(until: framesRead + buffer.count)
        if !isFloat && shorts.count < buffer.count {
            shorts.deallocate()
            shorts = .allocate(capacity: buffer.count)
        }
        var filled = 0
        while filled < buffer.count {
            let wanted = snd_pcm_uframes_t(buffer.count - filled)
            let result =
                isFloat
                ? alsa.pointee.snd_pcm_readi(handle, buffer.baseAddress! + filled, wanted)
                : alsa.pointee.snd_pcm_readi(handle, shorts.baseAddress! + filled, wanted)
            if result >= 0 {
                filled += Int(result)
            } else if result == -Int(EINTR) || result == -Int(EAGAIN) {
                continue
            } else {
                if result == -Int(EPIPE) { overrunCount += 1 }
                // An overrun, or a suspend: ALSA prepares the stream again and the next read starts it.
                let recovered = alsa.pointee.snd_pcm_recover(handle, Int32(result), 1)
                guard recovered == 0 else { throw .readFailed(device: name, reason: ALSA.reason(recovered, alsa)) }
            }
        }
        if !isFloat {
            for index in 0..<filled { buffer[index] = PCM16.value(shorts[index]) }
        }
        framesRead += filled
        return filled
    }

    /// Stops capture and closes the device; reads return nothing from then on.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        _ = alsa.pointee.snd_pcm_drop(handle)
        _ = alsa.pointee.snd_pcm_close(handle)
    }

    /// Sleeps until `frame` frames have been recorded by the clock.
    private func waitForClock(until frame: Int) {
        let dueSeconds = startSeconds + Double(frame) / Double(sampleRate)
        var remaining = dueSeconds - Self.monotonicSeconds()
        while remaining > 0 {
            var time = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - remaining.rounded(.down)) * 1e9))
            _ = nanosleep(&time, nil)
            remaining = dueSeconds - Self.monotonicSeconds()
        }
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
