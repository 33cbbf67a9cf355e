#if canImport(Glibc)
import Glibc
#endif

/// Per-key locks across processes, held while one process downloads a URL,
/// so that other processes wanting the same URL at the same moment wait for
/// its entry instead of downloading it again. They are one-byte `fcntl`
/// record locks on one file, `downloads.lock` in the cache directory, at an
/// offset taken from the key's hash: no file is created per download, and
/// the kernel drops a dead process's locks. An optimisation, not a guarantee: a lost
/// race (or two keys sharing an offset, 1 in 2⁶⁰) costs a second download or
/// a wait, never a wrong entry, since every store is atomic.
///
/// Thread safety: the descriptor never changes; `fcntl` calls from several
/// threads are fine. Record locks belong to the process, so two loads of one
/// key in one process must be coalesced before they get here (they are).
final class DownloadLocks: Sendable {
    private let fd: Int32

    /// Opens (creating) the lock file in `directory`; nil if that fails, and
    /// then downloads simply do not coordinate.
    init?(directory: String) {
        fd = open("\(directory)/downloads.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
    }

    deinit {
        close(fd)
    }

    /// Takes the lock for `hash` if no other process holds it.
    func tryLock(_ hash: String) -> Bool {
        var lock = Self.range(hash, type: F_WRLCK)
        return fcntl(fd, F_SETLK, &lock) == 0
    }

    /// Whether another process holds the lock for `hash`.
    func isHeldElsewhere(_ hash: String) -> Bool {
        var lock = Self.range(hash, type: F_WRLCK)
        return fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    /// Releases the lock for `hash`.
    func unlock(_ hash: String) {
        var lock = Self.range(hash, type: F_UNLCK)
        _ = fcntl(fd, F_SETLK, &lock)
    }

    private static func range(_ hash: String, type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(Int64(hash.prefix(15), radix: 16) ?? 0)
        lock.l_len = 1
        return lock
    }
}
