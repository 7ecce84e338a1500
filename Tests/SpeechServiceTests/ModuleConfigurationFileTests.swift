// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import SpeechService
import TestSupport
import Testing

/// The module's configuration as speech-dispatcher passes it: a path whether or not the file is there.
@Suite struct ModuleConfigurationFileTests {
    @Test("a configuration file is read whole; none at the path is the default; a folder is an error naming it")
    func load() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("concat-synth.conf")
        try Data("# the pack\nVoicePack \"voices/en.sqlite\"\n".utf8).write(to: URL(fileURLWithPath: path))

        #expect(try ModuleConfiguration.load(path: path).voicePack == directory.file("voices/en.sqlite"))
        #expect(try ModuleConfiguration.load(path: directory.file("none.conf")) == ModuleConfiguration())
        #expect(
            throws: SpeechServiceError.configurationUnreadable(
                path: directory.path, reason: "it is a folder, not a file")
        ) {
            try ModuleConfiguration.load(path: directory.path)
        }
    }
}
