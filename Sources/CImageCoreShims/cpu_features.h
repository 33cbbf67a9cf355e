#ifndef IMGCACHE_CPU_FEATURES_H
#define IMGCACHE_CPU_FEATURES_H

// A private header (not under include/): Swift never sees it.
// Why one place: the build targets baseline x86-64 (SSE2), and the shims'
// vector kernels (XXH3's long-input loop, the JPEG entropy-coded data scan)
// choose their AVX2 code at run time through this one test.

#if defined(__x86_64__)
/// Whether the CPU has AVX2 and the kernel saves its registers (asked once,
/// from any thread). Valgrind's CPU answers as this one does for AVX2.
int imgcache_cpu_has_avx2(void);
#endif

#endif
