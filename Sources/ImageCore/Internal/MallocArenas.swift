internal import CImageCoreShims

/// glibc gives each thread that allocates its own heap, up to eight per
/// core. A long prefetch allocates small, short-lived values on a dozen
/// threads (the cooperative pool, Dispatch's workers, the download loop),
/// and each heap keeps the memory freed into it: peak memory then grows
/// with the length of the URL list. One heap keeps it flat: a cold
/// prefetch of 1000 images at `-j 6` measured no slower with it, and one
/// of 100 000 URLs took half a MiB less than with two heaps. For the
/// command line (package access).
package enum MallocArenas {
    /// Caps the heaps at one; call before any thread starts. The
    /// corresponding C function is `mallopt` (`M_ARENA_MAX`).
    package static func limit() {
        _ = imgcache_limit_malloc_arenas(1)
    }
}
