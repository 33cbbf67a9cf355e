#if THREAD_SANITIZER
    @testable import ImageCore

    /// Under ThreadSanitizer (`make sanitize`), locks this module takes are
    /// pthread mutexes TSan can see; see `PThreadMutex`.
    typealias Mutex = PThreadMutex
#endif
