// Why a shim: xxHash is used header-only (XXH_INLINE_ALL), so its code is
// compiled in here and no extra shared library is loaded at start-up; and
// SHA-256 comes from Nettle, which this file alone calls.
// Why Nettle, not OpenSSL's libcrypto: every warm cache hit hashes its URL,
// and merely loading libcrypto 3 and running its initialisation costs a
// start-up about 0.5 ms and 1.4 MiB of resident memory (measured with a C
// program of one hash each: 1.5 ms and 2.7 MiB with libcrypto, 1.0 ms and
// 1.3 MiB with libnettle, whose runtime GnuTLS already needs).
//
// Why AVX2 chosen at run time: the build targets baseline x86-64 (SSE2), and
// XXH3's long-input loop with AVX2 takes half the instructions a byte (a cold
// batch's checksums: 26 M of its instructions). XXH_DISPATCH_AVX2 compiles
// xxHash's AVX2 accumulator beside the SSE2 one, under a target attribute,
// as its own xxh_x86dispatch.c does (not shipped by Debian); inputs up to
// 240 bytes take the same scalar path either way, and both give the same hash.
#if defined(__x86_64__)
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((target("avx2")))
#define XXH_ACC_ALIGN 32
#include <immintrin.h>
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <nettle/pbkdf2.h>
#include <nettle/sha2.h>

#include "CImageCoreShims.h"
#include "cpu_features.h"

void imgcache_sha256(const void *data, size_t size, uint8_t digest[32]) {
    struct sha256_ctx context;
    sha256_init(&context);
    sha256_update(&context, size, data);
    sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
}

void imgcache_pbkdf2_sha256(const void *secret, size_t secret_size, const void *salt, size_t salt_size,
                            unsigned iterations, uint8_t digest[32]) {
    pbkdf2_hmac_sha256(secret_size, secret, iterations, salt_size, salt, SHA256_DIGEST_SIZE, digest);
}

#if defined(__x86_64__)
/// XXH3-128's loop over an input longer than 240 bytes, with AVX2.
XXH_TARGET_AVX2 static XXH128_hash_t xxh3_long_avx2(const void *input, size_t size, XXH64_hash_t seed,
                                                     const void *secret, size_t secret_size) {
    (void)seed, (void)secret, (void)secret_size;
    return XXH3_hashLong_128b_internal(input, size, XXH3_kSecret, sizeof(XXH3_kSecret), XXH3_accumulate_512_avx2,
                                       XXH3_scrambleAcc_avx2);
}
#endif

void imgcache_xxh3_128(const void *data, size_t size, uint8_t digest[16]) {
    XXH128_canonical_t canonical;
#if defined(__x86_64__)
    XXH128_hash_t hash =
        size > XXH3_MIDSIZE_MAX && imgcache_cpu_has_avx2()
            ? XXH3_128bits_internal(data, size, 0, XXH3_kSecret, sizeof(XXH3_kSecret), xxh3_long_avx2)
            : XXH3_128bits(data, size);
#else
    XXH128_hash_t hash = XXH3_128bits(data, size);
#endif
    XXH128_canonicalFromHash(&canonical, hash);
    for (int i = 0; i < 16; i++) digest[i] = canonical.digest[i];
}
