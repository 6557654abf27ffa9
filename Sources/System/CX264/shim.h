#ifndef STREAM_CX264_SHIM_H
#define STREAM_CX264_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <x264.h>

/* x264 asks for transparent huge pages (madvise) on every buffer of 1.75 MB or more; a huge page is resident as a
   whole, padding and all. prctl is variadic, which Swift cannot call. */
static inline int stream_disable_transparent_huge_pages(void) { return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0); }

/* x264_encoder_open is a token-pasting macro (x264_encoder_open_<build>). */
static inline x264_t *stream_x264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }

/* The name lists are static arrays in x264.h; these hand them to Swift as NULL-terminated pointer lists. */
static inline const char *const *stream_x264_preset_names(void) { return x264_preset_names; }
static inline const char *const *stream_x264_tune_names(void) { return x264_tune_names; }
static inline const char *const *stream_x264_profile_names(void) { return x264_profile_names; }

/* x264's log callback takes a va_list, which Swift cannot receive in a @convention(c) function. This trampoline
   formats the line in C and hands the finished text to a plain callback. */
typedef struct stream_x264_log_target {
    void *context;
    void (*sink)(void *context, int level, const char *line);
} stream_x264_log_target;

static inline void stream_x264_log_trampoline(void *target, int level, const char *format, va_list arguments) {
    char line[512];
    stream_x264_log_target *t = (stream_x264_log_target *)target;
    if (t == NULL || t->sink == NULL) return;
    vsnprintf(line, sizeof line, format, arguments);
    t->sink(t->context, level, line);
}

/* Routes the encoder's log lines to target (which must outlive the encoder). */
static inline void stream_x264_param_set_log(x264_param_t *param, stream_x264_log_target *target, int level) {
    param->pf_log = stream_x264_log_trampoline;
    param->p_log_private = target;
    param->i_log_level = level;
}
#endif
