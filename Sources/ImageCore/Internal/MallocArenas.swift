internal import CImageCoreShims

/// glibc gives each thread that allocates its own heap, up to eight per
/// core. A long prefetch allocates small, short-lived values on a dozen
/// threads (the cooperative pool, Dispatch's workers, the download loop),
/// and each heap keeps the memory freed into it: peak memory then grows
/// with the length of the URL list. Two heaps keep it flat at the cost of
/// a little contention. For the command line (package access).
package enum MallocArenas {
    /// Caps the heaps at two; call before any thread starts. The
    /// corresponding C function is `mallopt` (`M_ARENA_MAX`).
    package static func limit() {
        _ = imgcache_limit_malloc_arenas(2)
    }
}
