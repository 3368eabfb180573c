#ifndef HEARTH_CLIBPQ_SHIM_H
#define HEARTH_CLIBPQ_SHIM_H

/*
 * libpq, PostgreSQL's C client library (Debian: libpq5; headers libpq-dev), for the PostgreSQL
 * backend (docs/decisions/0004-libpq-for-postgresql.md). Only HearthPostgres imports this module.
 *
 * Loaded on first use (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md): Hearth does
 * not link libpq, so a process that never opens a PostgreSQL connection never maps it nor its
 * TLS and Kerberos dependencies. hearth_pq_load() opens libpq.so.5 with dlopen once
 * (CLibPQLoader) and resolves the functions below into hearth_pq; every hearth_PQ* wrapper
 * calls through that table, so call hearth_pq_load() and check its result before any of them.
 * The header is still libpq's, for its types and constants.
 */
/* Debian and Ubuntu install it under postgresql/ (pkg-config's -I, not used here: it would also
   link libpq). */
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

/* The libpq functions Hearth calls, resolved with dlsym. */
struct hearth_pq_api {
    PGconn *(*connectdb)(const char *conninfo);
    ConnStatusType (*status)(const PGconn *conn);
    char *(*errorMessage)(const PGconn *conn);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    void (*finish)(PGconn *conn);
    PGresult *(*exec)(PGconn *conn, const char *query);
    PGresult *(*execParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                            const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                            int resultFormat);
    void (*clear)(PGresult *res);
    ExecStatusType (*resultStatus)(const PGresult *res);
    char *(*resultErrorField)(const PGresult *res, int fieldcode);
    char *(*cmdTuples)(PGresult *res);
    int (*ntuples)(const PGresult *res);
    int (*nfields)(const PGresult *res);
    int (*getisnull)(const PGresult *res, int tup_num, int field_num);
    int (*getlength)(const PGresult *res, int tup_num, int field_num);
    char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
    int (*putCopyData)(PGconn *conn, const char *buffer, int nbytes);
    int (*putCopyEnd)(PGconn *conn, const char *errormsg);
    int (*getCopyData)(PGconn *conn, char **buffer, int async);
    PGresult *(*getResult)(PGconn *conn);
    char *(*resultErrorMessage)(const PGresult *res);
    int (*socket)(const PGconn *conn);
    int (*consumeInput)(PGconn *conn);
    PGnotify *(*notifies)(PGconn *conn);
    void (*freemem)(void *ptr);
    PGTransactionStatusType (*transactionStatus)(const PGconn *conn);
};

/* Filled once by hearth_pq_load(); read-only afterwards. */
extern struct hearth_pq_api hearth_pq;

/* Loads libpq.so.5, once per process (thread-safe). Returns NULL when libpq is ready, else
   why it could not be loaded (dlerror's text; static storage). */
const char *hearth_pq_load(void);

static inline PGconn *hearth_PQconnectdb(const char *conninfo) { return hearth_pq.connectdb(conninfo); }
static inline ConnStatusType hearth_PQstatus(const PGconn *conn) { return hearth_pq.status(conn); }
static inline char *hearth_PQerrorMessage(const PGconn *conn) { return hearth_pq.errorMessage(conn); }
static inline PQnoticeProcessor hearth_PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return hearth_pq.setNoticeProcessor(conn, proc, arg);
}
static inline void hearth_PQfinish(PGconn *conn) { hearth_pq.finish(conn); }
static inline PGresult *hearth_PQexec(PGconn *conn, const char *query) { return hearth_pq.exec(conn, query); }
static inline PGresult *hearth_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                                            const char *const *paramValues, const int *paramLengths,
                                            const int *paramFormats, int resultFormat) {
    return hearth_pq.execParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
static inline void hearth_PQclear(PGresult *res) { hearth_pq.clear(res); }
static inline ExecStatusType hearth_PQresultStatus(const PGresult *res) { return hearth_pq.resultStatus(res); }
static inline char *hearth_PQresultErrorField(const PGresult *res, int fieldcode) { return hearth_pq.resultErrorField(res, fieldcode); }
static inline char *hearth_PQcmdTuples(PGresult *res) { return hearth_pq.cmdTuples(res); }
static inline int hearth_PQntuples(const PGresult *res) { return hearth_pq.ntuples(res); }
static inline int hearth_PQnfields(const PGresult *res) { return hearth_pq.nfields(res); }
static inline int hearth_PQgetisnull(const PGresult *res, int tup_num, int field_num) { return hearth_pq.getisnull(res, tup_num, field_num); }
static inline int hearth_PQgetlength(const PGresult *res, int tup_num, int field_num) { return hearth_pq.getlength(res, tup_num, field_num); }
static inline char *hearth_PQgetvalue(const PGresult *res, int tup_num, int field_num) { return hearth_pq.getvalue(res, tup_num, field_num); }
static inline int hearth_PQputCopyData(PGconn *conn, const char *buffer, int nbytes) { return hearth_pq.putCopyData(conn, buffer, nbytes); }
static inline int hearth_PQputCopyEnd(PGconn *conn, const char *errormsg) { return hearth_pq.putCopyEnd(conn, errormsg); }
static inline int hearth_PQgetCopyData(PGconn *conn, char **buffer, int async) { return hearth_pq.getCopyData(conn, buffer, async); }
static inline PGresult *hearth_PQgetResult(PGconn *conn) { return hearth_pq.getResult(conn); }
static inline char *hearth_PQresultErrorMessage(const PGresult *res) { return hearth_pq.resultErrorMessage(res); }
static inline int hearth_PQsocket(const PGconn *conn) { return hearth_pq.socket(conn); }
static inline int hearth_PQconsumeInput(PGconn *conn) { return hearth_pq.consumeInput(conn); }
static inline PGnotify *hearth_PQnotifies(PGconn *conn) { return hearth_pq.notifies(conn); }
static inline void hearth_PQfreemem(void *ptr) { hearth_pq.freemem(ptr); }
static inline PGTransactionStatusType hearth_PQtransactionStatus(const PGconn *conn) { return hearth_pq.transactionStatus(conn); }

#endif /* HEARTH_CLIBPQ_SHIM_H */
