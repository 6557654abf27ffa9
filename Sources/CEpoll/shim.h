#ifndef STREAM_CEPOLL_SHIM_H
#define STREAM_CEPOLL_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
