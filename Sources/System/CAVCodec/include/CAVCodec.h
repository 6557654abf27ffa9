#ifndef STREAM_CAVCODEC_H
#define STREAM_CAVCODEC_H
// libavcodec's H.264 decoder (libavcodec-dev), for the server's posters. The functions the decoder calls are defined
// in AVCodecLoader.c, which loads libavcodec and libavutil with dlopen on the first call: only a server asked for a
// poster maps them (~70 libraries, 16 MB of RSS), never a broadcast.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>

/// NULL once libavcodec and libavutil are loaded (loading them if need be); otherwise why they cannot be.
const char *stream_avcodec_load_error(void);

/// AVERROR(EAGAIN): the decoder wants more input before it has a frame (a function-like macro Swift cannot import).
static inline int stream_averror_again(void) { return AVERROR(EAGAIN); }

/// AVERROR_EOF: the decoder is drained.
static inline int stream_averror_eof(void) { return AVERROR_EOF; }
#endif
