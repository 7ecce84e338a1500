// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// G.722 at 64 kbit/s, as Asterisk's `.g722` prompts hold it, for tests that need such files.
public enum G722 {
    /// `samples` (16 kHz) encoded with spandsp's own encoder, which the tools never need (they only read G.722), so
    /// it is loaded here, for the tests.
    public static func encode(_ samples: [Int16]) throws -> [UInt8] {
        guard let library = dlopen("libspandsp.so.2", RTLD_NOW | RTLD_LOCAL) else {
            throw Failure(reason: String(cString: dlerror()))
        }
        defer { dlclose(library) }
        typealias Initialize = @convention(c) (OpaquePointer?, Int32, Int32) -> OpaquePointer?
        typealias Encode =
            @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafePointer<Int16>?, Int32)
            -> Int32
        typealias Free = @convention(c) (OpaquePointer?) -> Int32
        guard let initializeSymbol = dlsym(library, "g722_encode_init"),
            let encodeSymbol = dlsym(library, "g722_encode"),
            let freeSymbol = dlsym(library, "g722_encode_free")
        else { throw Failure(reason: "libspandsp.so.2 has no G.722 encoder") }
        let initialize = unsafeBitCast(initializeSymbol, to: Initialize.self)
        let encode = unsafeBitCast(encodeSymbol, to: Encode.self)
        let free = unsafeBitCast(freeSymbol, to: Free.self)
        guard let state = initialize(nil, 64_000, 0) else { throw Failure(reason: "g722_encode_init failed") }
        defer { _ = free(state) }
        var bytes = [UInt8](repeating: 0, count: samples.count / 2)
        let count = encode(state, &bytes, samples, Int32(samples.count))
        return Array(bytes.prefix(Int(count)))
    }

    /// A tone of `frequency` Hz, half of full scale, encoded: `seconds` long at 16 kHz.
    public static func tone(frequency: Double, seconds: Double = 0.5) throws -> [UInt8] {
        let frameCount = Int(seconds * 16_000)
        return try encode(
            Signal.sine(frequency: frequency, sampleRate: 16_000, frameCount: frameCount).map { Int16($0 * 32_767) })
    }

    public struct Failure: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "cannot encode G.722: \(reason)" }
    }
}
