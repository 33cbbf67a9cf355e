#if THREAD_SANITIZER
    /// Under ThreadSanitizer (`make sanitize`), locks this module takes are
    /// pthread mutexes TSan can see; see `PThreadMutex`.
    typealias Mutex = PThreadMutex
#endif
