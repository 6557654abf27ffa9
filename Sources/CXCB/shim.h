#ifndef STREAM_CXCB_SHIM_H
#define STREAM_CXCB_SHIM_H
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xfixes.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#endif
