// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target `transcript`: transcript files parsed and paired with audio files.
//
// Input: byte 0 picks the file name (and so the format by extension, or detection) and how the lines are paired
// with files; the rest is the transcript. The files to pair with are the names the lines give, some with an
// extension or a folder added, so that names fit one file, several, or none.

import VoicebankAuthoring

let transcriptNames = ["metadata.csv", "prompts.tsv", "transcript.txt", "lines"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = input.first else { return 0 }
    let name = transcriptNames[Int(first) % transcriptNames.count]
    let isFallback = first & 0x10 != 0
    let keepGoing = first & 0x20 != 0
    guard let transcript = try? Transcript(parsing: String(decoding: input.dropFirst(), as: UTF8.self), path: name)
    else { return 0 }
    var files: [String] = []
    for (index, line) in transcript.lines.enumerated() {
        switch index % 4 {
        case 0: files.append(line.file)
        case 1: files.append(line.file + ".wav")
        case 2: files += ["a/" + line.file + ".aiff", line.file + ".aiff"]
        default: break
        }
    }
    _ = try? transcript.requests(for: files, isFallback: isFallback, keepGoing: keepGoing)
    return 0
}
