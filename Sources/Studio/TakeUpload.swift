// SPDX-License-Identifier: GPL-3.0-or-later
import Voicebank

/// A take as the page sends it: the body holds raw 32-bit float little-endian mono samples, and headers declare their
/// format and rate, so that a body the page did not describe is refused rather than guessed at.
struct TakeUpload: Equatable {
    var samples: [Float]
    var sampleRate: Int

    /// The rates a take may have: those of sound devices, which an import converts to 22050 Hz like any file's.
    static let sampleRates = 8_000...192_000
    /// The one sample format the page sends: what an AudioWorklet hands it, unconverted.
    static let sampleFormat = "f32le"
    /// Past +6 dBFS: no microphone's float samples come near it, and bytes that are not samples mostly go beyond.
    static let largestSample: Float = 2

    /// Samples recorded here (`voicebank record`), whose format is known.
    init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Reads a take's headers and body, or a piece of a recording's: `isEmptyAllowed` for a recording's start and
    /// end, which may carry no samples.
    ///
    /// - Throws: `StudioError.unsupportedContentType`; `.takeFormat` for a missing or other sample format or rate, an
    ///   empty body, an audio file, a body that is not whole samples, or a sample that is not a number or is beyond
    ///   ±2.
    init(
        contentType: String?, sampleFormat: String?, sampleRate: String?, body: [UInt8], isEmptyAllowed: Bool = false
    ) throws(StudioError) {
        let type = contentType?.split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() }
        guard type == "application/octet-stream" else { throw .unsupportedContentType(contentType) }
        guard let sampleFormat else { throw .takeFormat(reason: "the request has no X-Sample-Format header") }
        guard sampleFormat.lowercased() == Self.sampleFormat else {
            throw .takeFormat(reason: "X-Sample-Format \"\(sampleFormat)\" is not a format the studio takes")
        }
        guard let sampleRate else { throw .takeFormat(reason: "the request has no X-Sample-Rate header") }
        guard let rate = Int(sampleRate), Self.sampleRates.contains(rate) else {
            throw .takeFormat(
                reason:
                    "X-Sample-Rate \"\(sampleRate)\" is not a rate in Hz from \(Self.sampleRates.lowerBound) to \(Self.sampleRates.upperBound)"
            )
        }
        guard !body.isEmpty || isEmptyAllowed else { throw .takeFormat(reason: "the body is empty") }
        if let container = Self.fileContainer(body) {
            throw .takeFormat(reason: "the body is \(container) file, not raw samples")
        }
        guard body.count % 4 == 0 else {
            throw .takeFormat(reason: "the body is \(body.count) bytes, not a whole number of 4-byte samples")
        }
        var samples = [Float](repeating: 0, count: body.count / 4)
        for index in samples.indices {
            let bits =
                UInt32(body[index * 4]) | UInt32(body[index * 4 + 1]) << 8 | UInt32(body[index * 4 + 2]) << 16
                | UInt32(body[index * 4 + 3]) << 24
            let sample = Float(bitPattern: bits)
            guard sample.isFinite, abs(sample) <= Self.largestSample else {
                throw .takeFormat(
                    reason:
                        "sample \(index) is \(sample), not a number from -\(Self.largestSample) to \(Self.largestSample)"
                )
            }
            samples[index] = sample
        }
        self.samples = samples
        self.sampleRate = rate
    }

    /// The kind of audio file whose signature `body` starts with, named for a message, if it is one.
    private static func fileContainer(_ body: [UInt8]) -> String? {
        let signatures: [(bytes: String, name: String)] = [
            ("RIFF", "a WAV"), ("RF64", "an RF64"), ("FORM", "an AIFF"), ("OggS", "an Ogg"), ("fLaC", "a FLAC"),
            ("caff", "a CAF"), ("ID3", "an MP3"),
        ]
        return signatures.first { body.starts(with: $0.bytes.utf8) }?.name
    }
}
