#include "stream_tcp_info.h"

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <linux/tcp.h>

int stream_tcp_bytes_acked(int fd, unsigned long long *acked) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) {
        return -1;
    }
    /* An older kernel fills in a shorter struct: the field must be inside what it wrote. */
    if (length < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(info.tcpi_bytes_acked)) {
        return -1;
    }
    *acked = info.tcpi_bytes_acked;
    return 0;
}
