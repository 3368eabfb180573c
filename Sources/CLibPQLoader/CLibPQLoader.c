// Loads libpq on first use (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md): the
// definitions behind CLibPQ's shim.h.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "../CLibPQ/shim.h"  // CLibPQ is a system library target: its header by path

struct hearth_pq_api hearth_pq;

static pthread_once_t hearth_pq_once = PTHREAD_ONCE_INIT;
static char hearth_pq_failure[512];

static void hearth_pq_open(void) {
    // RTLD_LOCAL: libpq's symbols are reached only through the table. Never closed.
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(hearth_pq_failure, sizeof hearth_pq_failure, "%s", dlerror());
        return;
    }
#define HEARTH_RESOLVE(field, symbol) \
    if ((hearth_pq.field = (__typeof__(hearth_pq.field))dlsym(library, symbol)) == NULL) { \
        snprintf(hearth_pq_failure, sizeof hearth_pq_failure, "libpq.so.5 has no %s (%s)", symbol, dlerror()); \
        return; \
    }
    HEARTH_RESOLVE(connectdb, "PQconnectdb")
    HEARTH_RESOLVE(status, "PQstatus")
    HEARTH_RESOLVE(errorMessage, "PQerrorMessage")
    HEARTH_RESOLVE(setNoticeProcessor, "PQsetNoticeProcessor")
    HEARTH_RESOLVE(finish, "PQfinish")
    HEARTH_RESOLVE(exec, "PQexec")
    HEARTH_RESOLVE(execParams, "PQexecParams")
    HEARTH_RESOLVE(clear, "PQclear")
    HEARTH_RESOLVE(resultStatus, "PQresultStatus")
    HEARTH_RESOLVE(resultErrorField, "PQresultErrorField")
    HEARTH_RESOLVE(cmdTuples, "PQcmdTuples")
    HEARTH_RESOLVE(ntuples, "PQntuples")
    HEARTH_RESOLVE(nfields, "PQnfields")
    HEARTH_RESOLVE(getisnull, "PQgetisnull")
    HEARTH_RESOLVE(getlength, "PQgetlength")
    HEARTH_RESOLVE(getvalue, "PQgetvalue")
    HEARTH_RESOLVE(putCopyData, "PQputCopyData")
    HEARTH_RESOLVE(putCopyEnd, "PQputCopyEnd")
    HEARTH_RESOLVE(getCopyData, "PQgetCopyData")
    HEARTH_RESOLVE(getResult, "PQgetResult")
    HEARTH_RESOLVE(resultErrorMessage, "PQresultErrorMessage")
    HEARTH_RESOLVE(socket, "PQsocket")
    HEARTH_RESOLVE(consumeInput, "PQconsumeInput")
    HEARTH_RESOLVE(notifies, "PQnotifies")
    HEARTH_RESOLVE(transactionStatus, "PQtransactionStatus")
    HEARTH_RESOLVE(freemem, "PQfreemem")
#undef HEARTH_RESOLVE
}

const char *hearth_pq_load(void) {
    pthread_once(&hearth_pq_once, hearth_pq_open);
    return hearth_pq_failure[0] != '\0' ? hearth_pq_failure : NULL;
}
