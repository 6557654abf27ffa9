#ifndef STREAM_CSRTP_H
#define STREAM_CSRTP_H
// libsrtp2's declarations. The functions SRTP calls are defined in SRTPLoader.c, which loads libsrtp2 with dlopen on
// the first call: a program that never sends WebRTC media (`stream serve`) does not map libsrtp2 and the NSS
// libraries it pulls in (~0.6 MB of resident memory).
#include <srtp2/srtp.h>

/// NULL once libsrtp2 is loaded (loading it if need be); otherwise why it cannot be (dlerror's text).
const char *stream_srtp_load_error(void);
#endif
