#if canImport(Glibc)
    import Glibc
#endif

/// One-byte `fcntl` record locks on an open file: many independent locks in
/// one file, owned by the process and dropped by the kernel when it dies.
/// Safe to call from any thread on a descriptor that does not change.
enum RecordLock {
    /// Opens (creating, mode 0600) the file that holds the locks; nil if that
    /// fails. The corresponding C function is `open`.
    static func openFile(_ path: String) -> Int32? {
        let fd = POSIXFile.retryingInterrupts { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        return fd >= 0 ? fd : nil
    }

    /// Closes a file opened by `openFile`, dropping its locks. The corresponding C function is `close`.
    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Takes the write lock on the byte at `offset` if no other process holds
    /// it. The corresponding C function is `fcntl` with `F_SETLK`.
    static func tryLock(_ fd: Int32, at offset: Int64) -> Bool {
        var lock = range(offset, type: F_WRLCK)
        return fcntl(fd, F_SETLK, &lock) == 0
    }

    /// Whether another process holds the lock on the byte at `offset`. The
    /// corresponding C function is `fcntl` with `F_GETLK`.
    static func isHeldElsewhere(_ fd: Int32, at offset: Int64) -> Bool {
        var lock = range(offset, type: F_WRLCK)
        return fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    /// Releases the lock on the byte at `offset`. The corresponding C function is `fcntl` with `F_SETLK`.
    static func unlock(_ fd: Int32, at offset: Int64) {
        var lock = range(offset, type: F_UNLCK)
        _ = fcntl(fd, F_SETLK, &lock)
    }

    private static func range(_ offset: Int64, type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        return lock
    }
}
