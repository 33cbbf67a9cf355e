// Why a shim: PNG's CRC-32 over every chunk of a downloaded PNG was zlib's
// crc32, about 4 instructions a byte (a cold batch's PNGs: 41 M of its 533 M
// instructions, callgrind). Carry-less multiplication (PCLMULQDQ) folds 64
// bytes in a few instructions, as in Intel's paper "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ Instruction" (2009) and Chromium's zlib
// (crc32_simd.c); a CPU without it (or not x86-64) takes slicing-by-8 tables,
// made once on first use. Both give zlib's answers, which the tests check.
#include "CImageCoreShims.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/// Slicing-by-8 tables for the reflected polynomial 0xEDB88320: table[0] is
/// the byte-at-a-time table, table[k][n] the CRC of byte n followed by k zeros.
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        for (int k = 1; k < 8; k++) table[k][n] = table[0][table[k - 1][n] & 0xFF] ^ (table[k - 1][n] >> 8);
    }
}

/// The running (inverted) CRC `c` over `size` bytes, eight at a time.
static uint32_t crc_tables(uint32_t c, const uint8_t *bytes, size_t size) {
    while (size && ((uintptr_t)bytes & 7)) {
        c = table[0][(c ^ *bytes++) & 0xFF] ^ (c >> 8);
        size--;
    }
    while (size >= 8) {
        uint32_t low, high;
        memcpy(&low, bytes, 4);
        memcpy(&high, bytes + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        low = __builtin_bswap32(low);
        high = __builtin_bswap32(high);
#endif
        low ^= c;
        c = table[7][low & 0xFF] ^ table[6][(low >> 8) & 0xFF] ^ table[5][(low >> 16) & 0xFF] ^ table[4][low >> 24] ^
            table[3][high & 0xFF] ^ table[2][(high >> 8) & 0xFF] ^ table[1][(high >> 16) & 0xFF] ^ table[0][high >> 24];
        bytes += 8;
        size -= 8;
    }
    while (size--) c = table[0][(c ^ *bytes++) & 0xFF] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__)
/// Whether the CPU has PCLMULQDQ and SSE4.1 (cpuid leaf 1, ECX bits 1 and 19):
/// 1 or 0 once known, -1 before.
static int has_pclmul = -1;

static int cpu_has_pclmul(void) {
    int known = __atomic_load_n(&has_pclmul, __ATOMIC_RELAXED);
    if (known < 0) {
        unsigned eax, ebx, ecx, edx;
        known = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 1)) && (ecx & (1u << 19));
        __atomic_store_n(&has_pclmul, known, __ATOMIC_RELAXED);
    }
    return known;
}

/// The running (inverted) CRC `c` over `size` bytes, `size` at least 64
/// and a multiple of 16: four 128-bit lanes folded 64 bytes at a time, then
/// into one, then reduced to 32 bits (Barrett). The constants are powers of
/// x modulo the polynomial, bit-reflected, from the paper's appendix.
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_fold(uint32_t c, const uint8_t *bytes, size_t size) {
    static const uint64_t k1k2[2] __attribute__((aligned(16))) = {0x0154442bd4, 0x01c6e41596};
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = {0x01751997d0, 0x00ccaa009e};
    static const uint64_t k5k0[2] __attribute__((aligned(16))) = {0x0163cd6124, 0x0000000000};
    static const uint64_t poly[2] __attribute__((aligned(16))) = {0x01db710641, 0x01f7011641};
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;

    x1 = _mm_loadu_si128((const __m128i *)(bytes + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(bytes + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(bytes + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(bytes + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
    x0 = _mm_load_si128((const __m128i *)k1k2);
    bytes += 64;
    size -= 64;

    while (size >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        y5 = _mm_loadu_si128((const __m128i *)(bytes + 0x00));
        y6 = _mm_loadu_si128((const __m128i *)(bytes + 0x10));
        y7 = _mm_loadu_si128((const __m128i *)(bytes + 0x20));
        y8 = _mm_loadu_si128((const __m128i *)(bytes + 0x30));
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
        bytes += 64;
        size -= 64;
    }

    // Four lanes into one.
    x0 = _mm_load_si128((const __m128i *)k3k4);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);

    while (size >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)bytes);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        bytes += 16;
        size -= 16;
    }

    // 128 bits to 64.
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_loadl_epi64((const __m128i *)k5k0);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);

    // Barrett reduction to 32 bits.
    x0 = _mm_load_si128((const __m128i *)poly);
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

uint32_t imgcache_crc32(uint32_t crc, const void *data, size_t size) {
    const uint8_t *bytes = data;
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (size >= 64 && cpu_has_pclmul()) {
        size_t folded = size & ~(size_t)15;
        c = crc_fold(c, bytes, folded);
        bytes += folded;
        size -= folded;
    }
#endif
    if (size) {
        pthread_once(&table_once, make_tables);
        c = crc_tables(c, bytes, size);
    }
    return ~c;
}

int imgcache_crc32_folds(void) {
#if defined(__x86_64__)
    return cpu_has_pclmul();
#else
    return 0;
#endif
}

uint32_t imgcache_crc32_tables(uint32_t crc, const void *data, size_t size) {
    pthread_once(&table_once, make_tables);
    return ~crc_tables(~crc, data, size);
}
