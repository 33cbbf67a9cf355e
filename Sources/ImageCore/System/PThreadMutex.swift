#if canImport(Glibc)
    import Glibc
#endif

/// A lock with `Synchronization.Mutex`'s interface over a pthread mutex.
///
/// Why it exists: ThreadSanitizer cannot see the raw futex calls inside
/// `Synchronization.Mutex` on Linux and reports races on correct code
/// (`scripts/tsan-repro/MutexRace.swift`). Builds for `make sanitize`
/// define `THREAD_SANITIZER`, and each module then aliases `Mutex` to this
/// type (see its `System/SanitizerLocks.swift`), whose pthread calls TSan
/// intercepts. Ordinary builds use `Synchronization.Mutex`.
package final class PThreadMutex<Value>: @unchecked Sendable {
    // Why unchecked: `value`'s pointee is only touched between lock and unlock.
    // Why a pointer, not a stored `var`: Swift lays out a stored property of
    // an empty type (`Mutex(())`) at offset 0, on the object's header. TSan
    // then takes the exclusivity check's modifying access inside the lock for
    // a write to the header, which every caller reads before it locks, and
    // reports a race on correct code (StandardStreams' lock under `-v`). A
    // pointee has an address of its own and no exclusivity check.
    private let value: UnsafeMutablePointer<Value>
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock guarding `initialValue`.
    package init(_ initialValue: sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }
}
