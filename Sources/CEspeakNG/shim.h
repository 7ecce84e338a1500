// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <dlfcn.h>
#include <errno.h>
#include <espeak-ng/speak_lib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

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

// espeak-ng's functions, loaded on the first call (libespeak-ng.so.1, the soname Debian's libespeak-ng1 installs);
// NULL, with concat_synth_espeak_load_error saying why, if the library or one of its functions is missing. Not
// thread-safe: AudioIO's EspeakNG calls it under its lock.
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

// One synthesis in a process of its own: espeak-ng carries state from one synthesis to the next that no call resets,
// and keeps memory that espeak_Terminate does not free, so each synthesis starts from the library as initialised and
// leaves nothing behind when its process ends. The processes are forked by a process of their own, the spawner
// (concat_synth_espeak_start_spawner), itself forked once from the caller right after espeak_Initialize, so that
// the caller, whose threads keep writing its memory, forks only once: after each fork every page a process writes
// that the other still shares is copied. Both are C from the fork on: the caller has other threads, which may hold
// the locks of the Swift runtime, and only the C library's (malloc's, stdio's) are made safe again in a forked child.
//
// What a synthesis's process and its caller say over their stream socket pair: the caller sends the text once, as its
// length in bytes (int32_t) and its UTF-8 bytes; the process answers with each piece of samples espeak-ng hands its
// callback, as the count (int32_t, more than 0) and that many int16_t, then an end: 0 (int32_t), the call that
// failed (enum concat_synth_espeak_call, CONCAT_SYNTH_ESPEAK_NONE when none did), its status (int32_t, espeak_ERROR)
// and, for espeak_SetParameter, the parameter (int32_t, espeak_PARAMETER). The caller cancels by closing its end.
// When the spawner cannot fork the process, it answers in its stead with that end alone: CONCAT_SYNTH_ESPEAK_FORK
// and fork's errno as the status.
enum concat_synth_espeak_call {
    CONCAT_SYNTH_ESPEAK_NONE,
    CONCAT_SYNTH_ESPEAK_SET_VOICE,
    CONCAT_SYNTH_ESPEAK_SET_PARAMETER,
    CONCAT_SYNTH_ESPEAK_SYNTH,
    CONCAT_SYNTH_ESPEAK_FORK,
};

// What the caller asks the spawner for, with the socket of the synthesis's process (SCM_RIGHTS): a process given
// this voice by name and these parameters before its text comes.
struct concat_synth_espeak_preparation {
    char voice[120];
    int rate, pitch, range, volume;
    unsigned int noise_seed;
};

