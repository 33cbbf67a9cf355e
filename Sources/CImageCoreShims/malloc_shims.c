// Why a shim: mallopt and its M_* constants are in <malloc.h>, which
// Swift's Glibc module does not export.
#include <malloc.h>

#include "CImageCoreShims.h"

int imgcache_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
