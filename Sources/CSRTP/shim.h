#ifndef STREAM_CSRTP_SHIM_H
#define STREAM_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
