// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target `pack`: a voice pack whose bytes are mutated, opened read-only and rendering a fixed request.
//
// Input: the whole pack file. It is written to a file of its own (SQLite reads files, not memory) and opened as
// `concat-synth render` opens a pack; a clean error or audio is the answer, anything else is a finding.

import ConcatSynth

#if canImport(Glibc)
    import Glibc
#endif

/// One folder per fuzzing process, so that parallel jobs do not share a pack.
let folder: String = {
    var template = Array("/tmp/concat-synth-fuzz-pack-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary folder: errno \(errno)") }
    return String(cString: made)
}()
let packPath = folder + "/pack.sqlite"

/// Words the seed pack has, words it lacks (its fallback clip), a number, a break, and prosody that stretches a
/// clip twice (the second time from the synthesizer's stretch cache).
var request: SpeechRequest {
    SpeechRequest(
        #"<speak>hello world <break time="20ms"/> <prosody rate="150%" pitch="+2st">hello 12 zebra hello</prosody></speak>"#
    )
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // A WAL or shared-memory file of the previous input would be read with this one.
    for path in [packPath, packPath + "-wal", packPath + "-shm"] { unlink(path) }
    guard let file = fopen(packPath, "wb") else { fatalError("cannot write \(packPath): errno \(errno)") }
    guard fwrite(start, 1, count, file) == count, fclose(file) == 0 else { fatalError("cannot write \(packPath)") }
    do {
        let synthesizer = try Synthesizer(bank: packPath)
        let renderer = try synthesizer.renderer(for: request)
        var buffer = [Float](repeating: 0, count: 4_096)
        while try !buffer.withUnsafeMutableBufferPointer({ try renderer.render(into: $0) }).isComplete {}
    } catch {}
    return 0
}
