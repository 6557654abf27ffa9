#ifndef STREAM_CV4L2_SHIM_H
#define STREAM_CV4L2_SHIM_H
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <errno.h>

/* The VIDIOC_* request numbers are _IOWR(...) function-like macros, which Swift cannot import. */
static inline unsigned long stream_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long stream_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long stream_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long stream_vidioc_s_fmt(void) { return VIDIOC_S_FMT; }
static inline unsigned long stream_vidioc_s_parm(void) { return VIDIOC_S_PARM; }
static inline unsigned long stream_vidioc_reqbufs(void) { return VIDIOC_REQBUFS; }
static inline unsigned long stream_vidioc_querybuf(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long stream_vidioc_qbuf(void) { return VIDIOC_QBUF; }
static inline unsigned long stream_vidioc_dqbuf(void) { return VIDIOC_DQBUF; }
static inline unsigned long stream_vidioc_streamon(void) { return VIDIOC_STREAMON; }
static inline unsigned long stream_vidioc_streamoff(void) { return VIDIOC_STREAMOFF; }

/* ioctl is variadic in C; this fixed-argument wrapper also retries on EINTR, as V4L2 drivers expect. */
static inline int stream_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result;
}
#endif
