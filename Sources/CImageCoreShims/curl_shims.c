#include "CImageCoreShims.h"

#include "library_loader.h"

#include <stdlib.h>

/// The libcurl functions imgcache uses, resolved from libcurl.so.4.
static struct {
    CURLcode (*global_init)(long);
    const char *(*easy_strerror)(CURLcode);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_pause)(CURL *, int);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
    CURLSHcode (*share_cleanup)(CURLSH *);
} api;

/// What imgcache_curl_load fills in, field by field.
static const imgcache_library_symbol symbols[] = {
    IMGCACHE_SYMBOL(api.global_init, "curl_global_init"),
    IMGCACHE_SYMBOL(api.easy_strerror, "curl_easy_strerror"),
    IMGCACHE_SYMBOL(api.easy_init, "curl_easy_init"),
    IMGCACHE_SYMBOL(api.easy_cleanup, "curl_easy_cleanup"),
    IMGCACHE_SYMBOL(api.easy_reset, "curl_easy_reset"),
    IMGCACHE_SYMBOL(api.easy_setopt, "curl_easy_setopt"),
    IMGCACHE_SYMBOL(api.easy_getinfo, "curl_easy_getinfo"),
    IMGCACHE_SYMBOL(api.easy_pause, "curl_easy_pause"),
    IMGCACHE_SYMBOL(api.slist_append, "curl_slist_append"),
    IMGCACHE_SYMBOL(api.slist_free_all, "curl_slist_free_all"),
    IMGCACHE_SYMBOL(api.multi_init, "curl_multi_init"),
    IMGCACHE_SYMBOL(api.multi_setopt, "curl_multi_setopt"),
    IMGCACHE_SYMBOL(api.multi_add_handle, "curl_multi_add_handle"),
    IMGCACHE_SYMBOL(api.multi_remove_handle, "curl_multi_remove_handle"),
    IMGCACHE_SYMBOL(api.multi_perform, "curl_multi_perform"),
    IMGCACHE_SYMBOL(api.multi_poll, "curl_multi_poll"),
    IMGCACHE_SYMBOL(api.multi_wakeup, "curl_multi_wakeup"),
    IMGCACHE_SYMBOL(api.multi_info_read, "curl_multi_info_read"),
    IMGCACHE_SYMBOL(api.multi_cleanup, "curl_multi_cleanup"),
    IMGCACHE_SYMBOL(api.share_init, "curl_share_init"),
    IMGCACHE_SYMBOL(api.share_setopt, "curl_share_setopt"),
    IMGCACHE_SYMBOL(api.share_cleanup, "curl_share_cleanup"),
};

static imgcache_library library = IMGCACHE_LIBRARY("libcurl.so.4", "cannot load libcurl (install libcurl4)",
                                                   " (libcurl 7.68 or newer is needed)", symbols, NULL);

void imgcache_curl_prepare_process(void) { setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0); }

int imgcache_curl_load(char *error) { return imgcache_library_load(&library, error); }

CURLcode imgcache_curl_global_init(long flags) { return api.global_init(flags); }
const char *imgcache_curl_easy_strerror(CURLcode code) { return api.easy_strerror(code); }
CURL *imgcache_curl_easy_init(void) { return api.easy_init(); }
void imgcache_curl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void imgcache_curl_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode imgcache_curl_easy_pause(CURL *handle, int bitmask) { return api.easy_pause(handle, bitmask); }

struct curl_slist *imgcache_curl_slist_append(struct curl_slist *list, const char *string) {
    return api.slist_append(list, string);
}

void imgcache_curl_slist_free_all(struct curl_slist *list) {
    if (list) {
        api.slist_free_all(list);
    }
}

CURLM *imgcache_curl_multi_init(void) { return api.multi_init(); }
CURLMcode imgcache_curl_multi_add_handle(CURLM *multi, CURL *handle) { return api.multi_add_handle(multi, handle); }
CURLMcode imgcache_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return api.multi_remove_handle(multi, handle); }
CURLMcode imgcache_curl_multi_perform(CURLM *multi, int *running) { return api.multi_perform(multi, running); }
CURLMcode imgcache_curl_multi_poll(CURLM *multi, int timeout_ms) { return api.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
CURLMcode imgcache_curl_multi_wakeup(CURLM *multi) { return api.multi_wakeup(multi); }
CURLMsg *imgcache_curl_multi_info_read(CURLM *multi, int *remaining) { return api.multi_info_read(multi, remaining); }
CURLMcode imgcache_curl_multi_cleanup(CURLM *multi) { return api.multi_cleanup(multi); }
CURLSH *imgcache_curl_share_init(void) { return api.share_init(); }
CURLSHcode imgcache_curl_share_cleanup(CURLSH *share) { return api.share_cleanup(share); }

CURLcode imgcache_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode imgcache_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode imgcache_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode imgcache_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode imgcache_curl_easy_setopt_write_callback(CURL *handle, curl_write_callback callback) {
    return api.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode imgcache_curl_easy_setopt_header_callback(CURL *handle, curl_write_callback callback) {
    return api.easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

CURLcode imgcache_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return api.easy_getinfo(handle, info, value);
}

CURLcode imgcache_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return api.easy_getinfo(handle, info, value);
}

CURLcode imgcache_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return api.easy_getinfo(handle, info, value);
}

CURLMcode imgcache_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return api.multi_setopt(multi, option, value);
}

CURLSHcode imgcache_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return api.share_setopt(share, option, value);
}
