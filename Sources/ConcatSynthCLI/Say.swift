// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ConcatSynth
import Playback
import SpeechCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Raised by Ctrl-C (SIGINT) while `say` plays; read between blocks and when a wait for the device is interrupted.
private let interrupted = Atomic<Bool>(false)

extension ConcatSynthCommand {
    struct Say: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Speak SSML or text aloud through a sound device (ALSA).",
            discussion: """
                The request is read as render reads it. Playback starts with the first rendered block, while the \
                rest is still being rendered; Ctrl-C stops it at once (exit status 130).
                Examples:
                  concat-synth say "Hello, nice to meet you"
                  concat-synth say --rate 2 --device plughw:1,0 --file request.ssml
                """)

        @OptionGroup var request: RequestOptions

        @Option(
            help: ArgumentHelp(
                "The ALSA playback device (aplay -L lists them): default goes through PipeWire or PulseAudio on a desktop.",
                valueName: "name"))
        var device = "default"

        func validate() throws { try request.arguments.validate() }

        func run() throws {
            let arguments = request.arguments
            // Audio played cannot be taken back: --strict checks the whole request first.
            let (_, speechRequest, renderer, _) = try arguments.start(checkingFirst: true)
            let sampleRate = arguments.sampleRate ?? RenderFormat.sampleRate
            let sound = try SoundDevice(name: device, sampleRate: sampleRate)
            Self.catchInterrupt()
            // 1024 frames (46 ms at 22050 Hz) a pull: the first block plays while the next is rendered.
            let chain = try ConvertedPull(renderer, sampleRate: sampleRate, blockFrames: 1_024)
            let isInterrupted = { interrupted.load(ordering: .relaxed) }
            while !chain.isComplete && !isInterrupted() {
                try chain.pull { try sound.write($0, isInterrupted: isInterrupted) }
            }
            if isInterrupted() {
                sound.drop()
                throw ExitCode(130)
            }
            try sound.drain()
            arguments.warnOfReplacements(in: speechRequest)
        }

        /// Turns SIGINT into the `interrupted` flag, without restarting an interrupted wait for the device.
        private static func catchInterrupt() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in interrupted.store(true, ordering: .relaxed) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(SIGINT, &action, nil)
            // A parent may start the process with SIGINT blocked (Foundation's Process does); Ctrl-C must still stop it.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }
}
