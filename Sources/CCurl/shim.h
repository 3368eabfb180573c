#ifndef HEARTH_CCURL_SHIM_H
#define HEARTH_CCURL_SHIM_H

/*
 * libcurl for Swift. Swift cannot call C variadic functions, so the variadic
 * entry points (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt) get
 * one non-variadic wrapper per argument type. Each wrapper passes exactly the
 * C type libcurl expects for that kind of option (long, pointer, curl_off_t,
 * callback), which is what the variadic ABI requires.
 */
#include <curl/curl.h>

/* Options whose argument is a long (CURLOPTTYPE_LONG, CURLOPTTYPE_VALUES). */
static inline CURLcode hearth_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options whose argument is a pointer: strings (copied by libcurl), curl_slist
   lists and buffers (NOT copied: they must outlive the transfer), user data. */
static inline CURLcode hearth_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options whose argument is a curl_off_t (CURLOPTTYPE_OFF_T). */
static inline CURLcode hearth_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this signature. */
static inline CURLcode hearth_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLINFO_LONG values. */
static inline CURLcode hearth_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLINFO_OFF_T values. */
static inline CURLcode hearth_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLINFO_STRING values (the string belongs to the handle). */
static inline CURLcode hearth_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/* Multi options whose argument is a long. */
static inline CURLMcode hearth_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

#endif /* HEARTH_CCURL_SHIM_H */
