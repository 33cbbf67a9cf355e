#if canImport(Glibc)
import Glibc
#endif

/// A per-key lock across processes (`flock` on `tmp/<hash>.lock`), held
/// while one process downloads a URL, so that other processes wanting the
/// same URL at the same moment wait for its entry instead of downloading it
/// again. The kernel drops the lock if its holder dies. It is an
/// optimisation, not a guarantee: a lost race costs a second download,
/// never a wrong entry, since every store is atomic.
final class DownloadLock: Sendable {
    private let fd: Int32
    private let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Takes the lock at once, or returns nil if another process holds it
    /// (or the file cannot be made: then nobody waits).
    static func take(_ path: String) -> DownloadLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return DownloadLock(fd: fd, path: path)
    }

    /// Whether another process holds the lock now.
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return false }
        return errno == EWOULDBLOCK
    }

    /// Releases the lock and removes its file.
    func release() {
        unlink(path)
        close(fd)
    }
}
