#include <libpq-fe.h>

// PG_DIAG_* are character-literal macros, which Swift does not import.
static inline int cpostgres_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int cpostgres_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
