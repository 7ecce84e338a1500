// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target `install`: the bytes of a pack file given to `voicebank install`.
//
// Input: the whole file. It is written to a file of its own and installed into a folder of this process's (as
// `XDG_DATA_HOME`), with --force so that every input reaches every check; a clean refusal or an installed pack is the
// answer, anything else (a crash, a hang, a leak, a partial file left in the packs folder) is a finding.

import Voicebank
import VoicebankAuthoring

#if canImport(Glibc)
    import Glibc
#endif

/// One folder per fuzzing process, so that parallel jobs do not share their packs.
let folder: String = {
    var template = Array("/tmp/concat-synth-fuzz-install-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary folder: errno \(errno)") }
    let folder = String(cString: made)
    setenv("XDG_DATA_HOME", folder, 1)
    return folder
}()
let filePath = folder + "/given.sqlite"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let file = fopen(filePath, "wb") else { fatalError("cannot write \(filePath): errno \(errno)") }
    guard fwrite(start, 1, count, file) == count, fclose(file) == 0 else { fatalError("cannot write \(filePath)") }
    let installed = try? PackInstaller.install(filePath, scope: .user, force: true)
    // A refused file leaves nothing in the packs folder; an installed one leaves exactly its pack.
    let left = InstalledPacks.list([.user]).map(\.path)
    guard left == (installed.map { [$0.pack.path] } ?? []) else { fatalError("the packs folder holds \(left)") }
    for path in left { unlink(path) }
    return 0
}
