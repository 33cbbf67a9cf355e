#include "library_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

/// Opens and resolves; called with the lock held, once. Returns 1 or -1.
static int resolve(imgcache_library *library) {
    // Why RTLD_LAZY: RTLD_NOW bound every function libcurl and its own
    // libraries (OpenSSL, nghttp2, libssh2, GSSAPI, LDAP...) import before
    // the first call, 15.6 M instructions, as much as a whole `curl` run of
    // one URL, which binds lazily; lazily, only the functions called are
    // bound, on their first call. The functions imgcache calls are still
    // resolved here (dlsym below), and a library linked with -z now is
    // bound at once either way.
    void *handle = dlopen(library->soname, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        snprintf(library->error, sizeof library->error, "%s: %s", library->missing, dlerror());
        return -1;
    }
    for (size_t i = 0; i < library->symbol_count; i++) {
        const imgcache_library_symbol *symbol = &library->symbols[i];
        *symbol->slot = dlsym(handle, symbol->name);
        if (!*symbol->slot) {
            snprintf(library->error, sizeof library->error, "%s lacks %s%s", library->soname, symbol->name,
                     library->too_old);
            // Keep the library mapped: a half-filled table is never called
            // (the state says failed), and dlclose would gain nothing.
            return -1;
        }
    }
    if (library->loaded) {
        library->loaded();
    }
    return 1;
}

int imgcache_library_load(imgcache_library *library, char *error) {
    // Why an acquire load before the lock: AVIF and ICC call this once per
    // image; after the first load they read one word and take no lock.
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&library->lock);
        state = library->state;
        if (state == 0) {
            state = resolve(library);
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    if (state < 0) {
        snprintf(error, 256, "%s", library->error);
        return -1;
    }
    return 0;
}

void imgcache_library_require(imgcache_library *library) {
    char error[256];
    if (imgcache_library_load(library, error) != 0) {
        // _exit: other threads may be running; one line on stderr, as the
        // dynamic loader's own refusal would have been.
        fprintf(stderr, "imgcache: %s\n", error);
        fflush(stderr);
        _exit(1);
    }
}
