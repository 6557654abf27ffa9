#ifndef STREAM_CX264_SHIM_H
#define STREAM_CX264_SHIM_H
#include <stdint.h>
#include <x264.h>

/* x264_encoder_open is a token-pasting macro (x264_encoder_open_<build>). */
static inline x264_t *stream_x264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }
#endif
