// Each SQLite function the show store uses, defined here with its own prototype: the first call loads
// libsqlite3.so.0 (dlopen) and every call goes on to the library's function of the same name. Without the library,
// calls fail with SQLITE_ERROR (texts: NULL) and stream_sqlite_load_error() says why.
#include "CSQLite.h"
#include <CLazyLibrary.h>

static stream_lazy_library sqlite = STREAM_LAZY_LIBRARY("libsqlite3.so.0");

const char *stream_sqlite_load_error(void) {
    return stream_lazy_library_error(&sqlite);
}

#define FORWARD(type, name, parameters, arguments, fallback) \
    STREAM_LAZY_FORWARD(sqlite, type, name, parameters, arguments, fallback)

FORWARD(int, sqlite3_open_v2, (const char *filename, sqlite3 **db, int flags, const char *vfs),
        (filename, db, flags, vfs), SQLITE_ERROR)
FORWARD(int, sqlite3_close, (sqlite3 *db), (db), SQLITE_ERROR)
FORWARD(int, sqlite3_extended_result_codes, (sqlite3 *db, int on), (db, on), SQLITE_ERROR)
FORWARD(int, sqlite3_exec,
        (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error),
        (db, sql, callback, context, error), SQLITE_ERROR)
FORWARD(int, sqlite3_prepare_v3,
        (sqlite3 *db, const char *sql, int bytes, unsigned int flags, sqlite3_stmt **statement, const char **tail),
        (db, sql, bytes, flags, statement, tail), SQLITE_ERROR)
FORWARD(int, sqlite3_bind_int64, (sqlite3_stmt *s, int i, sqlite3_int64 v), (s, i, v), SQLITE_ERROR)
FORWARD(int, sqlite3_bind_null, (sqlite3_stmt *s, int i), (s, i), SQLITE_ERROR)
FORWARD(int, sqlite3_bind_text, (sqlite3_stmt *s, int i, const char *text, int bytes, void (*destructor)(void *)),
        (s, i, text, bytes, destructor), SQLITE_ERROR)
FORWARD(int, sqlite3_clear_bindings, (sqlite3_stmt *s), (s), SQLITE_ERROR)
FORWARD(int, sqlite3_step, (sqlite3_stmt *s), (s), SQLITE_ERROR)
FORWARD(int, sqlite3_reset, (sqlite3_stmt *s), (s), SQLITE_ERROR)
FORWARD(int, sqlite3_finalize, (sqlite3_stmt *s), (s), SQLITE_ERROR)
FORWARD(int, sqlite3_changes, (sqlite3 *db), (db), 0)
FORWARD(int, sqlite3_column_type, (sqlite3_stmt *s, int i), (s, i), SQLITE_NULL)
FORWARD(int, sqlite3_column_bytes, (sqlite3_stmt *s, int i), (s, i), 0)
FORWARD(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *s, int i), (s, i), 0)
FORWARD(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *s, int i), (s, i), 0)
FORWARD(const char *, sqlite3_errmsg, (sqlite3 *db), (db), "libsqlite3.so.0 could not be loaded")
FORWARD(const char *, sqlite3_errstr, (int code), (code), "libsqlite3.so.0 could not be loaded")
STREAM_LAZY_FORWARD_VOID(sqlite, sqlite3_free, (void *p), (p))
