// Loads libcurl on first use (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md):
// the definitions behind CCurl's shim.h.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "../CCurl/shim.h"  // CCurl is a system library target: its header by path

struct hearth_curl_api hearth_curl;

static pthread_once_t hearth_curl_once = PTHREAD_ONCE_INIT;
static char hearth_curl_failure[512];

static void hearth_curl_open(void) {
    // RTLD_LOCAL: libcurl's symbols are reached only through the table. Never closed.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(hearth_curl_failure, sizeof hearth_curl_failure, "%s", dlerror());
        return;
    }
#define HEARTH_RESOLVE(field, symbol) \
    if ((hearth_curl.field = (__typeof__(hearth_curl.field))dlsym(library, symbol)) == NULL) { \
        snprintf(hearth_curl_failure, sizeof hearth_curl_failure, "libcurl.so.4 has no %s (%s)", symbol, dlerror()); \
        return; \
    }
    HEARTH_RESOLVE(global_init, "curl_global_init")
    HEARTH_RESOLVE(easy_init, "curl_easy_init")
    HEARTH_RESOLVE(easy_setopt, "curl_easy_setopt")
    HEARTH_RESOLVE(easy_getinfo, "curl_easy_getinfo")
    HEARTH_RESOLVE(easy_reset, "curl_easy_reset")
    HEARTH_RESOLVE(easy_cleanup, "curl_easy_cleanup")
    HEARTH_RESOLVE(easy_strerror, "curl_easy_strerror")
    HEARTH_RESOLVE(multi_init, "curl_multi_init")
    HEARTH_RESOLVE(multi_setopt, "curl_multi_setopt")
    HEARTH_RESOLVE(multi_add_handle, "curl_multi_add_handle")
    HEARTH_RESOLVE(multi_remove_handle, "curl_multi_remove_handle")
    HEARTH_RESOLVE(multi_perform, "curl_multi_perform")
    HEARTH_RESOLVE(multi_poll, "curl_multi_poll")
    HEARTH_RESOLVE(multi_wakeup, "curl_multi_wakeup")
    HEARTH_RESOLVE(multi_info_read, "curl_multi_info_read")
    HEARTH_RESOLVE(multi_strerror, "curl_multi_strerror")
    HEARTH_RESOLVE(multi_cleanup, "curl_multi_cleanup")
    HEARTH_RESOLVE(slist_append, "curl_slist_append")
    HEARTH_RESOLVE(slist_free_all, "curl_slist_free_all")
#undef HEARTH_RESOLVE
    // Must run once before any other libcurl call (not thread-safe itself: pthread_once makes it so).
    CURLcode code = hearth_curl.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(hearth_curl_failure, sizeof hearth_curl_failure, "curl_global_init failed: %s", hearth_curl.easy_strerror(code));
    }
}

const char *hearth_curl_load(void) {
    pthread_once(&hearth_curl_once, hearth_curl_open);
    return hearth_curl_failure[0] != '\0' ? hearth_curl_failure : NULL;
}
