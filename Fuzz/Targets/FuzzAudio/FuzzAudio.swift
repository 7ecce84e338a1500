// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target `audio`: audio import from bytes, read through libsndfile's virtual I/O as if from a file.
//
// Input: byte 0 picks the sample-rate converter; the rest is the file. Whatever libsndfile accepts is kept
// losslessly, averaged to mono and converted to 22050 Hz, as `voicebank import` does with a file.

import AudioIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = input.first else { return 0 }
    let converter = Converter.allCases[Int(first) % Converter.allCases.count]
    _ = try? PreparedClip(bytes: Array(input.dropFirst()), name: "fuzz input", converter: converter)
    return 0
}
