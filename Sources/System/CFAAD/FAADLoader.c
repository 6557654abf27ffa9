// Each libfaad2 function the AAC decoder uses, defined here with its own prototype: the first call loads
// libfaad.so.2 (dlopen) and every call goes on to the library's function of the same name (dlsym, kept once found).
// Without the library, calls fail (no handle, an init error of -1, no samples) and stream_faad_load_error() says why.
#include "CFAAD.h"
#include <CLazyLibrary.h>

static stream_lazy_library faad = STREAM_LAZY_LIBRARY("libfaad.so.2");

const char *stream_faad_load_error(void) {
    return stream_lazy_library_error(&faad);
}

STREAM_LAZY_FORWARD(faad, NeAACDecHandle, NeAACDecOpen, (void), (), 0)
STREAM_LAZY_FORWARD(faad, NeAACDecConfigurationPtr, NeAACDecGetCurrentConfiguration, (NeAACDecHandle hDecoder),
                    (hDecoder), 0)
STREAM_LAZY_FORWARD(faad, unsigned char, NeAACDecSetConfiguration,
                    (NeAACDecHandle hDecoder, NeAACDecConfigurationPtr config), (hDecoder, config), 0)
STREAM_LAZY_FORWARD(faad, char, NeAACDecInit2,
                    (NeAACDecHandle hDecoder, unsigned char *pBuffer, unsigned long SizeOfDecoderSpecificInfo,
                     unsigned long *samplerate, unsigned char *channels),
                    (hDecoder, pBuffer, SizeOfDecoderSpecificInfo, samplerate, channels), -1)
STREAM_LAZY_FORWARD(faad, void *, NeAACDecDecode,
                    (NeAACDecHandle hDecoder, NeAACDecFrameInfo *hInfo, unsigned char *buffer,
                     unsigned long buffer_size),
                    (hDecoder, hInfo, buffer, buffer_size), 0)
STREAM_LAZY_FORWARD(faad, char *, NeAACDecGetErrorMessage, (unsigned char errcode), (errcode), 0)
STREAM_LAZY_FORWARD_VOID(faad, NeAACDecClose, (NeAACDecHandle hDecoder), (hDecoder))
