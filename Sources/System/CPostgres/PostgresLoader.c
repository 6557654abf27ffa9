// Each libpq function the PostgreSQL store uses, defined here with its own prototype: the first call loads
// libpq.so.5 (dlopen) and every call goes on to the library's function of the same name. Without the library,
// PQconnectdbParams returns NULL (the store then reports stream_pq_load_error()) and the others fail.
#include "CPostgres.h"
#include <CLazyLibrary.h>

static stream_lazy_library pq = STREAM_LAZY_LIBRARY("libpq.so.5");

const char *stream_pq_load_error(void) {
    return stream_lazy_library_error(&pq);
}

#define FORWARD(type, name, parameters, arguments, fallback) \
    STREAM_LAZY_FORWARD(pq, type, name, parameters, arguments, fallback)

FORWARD(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand),
        (keywords, values, expand), 0)
FORWARD(ConnStatusType, PQstatus, (const PGconn *c), (c), CONNECTION_BAD)
FORWARD(char *, PQerrorMessage, (const PGconn *c), (c), "libpq.so.5 could not be loaded")
FORWARD(int, PQsocket, (const PGconn *c), (c), -1)
FORWARD(int, PQsendQuery, (PGconn *c, const char *query), (c, query), 0)
FORWARD(int, PQsendQueryParams,
        (PGconn *c, const char *command, int count, const Oid *types, const char *const *values, const int *lengths,
         const int *formats, int resultFormat),
        (c, command, count, types, values, lengths, formats, resultFormat), 0)
FORWARD(int, PQconsumeInput, (PGconn *c), (c), 0)
FORWARD(int, PQisBusy, (PGconn *c), (c), 0)
FORWARD(PGresult *, PQgetResult, (PGconn *c), (c), 0)
FORWARD(ExecStatusType, PQresultStatus, (const PGresult *r), (r), PGRES_FATAL_ERROR)
FORWARD(char *, PQresultErrorMessage, (const PGresult *r), (r), "libpq.so.5 could not be loaded")
FORWARD(char *, PQresultErrorField, (const PGresult *r, int field), (r, field), 0)
FORWARD(int, PQntuples, (const PGresult *r), (r), 0)
FORWARD(int, PQnfields, (const PGresult *r), (r), 0)
FORWARD(char *, PQgetvalue, (const PGresult *r, int row, int field), (r, row, field), 0)
FORWARD(int, PQgetisnull, (const PGresult *r, int row, int field), (r, row, field), 1)
FORWARD(int, PQgetlength, (const PGresult *r, int row, int field), (r, row, field), 0)
STREAM_LAZY_FORWARD_VOID(pq, PQclear, (PGresult *r), (r))
STREAM_LAZY_FORWARD_VOID(pq, PQfinish, (PGconn *c), (c))
