#ifndef STREAM_CTURBOJPEG_H
#define STREAM_CTURBOJPEG_H
// libjpeg-turbo's TurboJPEG API (libturbojpeg0-dev), for the server's posters: it compresses a decoded picture's
// Y, U and V planes as they are (no colour conversion). The functions are defined in TurboJPEGLoader.c, which loads
// libturbojpeg.so.0 with dlopen on the first call: a broadcast never maps it, and a server without it still runs
// (its poster route says why it has none).
#include <turbojpeg.h>

/// NULL once libturbojpeg is loaded (loading it if need be); otherwise why it cannot be (dlerror's text).
const char *stream_turbojpeg_load_error(void);
#endif
