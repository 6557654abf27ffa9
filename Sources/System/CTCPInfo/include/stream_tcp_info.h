#ifndef STREAM_TCP_INFO_H
#define STREAM_TCP_INFO_H

/* The bytes of a TCP connection the peer has acknowledged so far (TCP_INFO's tcpi_bytes_acked, Linux 4.1+), so the
   link's real throughput can be measured below the kernel's send buffer. Returns 0 on success, -1 otherwise.
   Compiled as its own C file: <linux/tcp.h>'s struct tcp_info clashes with glibc's in Swift's module maps. */
int stream_tcp_bytes_acked(int fd, unsigned long long *acked);

#endif
