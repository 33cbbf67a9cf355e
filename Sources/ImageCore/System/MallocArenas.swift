internal import CImageCoreShims

/// glibc gives each thread that allocates its own heap, up to eight per
/// core, and each heap keeps the memory freed into it: with a dozen threads
/// (the cooperative pool, Dispatch's workers, the download loop) peak memory
/// grows with the length of a URL list. One heap keeps memory flat but
/// makes every thread queue on its lock: a cold prefetch then spent a
/// tenth of its CPU time in futex calls and context switches. Three heaps
/// (the download loop and the two cooperative threads of a 2-core machine
/// each get one; more threads share them) cut a cold prefetch of 1000
/// images on tmpfs from 0.16 to 0.13 s wall (0.20 to 0.16 s CPU) and a warm
/// one from 35 to 27 ms, for the same peak on 100 000 URLs (about 23 MiB,
/// with `prefetch`'s window trimmed to match). For the command line
/// (package access).
package enum MallocArenas {
    /// How many heaps the process may have.
    static let count = 3

    /// Caps the heaps at `count`; call before any thread starts. The
    /// corresponding C function is `mallopt` (`M_ARENA_MAX`).
    package static func limit() {
        _ = imgcache_limit_malloc_arenas(Int32(count))
    }
}
