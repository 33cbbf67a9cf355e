// Why a shim: xxHash is used header-only (XXH_INLINE_ALL), so its code is
// compiled in here and no extra shared library is loaded at start-up; and
// OpenSSL's SHA256 lives in libcrypto, which this file alone calls.
// Why the low-level SHA256_Init/Update/Final that OpenSSL 3 deprecates: the
// one-shot SHA256() goes through EVP_Q_digest, which loads the default
// provider and reads openssl.cnf on first use, a tenth of a warm cache hit.
#define OPENSSL_SUPPRESS_DEPRECATED
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <openssl/sha.h>

#include "CImageCoreShims.h"

void imgcache_sha256(const void *data, size_t size, uint8_t digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, size);
    SHA256_Final(digest, &context);
}

void imgcache_xxh3_128(const void *data, size_t size, uint8_t digest[16]) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
    for (int i = 0; i < 16; i++) digest[i] = canonical.digest[i];
}
