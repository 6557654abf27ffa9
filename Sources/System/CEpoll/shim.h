#ifndef STREAM_CEPOLL_SHIM_H
#define STREAM_CEPOLL_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>

/* accept4 is declared only under _GNU_SOURCE, which Swift's Glibc module does not define. glibc has exported it
   since 2.10; this prototype matches the one in <sys/socket.h>. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addr_len, int flags);

/* Accepts a connection as a non-blocking, close-on-exec socket in one call (no window for a fork to inherit it). */
static inline int stream_accept_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#endif
