// SPDX-License-Identifier: GPL-3.0-or-later
#include "CPocketSphinx.h"

#include <dlfcn.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <stdarg.h>
#include <stdio.h>

// Each pointer of the table has the type pocketsphinx.h gives its function, or this file does not compile.
#define CHECKED(name)                                                                                                  \
    _Static_assert(                                                                                                    \
        __builtin_types_compatible_p(__typeof__(&name), __typeof__(((struct concat_synth_pocketsphinx *)0)->name)), \
        #name " in CPocketSphinx.h does not have pocketsphinx.h's type")
CHECKED(ps_args);
CHECKED(ps_init);
CHECKED(ps_free);
CHECKED(ps_lookup_word);
CHECKED(ps_set_jsgf_string);
CHECKED(ps_set_lm_file);
CHECKED(ps_set_search);
CHECKED(ps_start_utt);
CHECKED(ps_process_raw);
CHECKED(ps_end_utt);
CHECKED(ps_get_hyp);

static char load_error[512];
static char last_error[1024];

const char *concat_synth_pocketsphinx_load_error(void) { return load_error; }

const char *concat_synth_pocketsphinx_last_error(void) { return last_error; }

void concat_synth_pocketsphinx_clear_error(void) { last_error[0] = 0; }

// sphinxbase's log callback (variadic, so it is written in C): errors are kept for the caller's message, and the rest
// of the log (configuration and progress, dozens of lines a decoder) is dropped.
static void take_log(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    if (level < ERR_ERROR) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(last_error, sizeof last_error, format, arguments);
    va_end(arguments);
}

const struct concat_synth_pocketsphinx *concat_synth_pocketsphinx_load(void) {
    static struct concat_synth_pocketsphinx pocketsphinx;
    static void *handle;
    if (handle != NULL) return &pocketsphinx;
    void *library = dlopen("libpocketsphinx.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return NULL;
    }
    __typeof__(err_set_callback) *set_callback = NULL;
    __typeof__(err_set_logfp) *set_log_file = NULL;
    // sphinxbase's functions are found through libpocketsphinx's handle, which loaded libsphinxbase with it.
    void **slots[] = {
        (void **)&pocketsphinx.ps_args, (void **)&pocketsphinx.cmd_ln_parse_r, (void **)&pocketsphinx.cmd_ln_free_r,
        (void **)&pocketsphinx.ps_init, (void **)&pocketsphinx.ps_free, (void **)&pocketsphinx.ps_lookup_word,
        (void **)&pocketsphinx.ps_set_jsgf_string, (void **)&pocketsphinx.ps_set_lm_file,
        (void **)&pocketsphinx.ps_set_search, (void **)&pocketsphinx.ps_start_utt,
        (void **)&pocketsphinx.ps_process_raw, (void **)&pocketsphinx.ps_end_utt, (void **)&pocketsphinx.ps_get_hyp,
        (void **)&pocketsphinx.ckd_free, (void **)&set_callback, (void **)&set_log_file,
    };
    const char *names[] = {
        "ps_args", "cmd_ln_parse_r", "cmd_ln_free_r", "ps_init", "ps_free", "ps_lookup_word", "ps_set_jsgf_string",
        "ps_set_lm_file", "ps_set_search", "ps_start_utt", "ps_process_raw", "ps_end_utt", "ps_get_hyp",
        "ckd_free", "err_set_callback", "err_set_logfp",
    };
    _Static_assert(sizeof slots / sizeof slots[0] == sizeof names / sizeof names[0], "a slot for each name");
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index] == NULL) {
            snprintf(load_error, sizeof load_error, "libpocketsphinx.so.3 has no %s", names[index]);
            dlclose(library);
            return NULL;
        }
    }
    set_callback(take_log, NULL);
    // The callback takes the log's messages; the configuration table cmd_ln_parse_r prints goes to the log's file.
    set_log_file(NULL);
    handle = library;
    return &pocketsphinx;
}
