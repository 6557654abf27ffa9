// Each TurboJPEG function the poster's compressor uses, defined here with its own prototype: the first call loads
// libturbojpeg.so.0 (dlopen) and every call goes on to the library's function of the same name. Without the
// library, calls fail (no handle, -1) and stream_turbojpeg_load_error() says why.
#include "CTurboJPEG.h"
#include <CLazyLibrary.h>

static stream_lazy_library turbojpeg = STREAM_LAZY_LIBRARY("libturbojpeg.so.0");

const char *stream_turbojpeg_load_error(void) {
    return stream_lazy_library_error(&turbojpeg);
}

STREAM_LAZY_FORWARD(turbojpeg, tjhandle, tjInitCompress, (void), (), 0)
STREAM_LAZY_FORWARD(turbojpeg, int, tjCompressFromYUVPlanes,
                    (tjhandle handle, const unsigned char **srcPlanes, int width, const int *strides, int height,
                     int subsamp, unsigned char **jpegBuf, unsigned long *jpegSize, int jpegQual, int flags),
                    (handle, srcPlanes, width, strides, height, subsamp, jpegBuf, jpegSize, jpegQual, flags), -1)
STREAM_LAZY_FORWARD(turbojpeg, int, tjDestroy, (tjhandle handle), (handle), -1)
STREAM_LAZY_FORWARD_VOID(turbojpeg, tjFree, (unsigned char *buffer), (buffer))
STREAM_LAZY_FORWARD(turbojpeg, char *, tjGetErrorStr2, (tjhandle handle), (handle), 0)
