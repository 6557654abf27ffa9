#ifndef STREAM_CPOSTGRES_H
#define STREAM_CPOSTGRES_H
// libpq (libpq-dev), PostgreSQL's client library: the shared show store (`stream serve --store postgres://...`).
// The functions the store calls are defined in PostgresLoader.c, which loads libpq with dlopen on the first call:
// only a server given --store postgres:// maps it and what it pulls in (Kerberos, LDAP, GnuTLS: ~3 MB of RSS).
#include <postgresql/libpq-fe.h>

/// NULL once libpq is loaded (loading it if need be); otherwise why it cannot be.
const char *stream_pq_load_error(void);

// PG_DIAG_* are character-literal macros, which Swift does not import.
static inline int cpostgres_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int cpostgres_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
