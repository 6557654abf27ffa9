#ifndef STREAM_CPULSE_H
#define STREAM_CPULSE_H
// PulseAudio's declarations. The functions Capture calls are defined in PulseLoader.c, which loads libpulse with
// dlopen on the first call: a program that never captures audio (`stream serve`) does not map libpulse and the ~25
// libraries it pulls in (~3 MB of resident memory).
#include <pulse/pulseaudio.h>

/// NULL once libpulse is loaded (loading it if need be); otherwise why it cannot be (dlerror's text).
const char *stream_pulse_load_error(void);
#endif
