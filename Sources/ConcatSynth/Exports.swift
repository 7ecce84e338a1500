// SPDX-License-Identifier: GPL-3.0-or-later
// SpeechCore is the vocabulary every stage and every caller shares: plain values with no C and no I/O (the audio
// format, prosody, voice settings, markers, the cancellation flag, fallback modes). `import ConcatSynth` brings it,
// so a program names `Prosody` or `Marker` without knowing the module; no other module of the engine is exported.
@_exported import SpeechCore
