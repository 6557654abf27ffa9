#ifndef STREAM_CFAAD_H
#define STREAM_CFAAD_H
// FAAD2's AAC decoder (libfaad-dev). The functions the AAC decoder calls are defined in FAADLoader.c, which loads
// libfaad.so.2 with dlopen on the first call: only a server that gives an RTMP publish's sound to WebRTC players maps
// it, never a broadcast.
#include <neaacdec.h>

/// NULL once libfaad2 is loaded (loading it if need be); otherwise why it cannot be (dlerror's text).
const char *stream_faad_load_error(void);
#endif
