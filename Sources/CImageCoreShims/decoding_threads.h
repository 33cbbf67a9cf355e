#ifndef IMGCACHE_DECODING_THREADS_H
#define IMGCACHE_DECODING_THREADS_H

#include <stddef.h>

// A private header (not under include/): Swift never sees it; each codec's
// shim offers its own call (imgcache_jxl_runner_create, imgcache_hevc_workers_begin).
// Why one budget: decodes that spread over threads (a JPEG XL's libjxl pool,
// a HEIC grid's tiles) share the CPUs the process may use, so `prefetch -j`
// starts no more threads than CPUs between them, whatever the formats.

/// The threads a decode starting now may use while `busy` others use
/// more than one: the CPUs the process may run on (sched_getaffinity, so
/// `taskset` and cgroup cpusets count) divided among them, at least 1; or,
/// when the environment variable `cap` is set, its number (1 to 64).
size_t imgcache_decoding_threads_share(const char *cap, size_t busy);

/// The threads a decode starting now may use (imgcache_decoding_threads_share),
/// counted among the busy ones when more than 1 until imgcache_decoding_threads_end.
size_t imgcache_decoding_threads_begin(const char *cap);

/// Ends a count of imgcache_decoding_threads_begin; `threads` is what it returned.
void imgcache_decoding_threads_end(size_t threads);

#endif
