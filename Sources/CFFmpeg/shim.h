#ifndef STREAM_CFFMPEG_SHIM_H
#define STREAM_CFFMPEG_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/* AVERROR(e) is a function-like macro. */
static inline int stream_averror(int e) { return AVERROR(e); }
static inline int stream_averror_eof(void) { return AVERROR_EOF; }
#endif
