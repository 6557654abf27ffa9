// Each libavcodec and libavutil function the poster's decoder uses, defined here with its own prototype: the first
// call loads the library (dlopen of the soname these headers were built for) and every call goes on to the
// library's function of the same name. Without the library, calls fail (no codec, no context, errors) and
// stream_avcodec_load_error() says why.
#include "CAVCodec.h"
#include <CLazyLibrary.h>
#include <libavutil/macros.h>

static stream_lazy_library avcodec =
    STREAM_LAZY_LIBRARY("libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR));
static stream_lazy_library avutil = STREAM_LAZY_LIBRARY("libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR));

const char *stream_avcodec_load_error(void) {
    const char *error = stream_lazy_library_error(&avutil);
    return error != 0 ? error : stream_lazy_library_error(&avcodec);
}

STREAM_LAZY_FORWARD(avcodec, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id), 0)
STREAM_LAZY_FORWARD(avcodec, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec), 0)
STREAM_LAZY_FORWARD(avcodec, int, avcodec_open2,
                    (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options),
                    AVERROR(ENOSYS))
STREAM_LAZY_FORWARD_VOID(avcodec, avcodec_free_context, (AVCodecContext **avctx), (avctx))
STREAM_LAZY_FORWARD(avcodec, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt),
                    (avctx, avpkt), AVERROR(ENOSYS))
STREAM_LAZY_FORWARD(avcodec, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame),
                    AVERROR(ENOSYS))
STREAM_LAZY_FORWARD(avcodec, AVPacket *, av_packet_alloc, (void), (), 0)
STREAM_LAZY_FORWARD_VOID(avcodec, av_packet_free, (AVPacket **pkt), (pkt))
STREAM_LAZY_FORWARD(avutil, AVFrame *, av_frame_alloc, (void), (), 0)
STREAM_LAZY_FORWARD_VOID(avutil, av_frame_free, (AVFrame **frame), (frame))
STREAM_LAZY_FORWARD(avutil, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size),
                    (errnum, errbuf, errbuf_size), -1)
