#ifndef HEARTH_CCURL_SHIM_H
#define HEARTH_CCURL_SHIM_H

/*
 * libcurl for Swift, loaded on first use (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md).
 *
 * Hearth does not link libcurl: the process that never sends an HTTP request never maps it nor
 * its TLS, Kerberos and LDAP dependencies. hearth_curl_load() opens libcurl.so.4 with dlopen
 * once (CCurlLoader), resolves the functions below into hearth_curl and runs curl_global_init;
 * every hearth_curl_* wrapper calls through that table, so call hearth_curl_load() and check
 * its result before any of them. The header is still libcurl's, for its types and constants.
 *
 * Swift cannot call C variadic functions, so the variadic entry points (curl_easy_setopt,
 * curl_easy_getinfo, curl_multi_setopt) get one non-variadic wrapper per argument type. Each
 * wrapper passes exactly the C type libcurl expects for that kind of option (long, pointer,
 * curl_off_t, callback), which is what the variadic ABI requires.
 */
#include <curl/curl.h>

/* The libcurl functions Hearth calls, resolved with dlsym. */
struct hearth_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    void (*easy_reset)(CURL *handle);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *fds, unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *remaining);
    const char *(*multi_strerror)(CURLMcode code);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
};

/* Filled once by hearth_curl_load(); read-only afterwards. */
extern struct hearth_curl_api hearth_curl;

/* Loads libcurl.so.4 and runs curl_global_init, once per process (thread-safe). Returns NULL
   when libcurl is ready, else why it could not be loaded (dlerror's text; static storage). */
const char *hearth_curl_load(void);

static inline CURL *hearth_curl_easy_init(void) { return hearth_curl.easy_init(); }
static inline void hearth_curl_easy_reset(CURL *handle) { hearth_curl.easy_reset(handle); }
static inline void hearth_curl_easy_cleanup(CURL *handle) { hearth_curl.easy_cleanup(handle); }
static inline const char *hearth_curl_easy_strerror(CURLcode code) { return hearth_curl.easy_strerror(code); }
static inline CURLM *hearth_curl_multi_init(void) { return hearth_curl.multi_init(); }
static inline CURLMcode hearth_curl_multi_add_handle(CURLM *multi, CURL *handle) { return hearth_curl.multi_add_handle(multi, handle); }
static inline CURLMcode hearth_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return hearth_curl.multi_remove_handle(multi, handle); }
static inline CURLMcode hearth_curl_multi_perform(CURLM *multi, int *running) { return hearth_curl.multi_perform(multi, running); }
static inline CURLMcode hearth_curl_multi_poll(CURLM *multi, struct curl_waitfd *fds, unsigned int count, int timeout_ms, int *ready) {
    return hearth_curl.multi_poll(multi, fds, count, timeout_ms, ready);
}
static inline CURLMcode hearth_curl_multi_wakeup(CURLM *multi) { return hearth_curl.multi_wakeup(multi); }
static inline CURLMsg *hearth_curl_multi_info_read(CURLM *multi, int *remaining) { return hearth_curl.multi_info_read(multi, remaining); }
static inline const char *hearth_curl_multi_strerror(CURLMcode code) { return hearth_curl.multi_strerror(code); }
static inline CURLMcode hearth_curl_multi_cleanup(CURLM *multi) { return hearth_curl.multi_cleanup(multi); }
static inline struct curl_slist *hearth_curl_slist_append(struct curl_slist *list, const char *string) { return hearth_curl.slist_append(list, string); }
static inline void hearth_curl_slist_free_all(struct curl_slist *list) { hearth_curl.slist_free_all(list); }

/* Options whose argument is a long (CURLOPTTYPE_LONG, CURLOPTTYPE_VALUES). */
static inline CURLcode hearth_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return hearth_curl.easy_setopt(handle, option, value);
}

/* Options whose argument is a pointer: strings (copied by libcurl), curl_slist
   lists and buffers (NOT copied: they must outlive the transfer), user data. */
static inline CURLcode hearth_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return hearth_curl.easy_setopt(handle, option, value);
}

/* Options whose argument is a curl_off_t (CURLOPTTYPE_OFF_T). */
static inline CURLcode hearth_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return hearth_curl.easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this signature. */
static inline CURLcode hearth_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return hearth_curl.easy_setopt(handle, option, callback);
}

/* CURLINFO_LONG values. */
static inline CURLcode hearth_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return hearth_curl.easy_getinfo(handle, info, value);
}

/* CURLINFO_OFF_T values. */
static inline CURLcode hearth_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return hearth_curl.easy_getinfo(handle, info, value);
}

/* CURLINFO_STRING values (the string belongs to the handle). */
static inline CURLcode hearth_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return hearth_curl.easy_getinfo(handle, info, value);
}

/* Multi options whose argument is a long. */
static inline CURLMcode hearth_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return hearth_curl.multi_setopt(multi, option, value);
}

#endif /* HEARTH_CCURL_SHIM_H */
