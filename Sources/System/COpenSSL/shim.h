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

/* DTLS for WebRTC (Sources/IO/DTLS): memory BIOs, timers, MTU, an EC key for the self-signed certificate. */
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/srtp.h>
static inline long stream_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) { return DTLSv1_get_timeout(ssl, tv); }
static inline long stream_DTLSv1_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }
static inline long stream_BIO_set_mem_eof_return(BIO *bio, long value) { return BIO_set_mem_eof_return(bio, value); }
static inline long stream_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
static inline uint64_t stream_SSL_OP_NO_QUERY_MTU(void) { return SSL_OP_NO_QUERY_MTU; }
static inline EVP_PKEY *stream_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
/* SRTP (Sources/IO/SRTP): an HMAC-SHA1 context keyed once, for the packets' tags (OSSL_PARAM arrays are awkward
   from Swift, so it is made here). NULL when OpenSSL refuses. */
#include <openssl/core_names.h>
#include <openssl/params.h>
static inline EVP_MAC_CTX *stream_HMAC_SHA1_new(const unsigned char *key, size_t length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA1", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(context, key, length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
#endif
