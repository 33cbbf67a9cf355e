#if THREAD_SANITIZER
    /// Under ThreadSanitizer (`make sanitize`), locks are pthread mutexes TSan
    /// can see; see `PThreadMutex`. One alias for the whole package: a module
    /// that imports ImageCore (the executable, TestSupport, the test targets)
    /// gets it in place of Synchronization's `Mutex`, which ImageCore's own
    /// declaration shadows for its importers.
    package typealias Mutex = PThreadMutex
#endif
