#define _GNU_SOURCE // sched_getaffinity and CPU_COUNT
#include "decoding_threads.h"

#include <sched.h>
#include <stdlib.h>

/// Decodes using more than one thread now, across every format of the process.
static int decodes_busy;

/// The CPUs this process may run on, as libjxl's JxlThreadParallelRunnerDefaultNumWorkerThreads
/// would say if it did not count every CPU of the machine.
static size_t available_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? (size_t)count : 1;
}

size_t imgcache_decoding_threads_share(const char *cap, size_t busy) {
    // The cap replaces the share (1: the calling thread alone); tests set it
    // above the CPU count to have work finish out of order on any machine.
    const char *wanted = getenv(cap);
    if (wanted && *wanted) {
        long count = strtol(wanted, NULL, 10);
        return count > 1 ? (size_t)(count > 64 ? 64 : count) : 1;
    }
    // Decodes already running share the CPUs: with `prefetch -j6`, the first
    // takes them all and later ones, while it runs, take their share.
    size_t cpus = available_cpus();
    return cpus / (busy + 1) > 1 ? cpus / (busy + 1) : 1;
}

size_t imgcache_decoding_threads_begin(const char *cap) {
    size_t busy = (size_t)__atomic_fetch_add(&decodes_busy, 1, __ATOMIC_RELAXED);
    size_t threads = imgcache_decoding_threads_share(cap, busy);
    if (threads <= 1) __atomic_fetch_sub(&decodes_busy, 1, __ATOMIC_RELAXED);
    return threads;
}

void imgcache_decoding_threads_end(size_t threads) {
    if (threads > 1) __atomic_fetch_sub(&decodes_busy, 1, __ATOMIC_RELAXED);
}
