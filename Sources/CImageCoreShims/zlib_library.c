// zlib (PNG's iCCP and CRC-32, outside libpng), loaded on first use
// (library_loader.h says how and why); libpng loads the same copy.
#include "library_loader.h"
#include "codec_libraries.h"

#include <zlib.h>

#define ZLIB_FUNCTIONS(F, V, N)                                                                               \
    F(int, compress2, (Bytef * out, uLongf *out_size, const Bytef *in, uLong in_size, int level),             \
      (out, out_size, in, in_size, level))                                                                    \
    F(uLong, compressBound, (uLong size), (size))                                                             \
    F(uLong, crc32, (uLong crc, const Bytef *bytes, uInt count), (crc, bytes, count))                         \
    F(int, inflate, (z_streamp stream, int flush), (stream, flush))                                           \
    F(int, inflateEnd, (z_streamp stream), (stream))                                                          \
    F(int, inflateInit_, (z_streamp stream, const char *version, int size), (stream, version, size))

ZLIB_FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)
IMGCACHE_SYMBOLS(ZLIB_FUNCTIONS);
static imgcache_library library =
    IMGCACHE_LIBRARY("libz.so.1", "cannot load zlib (install zlib1g)", "", symbols, NULL);
ZLIB_FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)

// Why: a missing library is the error of the image (or store) that needed it,
// reported before the first forwarder could end the process (codec_libraries.h).
int imgcache_zlib_library_load(char *error) { return imgcache_library_load(&library, error); }
