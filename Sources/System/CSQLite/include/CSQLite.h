#ifndef STREAM_CSQLITE_H
#define STREAM_CSQLITE_H
// SQLite (libsqlite3-dev), the default show store of `stream serve`. The functions the store calls are defined in
// SQLiteLoader.c, which loads libsqlite3 with dlopen on the first call: a broadcast never maps it.
#include <sqlite3.h>

/// NULL once libsqlite3 is loaded (loading it if need be); otherwise why it cannot be.
const char *stream_sqlite_load_error(void);

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift cannot import: SQLite copies the bytes.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
