#pragma once
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// alsa-lib prints its own lines ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM x") to standard error.
// The handler is variadic, which Swift cannot write: this one keeps the last message for the tool's one-line error.
// A static inside a function: Swift emits the functions a header defines, not its file-scope variables.
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
static inline void concat_synth_alsa_keep_messages(void) {
    snd_lib_error_set_handler(concat_synth_alsa_keep_message);
}

// alsa-lib's last message, or "" if none came since the last call; reading clears it.
static inline const char *concat_synth_alsa_last_message(void) {
    static char message[256];
    snprintf(message, sizeof message, "%s", concat_synth_alsa_message());
    concat_synth_alsa_message()[0] = 0;
    return message;
}
