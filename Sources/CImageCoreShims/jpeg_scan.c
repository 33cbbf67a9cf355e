// Why a shim: a JPEG's entropy-coded data is walked before a download is
// stored, to count its scans and require its end (JPEGMarkers.walk). Its
// 0xFF bytes are stuffed (0xFF 0x00) about every 250 bytes of a photo, and
// memchr, called again after each, spent most of its 63 instructions a call
// starting and ending (4.5 M of a cold batch's 270 M instructions, callgrind).
// These loops compare 128 (AVX2) or 64 (SSE2) bytes at a time with 0xFF, and
// the bytes after them with 0x00, so the scan never restarts and only a
// restart marker, a fill byte or the marker ending the data is read alone.
#include "imgcache_jpeg.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu_features.h"
#endif

/// Whether 0xFF then `next` is a marker: not a stuffed 0xFF (0x00), a
/// restart marker (0xD0-0xD7, which stays in the data) or a fill byte (0xFF).
static inline int ends_data(uint8_t next) { return next != 0x00 && next != 0xFF && (next & 0xF8) != 0xD0; }

/// The first marker among the 0xFF bytes at `base` + each set bit of `mask`
/// (each with a byte after it), or SIZE_MAX.
static inline size_t first_marker(const uint8_t *bytes, size_t base, uint64_t mask) {
    for (; mask; mask &= mask - 1) {
        size_t at = base + (size_t)__builtin_ctzll(mask);
        if (ends_data(bytes[at + 1])) return at;
    }
    return SIZE_MAX;
}

/// From `start` on, a byte at a time: for the last bytes, and where there are no vectors.
static size_t scan_bytes(const uint8_t *bytes, size_t size, size_t start) {
    for (size_t at = start; at + 1 < size; at++) {
        if (bytes[at] == 0xFF && ends_data(bytes[at + 1])) return at;
    }
    return size;
}

#if defined(__x86_64__)
// Both loops take 64 or 128 bytes a step, while a byte follows them: their
// 0xFF bytes first (most steps have none), then, in a step that has some, the
// bytes after them compared with 0x00 (a stuffed 0xFF, the usual one), and
// only the 0xFF left are read alone. Compared by the CPU's vectors
// (`_mm_cmpeq_epi8`: 0xFF in each equal byte's place, `_mm_movemask_epi8`:
// their top bits as a number).

/// SSE2, baseline x86-64: 64 bytes a step.
static size_t scan_sse2(const uint8_t *bytes, size_t size, size_t start) {
    const __m128i ff = _mm_set1_epi8((char)0xFF), zero = _mm_setzero_si128();
#define LOAD(offset) _mm_loadu_si128((const __m128i *)(p + (offset)))
    size_t at = start;
    for (; at + 64 < size; at += 64) {
        const uint8_t *p = bytes + at;
        __m128i a = _mm_cmpeq_epi8(LOAD(0), ff), b = _mm_cmpeq_epi8(LOAD(16), ff);
        __m128i c = _mm_cmpeq_epi8(LOAD(32), ff), d = _mm_cmpeq_epi8(LOAD(48), ff);
        if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))) continue;
        a = _mm_andnot_si128(_mm_cmpeq_epi8(LOAD(1), zero), a);
        b = _mm_andnot_si128(_mm_cmpeq_epi8(LOAD(17), zero), b);
        c = _mm_andnot_si128(_mm_cmpeq_epi8(LOAD(33), zero), c);
        d = _mm_andnot_si128(_mm_cmpeq_epi8(LOAD(49), zero), d);
        uint64_t mask = (uint64_t)(uint16_t)_mm_movemask_epi8(a) | (uint64_t)(uint16_t)_mm_movemask_epi8(b) << 16 |
                        (uint64_t)(uint16_t)_mm_movemask_epi8(c) << 32 | (uint64_t)(uint16_t)_mm_movemask_epi8(d) << 48;
        size_t found = first_marker(bytes, at, mask);
        if (found != SIZE_MAX) return found;
    }
#undef LOAD
    return scan_bytes(bytes, size, at);
}

/// AVX2: 128 bytes a step; then SSE2 for the rest.
__attribute__((target("avx2"))) static size_t scan_avx2(const uint8_t *bytes, size_t size, size_t start) {
    const __m256i ff = _mm256_set1_epi8((char)0xFF), zero = _mm256_setzero_si256();
#define LOAD(offset) _mm256_loadu_si256((const __m256i *)(p + (offset)))
    size_t at = start;
    for (; at + 128 < size; at += 128) {
        const uint8_t *p = bytes + at;
        __m256i a = _mm256_cmpeq_epi8(LOAD(0), ff), b = _mm256_cmpeq_epi8(LOAD(32), ff);
        __m256i c = _mm256_cmpeq_epi8(LOAD(64), ff), d = _mm256_cmpeq_epi8(LOAD(96), ff);
        if (!_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)))) continue;
        a = _mm256_andnot_si256(_mm256_cmpeq_epi8(LOAD(1), zero), a);
        b = _mm256_andnot_si256(_mm256_cmpeq_epi8(LOAD(33), zero), b);
        c = _mm256_andnot_si256(_mm256_cmpeq_epi8(LOAD(65), zero), c);
        d = _mm256_andnot_si256(_mm256_cmpeq_epi8(LOAD(97), zero), d);
        if (!_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)))) continue;
        uint64_t low = (uint64_t)(uint32_t)_mm256_movemask_epi8(a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
        uint64_t high = (uint64_t)(uint32_t)_mm256_movemask_epi8(c) | (uint64_t)(uint32_t)_mm256_movemask_epi8(d) << 32;
        size_t found = first_marker(bytes, at, low);
        if (found == SIZE_MAX) found = first_marker(bytes, at + 64, high);
        if (found != SIZE_MAX) return found;
    }
#undef LOAD
    return scan_sse2(bytes, size, at);
}
#endif

size_t imgcache_jpeg_entropy_end(const uint8_t *bytes, size_t size, size_t start) {
    if (start >= size) return size;
#if defined(__x86_64__)
    return imgcache_cpu_has_avx2() ? scan_avx2(bytes, size, start) : scan_sse2(bytes, size, start);
#else
    return scan_bytes(bytes, size, start);
#endif
}
