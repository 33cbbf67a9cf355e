// hiredis, loaded on first use (library_loader.h says how and why): only a
// run with a Redis remote storage connects to one.
#include "library_loader.h"
#include "codec_libraries.h"

#include <hiredis/hiredis.h>

#define HIREDIS_STRING(x) #x
#define HIREDIS_TEXT(x) HIREDIS_STRING(x)

#define HIREDIS_FUNCTIONS(F, V, N)                                                                            \
    V(void, freeReplyObject, (void *reply), (reply))                                                          \
    F(void *, redisCommandArgv, (redisContext * context, int count, const char **arguments, const size_t *lengths), \
      (context, count, arguments, lengths))                                                                   \
    F(redisContext *, redisConnectWithTimeout, (const char *ip, int port, const struct timeval timeout),     \
      (ip, port, timeout))                                                                                    \
    V(void, redisFree, (redisContext * context), (context))                                                   \
    F(int, redisSetTimeout, (redisContext * context, const struct timeval timeout), (context, timeout))

HIREDIS_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(HIREDIS_FUNCTIONS);
// The soname the installed header names (0.14 on Debian 12, 1.1.0 later):
// hiredis changes redisContext between them.
static imgcache_library library =
    IMGCACHE_LIBRARY("libhiredis.so." HIREDIS_TEXT(HIREDIS_SONAME),
                     "cannot load hiredis (install libhiredis" HIREDIS_TEXT(HIREDIS_SONAME) ")", "", symbols, NULL);
HIREDIS_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_hiredis_library_load(char *error) { return imgcache_library_load(&library, error); }
