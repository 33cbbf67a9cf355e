// Why a shim: xxHash is used header-only (XXH_INLINE_ALL), so its code is
// compiled in here and no extra shared library is loaded at start-up; and
// OpenSSL's SHA256 lives in libcrypto, which this file alone calls.
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <openssl/sha.h>

#include "CImageCoreShims.h"

void imgcache_sha256(const void *data, size_t size, uint8_t digest[32]) {
    SHA256((const unsigned char *)data, size, digest);
}

void imgcache_xxh3_128(const void *data, size_t size, uint8_t digest[16]) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
    for (int i = 0; i < 16; i++) digest[i] = canonical.digest[i];
}
