// libpq, PostgreSQL's C client library (Debian: libpq-dev), for the PostgreSQL backend
// (docs/decisions/0004-libpq-for-postgresql.md). Only HearthPostgres imports this module.
#include <libpq-fe.h>
