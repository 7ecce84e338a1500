// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

// libasound is opened when `say` or `voicebank record` opens its first device, not linked: concat-synth is one
// executable, and loading and relocating libasound (every symbol bound at start, since Debian links it with -z now)
// would cost every `render` CPU time, though only `say` plays sound. The pointers take their types from alsa-lib's own header, so a mismatch with it does not
// compile.
struct concat_synth_alsa {
    __typeof__(snd_pcm_open) *_Nonnull snd_pcm_open;
    __typeof__(snd_pcm_set_params) *_Nonnull snd_pcm_set_params;
    __typeof__(snd_pcm_writei) *_Nonnull snd_pcm_writei;
    __typeof__(snd_pcm_readi) *_Nonnull snd_pcm_readi;
    __typeof__(snd_pcm_start) *_Nonnull snd_pcm_start;
    __typeof__(snd_pcm_recover) *_Nonnull snd_pcm_recover;
    __typeof__(snd_pcm_drain) *_Nonnull snd_pcm_drain;
    __typeof__(snd_pcm_drop) *_Nonnull snd_pcm_drop;
    __typeof__(snd_pcm_close) *_Nonnull snd_pcm_close;
    __typeof__(snd_strerror) *_Nonnull snd_strerror;
    __typeof__(snd_lib_error_set_handler) *_Nonnull snd_lib_error_set_handler;
};

// Why libasound could not be loaded (dlerror's message), once concat_synth_alsa_load has returned NULL.
static inline char *concat_synth_alsa_load_error(void) {
    static char message[512];
    return message;
}

// alsa-lib's functions, loaded on the first call (libasound.so.2, the soname Debian's libasound2 installs); NULL,
// with concat_synth_alsa_load_error saying why, if the library or one of its functions is missing. Not thread-safe
// on its first call: `say` and `voicebank record` open their first device from one thread.
static inline const struct concat_synth_alsa *_Nullable concat_synth_alsa_load(void) {
    static struct concat_synth_alsa alsa;
    static int loaded = 0;
    if (loaded) return &alsa;
    void *library = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(concat_synth_alsa_load_error(), 512, "%s", dlerror());
        return NULL;
    }
    void **slots[] = {
        (void **)&alsa.snd_pcm_open, (void **)&alsa.snd_pcm_set_params, (void **)&alsa.snd_pcm_writei,
        (void **)&alsa.snd_pcm_readi, (void **)&alsa.snd_pcm_start, (void **)&alsa.snd_pcm_recover,
        (void **)&alsa.snd_pcm_drain, (void **)&alsa.snd_pcm_drop, (void **)&alsa.snd_pcm_close,
        (void **)&alsa.snd_strerror, (void **)&alsa.snd_lib_error_set_handler,
    };
    const char *names[] = {
        "snd_pcm_open", "snd_pcm_set_params", "snd_pcm_writei", "snd_pcm_readi", "snd_pcm_start", "snd_pcm_recover",
        "snd_pcm_drain", "snd_pcm_drop", "snd_pcm_close", "snd_strerror", "snd_lib_error_set_handler",
    };
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index] == NULL) {
            snprintf(concat_synth_alsa_load_error(), 512, "libasound.so.2 has no %s", names[index]);
            dlclose(library);
            return NULL;
        }
    }
    loaded = 1;
    return &alsa;
}

// alsa-lib prints its own lines ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM x") to standard error.
// The handler is variadic, which Swift cannot write: this one keeps the last message for the tool's one-line error.
// A static inside a function: Swift emits the functions a header defines, not its file-scope variables; it emits them
// in each Swift file that calls them, each with its own static, so Playback calls them from one file (ALSA.swift).
static inline char *concat_synth_alsa_message(void) {
    static char message[256];
    return message;
}

static void concat_synth_alsa_keep_message(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    va_list arguments;
    va_start(arguments, fmt);
    vsnprintf(concat_synth_alsa_message(), 256, fmt, arguments);
    va_end(arguments);
}

// Routes alsa-lib's messages to concat_synth_alsa_last_message instead of standard error.
static inline void concat_synth_alsa_keep_messages(const struct concat_synth_alsa *_Nonnull alsa) {
    alsa->snd_lib_error_set_handler(concat_synth_alsa_keep_message);
}

// alsa-lib's last message, or "" if none came since the last call; reading clears it.
static inline const char *concat_synth_alsa_last_message(void) {
    static char message[256];
    snprintf(message, sizeof message, "%s", concat_synth_alsa_message());
    concat_synth_alsa_message()[0] = 0;
    return message;
}
