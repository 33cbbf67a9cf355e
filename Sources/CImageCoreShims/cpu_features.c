#include "cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>

/// 1 or 0 once known, -1 before.
static int has_avx2 = -1;

int imgcache_cpu_has_avx2(void) {
    int known = __atomic_load_n(&has_avx2, __ATOMIC_RELAXED);
    if (known < 0) {
        unsigned eax, ebx, ecx, edx;
        known = 0;
        // OSXSAVE and AVX (leaf 1, ECX bits 27 and 28), YMM state enabled in XCR0, AVX2 (leaf 7, EBX bit 5).
        if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 27)) && (ecx & (1u << 28))) {
            unsigned xcr0_low, xcr0_high;
            __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
            known = (xcr0_low & 6) == 6 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 5));
        }
        __atomic_store_n(&has_avx2, known, __ATOMIC_RELAXED);
    }
    return known;
}
#endif
