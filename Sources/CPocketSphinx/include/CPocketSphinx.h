// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <stddef.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/prim_type.h>

// libpocketsphinx is opened when words are first checked, not linked: only `voicebank verify --words`, the studio's
// check and the benchmark listen, and a machine without Debian's libpocketsphinx3 should still run everything else.
//
// This header is what Swift sees. It cannot include pocketsphinx.h, which includes its neighbours by bare name
// (<ps_search.h>) and so needs /usr/include/pocketsphinx on the include path of every module that imports it, even
// indirectly; loader.c, compiled with that path, includes it and checks at compile time that each pointer below has
// the type pocketsphinx.h gives its function. sphinxbase's headers are found on the system's path, so its functions
// take their types from them directly.

// pocketsphinx's decoder, as pocketsphinx.h names it.
typedef struct ps_decoder_s ps_decoder_t;

struct concat_synth_pocketsphinx {
    arg_t const *_Nonnull (*_Nonnull ps_args)(void);
    __typeof__(cmd_ln_parse_r) *_Nonnull cmd_ln_parse_r;
    __typeof__(cmd_ln_free_r) *_Nonnull cmd_ln_free_r;
    ps_decoder_t *_Nullable (*_Nonnull ps_init)(cmd_ln_t *_Nonnull config);
    int (*_Nonnull ps_free)(ps_decoder_t *_Nonnull ps);
    char *_Nullable (*_Nonnull ps_lookup_word)(ps_decoder_t *_Nonnull ps, const char *_Nonnull word);
    int (*_Nonnull ps_set_jsgf_string)(ps_decoder_t *_Nonnull ps, const char *_Nonnull name, const char *_Nonnull jsgf);
    int (*_Nonnull ps_set_lm_file)(ps_decoder_t *_Nonnull ps, const char *_Nonnull name, const char *_Nonnull path);
    int (*_Nonnull ps_set_search)(ps_decoder_t *_Nonnull ps, const char *_Nonnull name);
    int (*_Nonnull ps_start_utt)(ps_decoder_t *_Nonnull ps);
    int (*_Nonnull ps_process_raw)(
        ps_decoder_t *_Nonnull ps, int16 const *_Nullable data, size_t n_samples, int no_search, int full_utt);
    int (*_Nonnull ps_end_utt)(ps_decoder_t *_Nonnull ps);
    char const *_Nullable (*_Nonnull ps_get_hyp)(ps_decoder_t *_Nonnull ps, int32 *_Nullable out_best_score);
    __typeof__(ckd_free) *_Nonnull ckd_free;
};

// pocketsphinx's functions, loaded once (libpocketsphinx.so.3, the soname Debian's libpocketsphinx3 installs) and
// kept for the process's life, with its log taken over (concat_synth_pocketsphinx_last_error); NULL, with
// concat_synth_pocketsphinx_load_error saying why, if the library or one of its functions is missing. Not
// thread-safe: Recognition calls it under the lock every use of pocketsphinx takes.
const struct concat_synth_pocketsphinx *_Nullable concat_synth_pocketsphinx_load(void);

// Why libpocketsphinx could not be loaded (dlerror's message), once concat_synth_pocketsphinx_load has returned NULL.
const char *_Nonnull concat_synth_pocketsphinx_load_error(void);

// The last error pocketsphinx logged, as it wrote it ("ERROR: \"jsgf.c\", line 75: …"); empty after
// concat_synth_pocketsphinx_clear_error. pocketsphinx says why a call failed only in its log.
const char *_Nonnull concat_synth_pocketsphinx_last_error(void);

void concat_synth_pocketsphinx_clear_error(void);
