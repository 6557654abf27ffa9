#ifndef STREAM_CYUV_SHIM_H
#define STREAM_CYUV_SHIM_H
/* libyuv ships no pkg-config file. */
#include <libyuv.h>
#endif
