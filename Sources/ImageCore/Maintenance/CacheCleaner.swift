#if canImport(Glibc)
    import Glibc
#endif

/// Expires and trims a cache directory (what `clean` runs, and what a
/// process runs after storing when `max-size` is set). Only one cleaner runs
/// at a time per directory: it holds an exclusive `flock` on `clean.lock`,
/// which the kernel releases if the cleaner is killed, so it can never be
/// held forever. Readers and writers take no lock: an entry disappears
/// record first, so they see it whole or not at all.
public struct CacheCleaner: Sendable {
    /// What one run removed (or, for a dry run, would remove).
    public struct Report: Sendable, Equatable {
        /// Entries removed for age.
        public var expiredEntries = 0
        /// Entries removed to fit the size limit.
        public var evictedEntries = 0
        /// Bytes those entries held.
        public var bytesRemoved = 0
        /// Failed-URL records past their expiry.
        public var failedRecordsRemoved = 0
        /// Temporary and stray files older than the grace period.
        public var strayFilesRemoved = 0
        /// Entries and bytes left.
        public var entriesLeft = 0
        /// Bytes left in whole entries.
        public var bytesLeft = 0
        /// Whether another cleaner was running, so nothing was done.
        public var skippedBecauseBusy = false
    }

    /// Temporary files younger than this may belong to a running process.
    public static let strayGracePeriod: Double = 3600

    private let directory: CacheDirectory
    private let events: EventLog

    /// A cleaner for `directory`.
    public init(directory: CacheDirectory, events: EventLog = .silent) {
        self.directory = directory
        self.events = events
    }

    /// Removes entries unused for longer than `maxAge` (if given), then the
    /// least recently used until the entries fit `maxSize` (if given), then
    /// expired failed-URL records and stray files older than an hour.
    public func clean(
        maxAge: Double?, maxSize: Int?, dryRun: Bool = false, waitForLock: Bool = true,
        now: Double = WallClock.now()
    ) throws -> Report {
        var report = Report()
        guard let lock = try CleanLock(directory: directory, wait: waitForLock) else {
            report.skippedBecauseBusy = true
            return report
        }
        defer { lock.release() }

        let inventory = CacheInventory.scan(directory)
        // Expired entries go in the order the scan found them, shard by
        // shard, as `find -delete` does: removing files spread over every
        // directory, in order of last use, scatters the unlinks.
        var keep: [CacheInventory.Item] = []
        for item in inventory.items {
            if let maxAge, now - item.lastUsed > maxAge {
                report.expiredEntries += 1
                report.bytesRemoved += item.bytes
                if !dryRun {
                    removeEntry(item, why: "unused for \(Quantities.formatDuration((now - item.lastUsed).rounded()))")
                }
            } else {
                keep.append(item)
            }
        }
        var total = keep.reduce(0) { $0 + $1.bytes }
        if let maxSize, total > maxSize {
            keep.sort { $0.lastUsed < $1.lastUsed }
            var index = 0
            while total > maxSize && index < keep.count {
                let item = keep[index]
                total -= item.bytes
                report.evictedEntries += 1
                report.bytesRemoved += item.bytes
                if !dryRun { removeEntry(item, why: "cache over \(Quantities.formatSize(maxSize))") }
                index += 1
            }
            keep.removeFirst(index)
        }
        report.entriesLeft = keep.count
        report.bytesLeft = total

        for stray in inventory.strayFiles where now - stray.modified > Self.strayGracePeriod {
            report.strayFilesRemoved += 1
            if !dryRun { _ = try? POSIXFile.remove(stray.path) }
        }
        for partial in inventory.partialFiles where now - partial.modified > CacheDirectory.partialMaxAge {
            report.strayFilesRemoved += 1
            if !dryRun { _ = try? POSIXFile.remove(partial.path) }
        }
        for name in POSIXFile.list(directory.temporary) {
            let path = "\(directory.temporary)/\(name)"
            // Bodies kept for a resume are worth a day; other leftovers an hour.
            let resumable = name.hasSuffix(".partial") || name.hasSuffix(".partial.resume")
            let grace = resumable ? CacheDirectory.partialMaxAge : Self.strayGracePeriod
            if let status = POSIXFile.status(path), now - status.modified > grace {
                report.strayFilesRemoved += 1
                if !dryRun { _ = try? POSIXFile.remove(path) }
            }
        }
        report.failedRecordsRemoved = removeExpiredFailures(now: now, dryRun: dryRun)
        return report
    }

    private func removeEntry(_ item: CacheInventory.Item, why: String) {
        events.emit("evicted \(item.hash) (\(why))")
        // The record goes first: once it is gone no reader can reach the bytes.
        _ = try? POSIXFile.remove(directory.metadataPath(item.hash))
        for path in item.dataPaths { _ = try? POSIXFile.remove(path) }
    }

    private func removeExpiredFailures(now: Double, dryRun: Bool) -> Int {
        var removed = 0
        for shard in POSIXFile.list(directory.failed) {
            let shardPath = "\(directory.failed)/\(shard)"
            for name in POSIXFile.list(shardPath) {
                let path = "\(shardPath)/\(name)"
                if FailedURLRegistry.readRecord(path).map({ $0.expiresAt <= now }) ?? true {
                    removed += 1
                    if !dryRun { _ = try? POSIXFile.remove(path) }
                }
            }
        }
        return removed
    }
}

/// The exclusive lock that keeps two cleaners from running at once.
struct CleanLock {
    private let fd: Int32

    /// Takes the lock; nil if `wait` is false and another process holds it.
    init?(directory: CacheDirectory, wait: Bool) throws {
        let path = "\(directory.root)/clean.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ImageCoreError.cacheIO("cannot open", path: path, errno: errno) }
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw ImageCoreError.cacheIO("cannot lock", path: path, errno: code)
        }
    }

    /// Releases the lock.
    func release() {
        close(fd)
    }
}
