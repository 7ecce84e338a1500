// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <spandsp/telephony.h>
#include <spandsp/g722.h>

// libspandsp decodes the G.722 of Asterisk's wideband prompts (.g722 files). It is opened when such a file is first
// read, not linked: libspandsp.so brings libtiff and a dozen more libraries that no other file needs, and Debian's
// static libspandsp.a crashes in its MMX dot product (vec_dot_prodi16) on x86-64. The pointers take their types from
// spandsp's own header, so a mismatch with it does not compile.
struct concat_synth_spandsp {
    __typeof__(g722_decode_init) *_Nonnull g722_decode_init;
    __typeof__(g722_decode) *_Nonnull g722_decode;
    __typeof__(g722_decode_free) *_Nonnull g722_decode_free;
};

// spandsp's G.722 decoder, from libspandsp.so.2 (the soname Debian's libspandsp2 installs), kept loaded; NULL, with
// `error` (512 bytes) saying why, if the library or one of its functions is missing. Not thread-safe: AudioIO calls it
// once, from a lazily made static.
static inline const struct concat_synth_spandsp *_Nullable concat_synth_spandsp_load(char *_Nonnull error) {
    static struct concat_synth_spandsp spandsp;
    void *library = dlopen("libspandsp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(error, 512, "%s", dlerror());
        return NULL;
    }
    void **slots[] = {
        (void **)&spandsp.g722_decode_init, (void **)&spandsp.g722_decode, (void **)&spandsp.g722_decode_free,
    };
    const char *names[] = {"g722_decode_init", "g722_decode", "g722_decode_free"};
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index] == NULL) {
            snprintf(error, 512, "libspandsp.so.2 has no %s", names[index]);
            dlclose(library);
            return NULL;
        }
    }
    return &spandsp;
}
