#ifndef STREAM_CPULSE_SHIM_H
#define STREAM_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#endif
