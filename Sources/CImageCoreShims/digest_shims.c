// Why a shim: xxHash is used header-only (XXH_INLINE_ALL), so its code is
// compiled in here and no extra shared library is loaded at start-up; and
// SHA-256 comes from Nettle, which this file alone calls.
// Why Nettle, not OpenSSL's libcrypto: every warm cache hit hashes its URL,
// and merely loading libcrypto 3 and running its initialisation costs a
// start-up about 0.5 ms and 1.4 MiB of resident memory (measured with a C
// program of one hash each: 1.5 ms and 2.7 MiB with libcrypto, 1.0 ms and
// 1.3 MiB with libnettle, whose runtime GnuTLS already needs).
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <nettle/sha2.h>

#include "CImageCoreShims.h"

void imgcache_sha256(const void *data, size_t size, uint8_t digest[32]) {
    struct sha256_ctx context;
    sha256_init(&context);
    sha256_update(&context, size, data);
    sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
}

void imgcache_xxh3_128(const void *data, size_t size, uint8_t digest[16]) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
    for (int i = 0; i < 16; i++) digest[i] = canonical.digest[i];
}
