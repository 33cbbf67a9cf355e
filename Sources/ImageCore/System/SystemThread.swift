#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread of its own, for work that blocks for a whole run (the
/// curl loop, the executable's signal reader) and must not hold one of the
/// concurrency runtime's or Dispatch's few threads.
package struct SystemThread: @unchecked Sendable {
    // Why unchecked: a pthread_t is an opaque handle, joined or detached once.
    private let handle: pthread_t

    /// Starts `body` on a new thread. Throws `.failure` if the system
    /// refuses one. The corresponding C function is `pthread_create`.
    package static func start(_ body: @escaping @Sendable () -> Void) throws -> SystemThread {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var handle = pthread_t()
        let started = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw ImageCoreError(.failure, "cannot start a thread: \(systemErrorMessage(started))")
        }
        return SystemThread(handle: handle)
    }

    /// Waits for the thread to end. The corresponding C function is `pthread_join`.
    package func join() {
        pthread_join(handle, nil)
    }

    /// Lets the thread end on its own. The corresponding C function is `pthread_detach`.
    package func detach() {
        pthread_detach(handle)
    }
}
