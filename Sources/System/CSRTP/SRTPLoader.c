// Each libsrtp2 function SRTP uses, defined here with its own prototype: the first call loads libsrtp2.so.1 (dlopen)
// and every call goes on to the library's function of the same name (dlsym), kept once found. Without the library,
// calls fail (srtp_err_status_init_fail; the policy setters do nothing) and stream_srtp_load_error() says why.
#include "CSRTP.h"
#include <CLazyLibrary.h>

static stream_lazy_library srtp = STREAM_LAZY_LIBRARY("libsrtp2.so.1");

const char *stream_srtp_load_error(void) {
    return stream_lazy_library_error(&srtp);
}

// FORWARD(name, (parameters), (arguments)): a function returning srtp_err_status_t.
#define FORWARD(name, parameters, arguments) \
    STREAM_LAZY_FORWARD(srtp, srtp_err_status_t, name, parameters, arguments, srtp_err_status_init_fail)
#define FORWARD_VOID(name, parameters, arguments) STREAM_LAZY_FORWARD_VOID(srtp, name, parameters, arguments)

FORWARD(srtp_init, (void), ())
FORWARD(srtp_create, (srtp_t *session, const srtp_policy_t *policy), (session, policy))
FORWARD(srtp_dealloc, (srtp_t s), (s))
FORWARD(srtp_protect, (srtp_t ctx, void *rtp_hdr, int *len_ptr), (ctx, rtp_hdr, len_ptr))
FORWARD(srtp_unprotect, (srtp_t ctx, void *srtp_hdr, int *len_ptr), (ctx, srtp_hdr, len_ptr))
FORWARD(srtp_protect_rtcp, (srtp_t ctx, void *rtcp_hdr, int *pkt_octet_len), (ctx, rtcp_hdr, pkt_octet_len))
FORWARD(srtp_unprotect_rtcp, (srtp_t ctx, void *srtcp_hdr, int *pkt_octet_len), (ctx, srtcp_hdr, pkt_octet_len))
FORWARD_VOID(srtp_crypto_policy_set_rtp_default, (srtp_crypto_policy_t *p), (p))
FORWARD_VOID(srtp_crypto_policy_set_rtcp_default, (srtp_crypto_policy_t *p), (p))
