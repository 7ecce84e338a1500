// SPDX-License-Identifier: GPL-3.0-or-later
// sd_concat-synth: speech-dispatcher's output module "concat-synth". The server starts it as
// `sd_concat-synth CONFIGFILE` and speaks the module protocol on its standard input and output.
import SpeechService

let configurationPath = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : nil
// A configuration that cannot be read is reported at INIT, where the server logs it, rather than by dying unseen.
let configuration: Result<ModuleConfiguration, SpeechServiceError> = Result {
    () throws(SpeechServiceError) in try ModuleConfiguration.load(path: configurationPath)
}
let soundIconFolder = (try? configuration.get())?.soundIconFolder
let server = ModuleServer(input: STDIN_FILENO, output: STDOUT_FILENO, soundIconFolder: soundIconFolder) {
    () throws(SpeechServiceError) in
    let loaded = try configuration.get()
    return try ConcatSynthEngine(bank: loaded.voicePack, systemPacks: loaded.systemPacks)
}
exit(server.run())
