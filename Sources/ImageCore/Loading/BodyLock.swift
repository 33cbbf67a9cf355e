import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `flock` lock on a finished download's shared partial body, held from
/// the end of the transfer until the body is renamed into the cache (or
/// removed): while it is held no other process writes into that file, so
/// the body can become the entry under its own name, with one rename.
/// It takes over the transfer's descriptor of the locked file.
public final class BodyLock: Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes over `file`'s descriptor, and with it the lock.
    init(holding file: OpenFile) {
        descriptor = Mutex(file.takeDescriptor())
    }

    /// Releases the lock (once). The corresponding C function is `close`.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            POSIXFile.close(fd)
            fd = -1
        }
    }

    deinit { release() }
}
