// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>
#include <stdio.h>

// libespeak-ng is opened when the fallback voice first speaks, not linked: it brings some thirty libraries with it
// (libpcaudio, PulseAudio, D-Bus, X11, systemd's), and a C program linked with them besides concat-synth's own took
// more CPU to start than most of a short render's whole run (docs/benchmarks.md), though only a voice whose words
// fall back to espeak-ng needs it. The pointers take their types from espeak-ng's own header, so a mismatch with it
// does not compile.
struct concat_synth_espeak {
    __typeof__(espeak_Initialize) *_Nonnull espeak_Initialize;
    __typeof__(espeak_SetSynthCallback) *_Nonnull espeak_SetSynthCallback;
    __typeof__(espeak_Synth) *_Nonnull espeak_Synth;
    __typeof__(espeak_SetParameter) *_Nonnull espeak_SetParameter;
    __typeof__(espeak_SetVoiceByName) *_Nonnull espeak_SetVoiceByName;
    __typeof__(espeak_ListVoices) *_Nonnull espeak_ListVoices;
    __typeof__(espeak_Terminate) *_Nonnull espeak_Terminate;
    __typeof__(espeak_TextToPhonemes) *_Nonnull espeak_TextToPhonemes;
};

// Why libespeak-ng could not be loaded (dlerror's message), once concat_synth_espeak_load has returned NULL.
static inline char *concat_synth_espeak_load_error(void) {
    static char message[512];
    return message;
}

// The dlopen handle of libespeak-ng while it is loaded; NULL when it is not.
static inline void *_Nullable *_Nonnull concat_synth_espeak_handle(void) {
    static void *handle;
    return &handle;
}

// espeak-ng's functions, loaded on the first call after a concat_synth_espeak_unload (libespeak-ng.so.1, the soname
// Debian's libespeak-ng1 installs); NULL, with concat_synth_espeak_load_error saying why, if the library or one of its
// functions is missing. Not thread-safe: AudioIO's EspeakNG calls it under the lock every use of espeak-ng takes.
static inline const struct concat_synth_espeak *_Nullable concat_synth_espeak_load(void) {
    static struct concat_synth_espeak espeak;
    if (*concat_synth_espeak_handle() != NULL) return &espeak;
    void *library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(concat_synth_espeak_load_error(), 512, "%s", dlerror());
        return NULL;
    }
    void **slots[] = {
        (void **)&espeak.espeak_Initialize, (void **)&espeak.espeak_SetSynthCallback, (void **)&espeak.espeak_Synth,
        (void **)&espeak.espeak_SetParameter, (void **)&espeak.espeak_SetVoiceByName,
        (void **)&espeak.espeak_ListVoices, (void **)&espeak.espeak_Terminate, (void **)&espeak.espeak_TextToPhonemes,
    };
    const char *names[] = {
        "espeak_Initialize", "espeak_SetSynthCallback", "espeak_Synth", "espeak_SetParameter",
        "espeak_SetVoiceByName", "espeak_ListVoices", "espeak_Terminate", "espeak_TextToPhonemes",
    };
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index] == NULL) {
            snprintf(concat_synth_espeak_load_error(), 512, "libespeak-ng.so.1 has no %s", names[index]);
            dlclose(library);
            return NULL;
        }
    }
    *concat_synth_espeak_handle() = library;
    return &espeak;
}

// Unloads libespeak-ng, after espeak_Terminate, so that the next load starts from its initial state; 0, or dlclose's
// status. Not thread-safe, like concat_synth_espeak_load.
static inline int concat_synth_espeak_unload(void) {
    void *library = *concat_synth_espeak_handle();
    *concat_synth_espeak_handle() = NULL;
    return library == NULL ? 0 : dlclose(library);
}
