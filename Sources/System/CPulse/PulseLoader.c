// Each PulseAudio function Capture uses, defined here with its own prototype: the first call loads libpulse.so.0
// (dlopen) and every call goes on to the library's function of the same name (dlsym), kept once found. Without the
// library, calls return a failure (NULL, a negative number, a failed state) and stream_pulse_load_error() says why.
#include "CPulse.h"
#include <CLazyLibrary.h>
#include <stddef.h>

static stream_lazy_library pulse = STREAM_LAZY_LIBRARY("libpulse.so.0");

const char *stream_pulse_load_error(void) {
    return stream_lazy_library_error(&pulse);
}

#define FORWARD(type, name, parameters, arguments, fallback) \
    STREAM_LAZY_FORWARD(pulse, type, name, parameters, arguments, fallback)
#define FORWARD_VOID(name, parameters, arguments) STREAM_LAZY_FORWARD_VOID(pulse, name, parameters, arguments)

FORWARD(pa_threaded_mainloop *, pa_threaded_mainloop_new, (void), (), NULL)
FORWARD_VOID(pa_threaded_mainloop_free, (pa_threaded_mainloop *m), (m))
FORWARD(int, pa_threaded_mainloop_start, (pa_threaded_mainloop *m), (m), -1)
FORWARD_VOID(pa_threaded_mainloop_stop, (pa_threaded_mainloop *m), (m))
FORWARD_VOID(pa_threaded_mainloop_lock, (pa_threaded_mainloop *m), (m))
FORWARD_VOID(pa_threaded_mainloop_unlock, (pa_threaded_mainloop *m), (m))
FORWARD_VOID(pa_threaded_mainloop_signal, (pa_threaded_mainloop *m, int wait_for_accept), (m, wait_for_accept))
FORWARD_VOID(pa_threaded_mainloop_wait, (pa_threaded_mainloop *m), (m))
FORWARD(pa_mainloop_api *, pa_threaded_mainloop_get_api, (pa_threaded_mainloop *m), (m), NULL)

FORWARD(pa_context *, pa_context_new, (pa_mainloop_api *mainloop, const char *name), (mainloop, name), NULL)
FORWARD_VOID(pa_context_unref, (pa_context *c), (c))
FORWARD(int, pa_context_connect,
        (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api),
        (c, server, flags, api), -1)
FORWARD_VOID(pa_context_disconnect, (pa_context *c), (c))
FORWARD(pa_context_state_t, pa_context_get_state, (const pa_context *c), (c), PA_CONTEXT_FAILED)
FORWARD_VOID(pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata),
             (c, cb, userdata))
FORWARD(int, pa_context_errno, (const pa_context *c), (c), PA_ERR_NOTSUPPORTED)
FORWARD(pa_operation *, pa_context_get_server_info, (pa_context *c, pa_server_info_cb_t cb, void *userdata),
        (c, cb, userdata), NULL)
FORWARD(pa_operation *, pa_context_get_source_info_list, (pa_context *c, pa_source_info_cb_t cb, void *userdata),
        (c, cb, userdata), NULL)

FORWARD(pa_stream *, pa_stream_new,
        (pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map),
        (c, name, ss, map), NULL)
FORWARD_VOID(pa_stream_unref, (pa_stream *s), (s))
FORWARD(int, pa_stream_connect_record,
        (pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags),
        (s, dev, attr, flags), -1)
FORWARD(int, pa_stream_disconnect, (pa_stream *s), (s), -1)
FORWARD(pa_stream_state_t, pa_stream_get_state, (const pa_stream *p), (p), PA_STREAM_FAILED)
FORWARD_VOID(pa_stream_set_state_callback, (pa_stream *s, pa_stream_notify_cb_t cb, void *userdata),
             (s, cb, userdata))
FORWARD_VOID(pa_stream_set_read_callback, (pa_stream *p, pa_stream_request_cb_t cb, void *userdata),
             (p, cb, userdata))
FORWARD(int, pa_stream_peek, (pa_stream *p, const void **data, size_t *nbytes), (p, data, nbytes), -1)
FORWARD(int, pa_stream_drop, (pa_stream *p), (p), -1)
FORWARD(size_t, pa_stream_readable_size, (const pa_stream *p), (p), (size_t)-1)

FORWARD(pa_operation_state_t, pa_operation_get_state, (const pa_operation *o), (o), PA_OPERATION_CANCELLED)
FORWARD_VOID(pa_operation_unref, (pa_operation *o), (o))
FORWARD(const char *, pa_strerror, (int error), (error), "the PulseAudio library (libpulse.so.0) is not loaded")
FORWARD(const char *, pa_proplist_gets, (const pa_proplist *p, const char *key), (p, key), NULL)
