#if THREAD_SANITIZER
    /// Under ThreadSanitizer (`make sanitize`), locks are pthread mutexes TSan
    /// can see; see `PThreadMutex`. One alias for the whole package: a module
    /// that imports ImageCore (the executable, TestSupport, the test targets)
    /// gets it in place of Synchronization's `Mutex`, which ImageCore's own
    /// declaration shadows for its importers.
    package typealias Mutex = PThreadMutex
#endif

/// An edge ThreadSanitizer can see where a value passes from libcurl's loop
/// thread to the task awaiting it through a continuation. The continuation
/// orders the two (its resume is a release, its await an acquire), but
/// TSan misses that when the resume comes before the task has suspended
/// (a loopback transfer finished while the task was still on its way to
/// the await), and reported a race on the `BodyLock` the loop made for it
/// (a Swift TSan blind spot: swiftlang/swift#57803). Under `make sanitize`
/// both sides take one pthread mutex, which TSan sees; elsewhere nothing.
/// Used wherever a thread not the concurrency runtime's resumes a task
/// with what it made: libcurl's loop (`CurlTransfer`, `CurlMultiLoop`),
/// Dispatch's (`runInBackground`; the executable's `LineReader`).
package enum SanitizerHandOff {
    #if THREAD_SANITIZER
        private static let lock = PThreadMutex(())
    #endif

    /// On the handing thread, after the value is made and before the resume.
    @inline(__always) package static func publish() {
        #if THREAD_SANITIZER
            lock.withLock { _ in }
        #endif
    }

    /// In the task, once its await has returned or thrown.
    @inline(__always) package static func receive() {
        #if THREAD_SANITIZER
            lock.withLock { _ in }
        #endif
    }
}
