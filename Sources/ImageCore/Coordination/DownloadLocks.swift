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
        guard let fd = RecordLock.openFile("\(directory)/downloads.lock") else { return nil }
        self.fd = fd
    }

    deinit {
        RecordLock.closeFile(fd)
    }

    /// Takes the lock for `hash` if no other process holds it.
    func tryLock(_ hash: String) -> Bool {
        RecordLock.tryLock(fd, at: Self.offset(hash))
    }

    /// Whether another process holds the lock for `hash`.
    func isHeldElsewhere(_ hash: String) -> Bool {
        RecordLock.isHeldElsewhere(fd, at: Self.offset(hash))
    }

    /// Releases the lock for `hash`.
    func unlock(_ hash: String) {
        RecordLock.unlock(fd, at: Self.offset(hash))
    }

    /// The byte locked for a key: its hash's first 60 bits (its first 15
    /// hex digits; 0 if one is not). Read over the UTF-8 bytes where the
    /// string keeps them: `prefix(15)` walked graphemes, 1 k instructions for
    /// each of a URL's lock and unlock, and the `UTF8View`'s 0.76 k.
    static func offset(_ hash: String) -> Int64 {
        var hash = hash
        return hash.withUTF8 { bytes in
            var value: Int64 = 0
            for byte in bytes.prefix(15) {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x61...0x66: digit = byte - 0x61 + 10
                case 0x41...0x46: digit = byte - 0x41 + 10
                default: return 0
                }
                value = value << 4 | Int64(digit)
            }
            return value
        }
    }
}