// Sends all of `size` bytes, or returns -1; never raises SIGPIPE, for the other end may have gone.
static inline int concat_synth_espeak_send(int socket, const void *_Nonnull bytes, size_t size) {
    const char *cursor = bytes;
    while (size > 0) {
        ssize_t sent = send(socket, cursor, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        cursor += sent;
        size -= (size_t)sent;
    }
    return 0;
}

// Receives exactly `size` bytes, or returns -1 (the other end gone, or an error).
static inline int concat_synth_espeak_receive(int socket, void *_Nonnull bytes, size_t size) {
    char *cursor = bytes;
    while (size > 0) {
        ssize_t received = recv(socket, cursor, size, 0);
        if (received < 0 && errno == EINTR) continue;
        if (received <= 0) return -1;
        cursor += received;
        size -= (size_t)received;
    }
    return 0;
}

// The socket a synthesis's process answers on.
static inline int *_Nonnull concat_synth_espeak_answer_socket(void) {
    static int socket = -1;
    return &socket;
}

// The synthesis callback in a synthesis's process: each piece of samples sent as it comes; 1, which stops espeak-ng,
// once the caller has closed its end.
static inline int concat_synth_espeak_send_samples(
    short *_Nullable samples, int count, espeak_EVENT *_Nullable events) {
    (void)events;
    if (samples == NULL || count <= 0) return 0;
    int socket = *concat_synth_espeak_answer_socket();
    int32_t header = count;
    if (concat_synth_espeak_send(socket, &header, sizeof header) != 0) return 1;
    return concat_synth_espeak_send(socket, samples, (size_t)count * sizeof(short)) != 0 ? 1 : 0;
}

// Closes every descriptor but `kept`, so that a forked process holds none of its parent's connections or files.
static inline void concat_synth_espeak_close_others(int kept) {
    if (kept > 3) syscall(SYS_close_range, 3, kept - 1, 0);
    syscall(SYS_close_range, kept + 1, ~0U, 0);
}

// A synthesis's process, in the spawner's child: gives the library `preparation`, waits for the text on `socket`,
// speaks it and ends.
static inline void concat_synth_espeak_synthesize(
    const struct concat_synth_espeak *_Nonnull espeak,
    const struct concat_synth_espeak_preparation *_Nonnull preparation, int socket) {
    int32_t call = CONCAT_SYNTH_ESPEAK_NONE, parameter = 0;
    int32_t status = espeak->espeak_SetVoiceByName(preparation->voice);
    if (status != EE_OK) call = CONCAT_SYNTH_ESPEAK_SET_VOICE;
    // Every parameter is set: a voice brings its own defaults.
    espeak_PARAMETER parameters[] = {espeakRATE, espeakPITCH, espeakRANGE, espeakVOLUME};
    int values[] = {preparation->rate, preparation->pitch, preparation->range, preparation->volume};
    for (size_t index = 0; index < 4 && call == CONCAT_SYNTH_ESPEAK_NONE; index++) {
        status = espeak->espeak_SetParameter(parameters[index], values[index], 0);
        if (status != EE_OK) {
            call = CONCAT_SYNTH_ESPEAK_SET_PARAMETER;
            parameter = parameters[index];
        }
    }
    int32_t length;
    if (concat_synth_espeak_receive(socket, &length, sizeof length) != 0 || length < 0) _exit(0);
    char *text = malloc((size_t)length + 1);
    if (text == NULL || concat_synth_espeak_receive(socket, text, (size_t)length) != 0) _exit(0);
    text[length] = 0;
    if (call == CONCAT_SYNTH_ESPEAK_NONE) {
        *concat_synth_espeak_answer_socket() = socket;
        espeak->espeak_SetSynthCallback(concat_synth_espeak_send_samples);
        // rand() gives espeak-ng's breath noise.
        srand(preparation->noise_seed);
        // The size counts the terminating NUL, as espeak-ng's own programs pass it.
        status = espeak->espeak_Synth(text, (size_t)length + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
        if (status != EE_OK) call = CONCAT_SYNTH_ESPEAK_SYNTH;
    }
    int32_t end[] = {0, call, status, parameter};
    concat_synth_espeak_send(socket, end, sizeof end);
    _exit(0);
}

// Forks the spawner, which keeps the library as `espeak` is now (call it right after espeak_Initialize, where no
// other thread uses the library) and, for each preparation and socket sent on `control` (a SOCK_SEQPACKET socket),
// forks a synthesis's process given them; it ends when the caller closes `control`. Returns its process id, or -1
// with errno.
static inline pid_t concat_synth_espeak_start_spawner(const struct concat_synth_espeak *_Nonnull espeak, int control) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    concat_synth_espeak_close_others(control);
    // The kernel reaps the synthesis processes.
    signal(SIGCHLD, SIG_IGN);
    for (;;) {
        struct concat_synth_espeak_preparation preparation;
        struct iovec part = {&preparation, sizeof preparation};
        union {
            char buffer[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } descriptors;
        struct msghdr message = {0};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        message.msg_control = descriptors.buffer;
        message.msg_controllen = sizeof descriptors.buffer;
        ssize_t received = recvmsg(control, &message, 0);
        if (received < 0 && errno == EINTR) continue;
        if (received <= 0) _exit(0);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        if (header == NULL || header->cmsg_type != SCM_RIGHTS || received != sizeof preparation) continue;
        int socket;
        memcpy(&socket, CMSG_DATA(header), sizeof socket);
        preparation.voice[sizeof preparation.voice - 1] = 0;
        pid_t process = fork();
        if (process == 0) {
            concat_synth_espeak_close_others(socket);
            signal(SIGCHLD, SIG_DFL);
            concat_synth_espeak_synthesize(espeak, &preparation, socket);
        }
        if (process < 0) {
            // Said, not just closed: the caller then knows the spawner failed, not the text, and starts another.
            int32_t end[] = {0, CONCAT_SYNTH_ESPEAK_FORK, errno, 0};
            concat_synth_espeak_send(socket, end, sizeof end);
        }
        close(socket);
    }
}

// Asks the spawner on `control` for a synthesis's process given `preparation`, which answers on `socket` (the caller
// keeps the other end of its pair, and closes this one); 0, or -1 with errno.
static inline int concat_synth_espeak_spawn(
    int control, const struct concat_synth_espeak_preparation *_Nonnull preparation, int socket) {
    struct iovec part = {(void *)preparation, sizeof *preparation};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } descriptors;
    memset(&descriptors, 0, sizeof descriptors);
    struct msghdr message = {0};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = descriptors.buffer;
    message.msg_controllen = sizeof descriptors.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &socket, sizeof socket);
    ssize_t sent;
    do sent = sendmsg(control, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent == sizeof *preparation ? 0 : -1;
}
