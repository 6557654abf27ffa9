#ifndef STREAM_COPENSSL_SHIM_H
#define STREAM_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/* Function-like macros Swift cannot import. */
static inline long stream_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int stream_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long stream_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
/* ERR_GET_REASON is a macro in OpenSSL 3. */
static inline int stream_ERR_GET_REASON(unsigned long error) { return ERR_GET_REASON(error); }
#endif
