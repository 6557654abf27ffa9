#ifndef STREAM_CXCB_SHIM_H
#define STREAM_CXCB_SHIM_H
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xfixes.h>
#include <sys/ipc.h>
#include <sys/shm.h>

/* The extension ids are mutable C globals, which Swift 6 refuses to touch; their addresses are all we need. */
static inline xcb_extension_t *stream_xcb_shm_id(void) { return &xcb_shm_id; }
static inline xcb_extension_t *stream_xcb_xfixes_id(void) { return &xcb_xfixes_id; }
#endif
