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

        /// Adds the counts of one shard's clean.
        mutating func add(_ other: Report) {
            expiredEntries += other.expiredEntries
            evictedEntries += other.evictedEntries
            bytesRemoved += other.bytesRemoved
            failedRecordsRemoved += other.failedRecordsRemoved
            strayFilesRemoved += other.strayFilesRemoved
            entriesLeft += other.entriesLeft
            bytesLeft += other.bytesLeft
        }
    }

    /// Temporary files younger than this may belong to a running process.
    static let strayGracePeriod: Double = 3600

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
        let lockPath = "\(directory.root)/clean.lock"
        guard let lock = try OpenFile.locked(lockPath, waiting: waitForLock) else {
            report.skippedBecauseBusy = true
            return report
        }
        defer { lock.close() }

        // Shard by shard, as `find -delete` goes, and several shards at once
        // (`CacheInventory.mapShards`): expired entries go as their shard is
        // read; only a size limit needs every kept entry's last use, to
        // evict the least recently used across shards.
        var kept: [Kept] = []
        let outcomes = CacheInventory.mapShards(in: directory) { shard in
            clean(shard, maxAge: maxAge, keepingForSize: maxSize != nil, dryRun: dryRun, now: now)
        }
        for outcome in outcomes {
            report.add(outcome.report)
            kept += outcome.kept
        }
        if let maxSize, report.bytesLeft > maxSize {
            evictLeastRecentlyUsed(kept, down: maxSize, dryRun: dryRun, report: &report)
        }
        report.strayFilesRemoved += removeOldLayout(under: directory.entries, dryRun: dryRun)
        report.strayFilesRemoved += removeLeftovers(in: directory.temporary, now: now, dryRun: dryRun)
        report.failedRecordsRemoved = removeExpiredFailures(now: now, dryRun: dryRun)
        return report
    }

    /// What a size limit needs of a kept entry.
    private struct Kept {
        var hash: EntryHash
        var shard: String
        var bytes: Int
        var lastUsed: Double

        init(_ item: CacheInventory.Item, shard: String) {
            hash = item.hash
            self.shard = shard
            bytes = item.bytes
            lastUsed = item.lastUsed
        }
    }

    /// What cleaning one shard did, and what a size limit needs of it.
    private struct ShardOutcome: Sendable {
        var report = Report()
        var kept: [Kept] = []
    }

    /// Removes the expired entries, old strays and old partials of `shard`.
    private func clean(
        _ shard: CacheInventory.Shard, maxAge: Double?, keepingForSize: Bool, dryRun: Bool, now: Double
    ) -> ShardOutcome {
        var outcome = ShardOutcome()
        var expired: [CacheInventory.Item] = []
        for item in shard.items {
            if let maxAge, now - item.lastUsed > maxAge {
                outcome.report.expiredEntries += 1
                outcome.report.bytesRemoved += item.bytes
                expired.append(item)
            } else {
                outcome.report.entriesLeft += 1
                outcome.report.bytesLeft += item.bytes
                if keepingForSize { outcome.kept.append(Kept(item, shard: shard.name)) }
            }
        }
        if !dryRun {
            remove(expired, from: shard, why: { "unused for \(Quantities.formatDuration((now - $0).rounded()))" })
        }
        for stray in shard.strays where now - stray.modified > Self.strayGracePeriod {
            outcome.report.strayFilesRemoved += 1
            if !dryRun { shard.directory.remove(stray.name) }
        }
        for partial in shard.partials where now - partial.modified > CacheDirectory.partialMaxAge {
            outcome.report.strayFilesRemoved += 1
            if !dryRun { shard.directory.remove(partial.name) }
        }
        for partial in shard.partials where now - partial.modified <= CacheDirectory.partialMaxAge && partial.bytes == 0
        {
            outcome.report.strayFilesRemoved += removeAbandonedEmptyBody(
                partial.name, in: shard.directory, dryRun: dryRun)
        }
        return outcome
    }

    /// Removes the partial body `name`, with its resume record, if it is
    /// empty and no process is writing it (its `flock` is free): a run
    /// killed before its first byte (by SIGPIPE, say) leaves a body there
    /// is nothing to resume from, at any age. Removed while locked, so a
    /// download that opens it meanwhile sees it gone and writes elsewhere
    /// (`PartialDownload.open`). Returns the files it removed, or would.
    private func removeAbandonedEmptyBody(_ name: FileName, in directory: OpenDirectory, dryRun: Bool) -> Int {
        guard name.hasSuffix(".partial") else { return 0 }
        let path = directory.path(of: name)
        guard let file = try? OpenFile.locked(path, waiting: false) else { return 0 }
        defer { file.close() }
        guard file.sizeIfStill(at: path) == 0 else { return 0 }
        let record = PartialDownload.recordPath(path)
        let files = POSIXFile.status(record) == nil ? 1 : 2
        if !dryRun { PartialDownload.discard(path) }
        return files
    }

    /// Evicts the least recently used of `kept` until the rest fit `maxSize`:
    /// each shard that loses entries is read once more for their files.
    private func evictLeastRecentlyUsed(_ kept: [Kept], down maxSize: Int, dryRun: Bool, report: inout Report) {
        var evicted: [String: Set<EntryHash>] = [:]
        for item in kept.sorted(by: { $0.lastUsed < $1.lastUsed }) where report.bytesLeft > maxSize {
            report.bytesLeft -= item.bytes
            report.entriesLeft -= 1
            report.evictedEntries += 1
            report.bytesRemoved += item.bytes
            evicted[item.shard, default: []].insert(item.hash)
        }
        guard !dryRun else { return }
        let placement = directory.recordPlacement()
        for (name, hashes) in evicted {
            guard let shard = CacheInventory.shard(name, in: directory, placement: placement) else { continue }
            let evicted = shard.items.filter { hashes.contains($0.hash) }
            remove(evicted, from: shard, why: { _ in "cache over \(Quantities.formatSize(maxSize))" })
        }
    }

    /// Removes `items` from their shard, each entry's record first (once it
    /// is gone no reader can reach the entry's bytes), then its data files:
    /// entry by entry, since a record and its bytes were made one after the
    /// other and their inodes are neighbours. `-v` names each entry by the
    /// URL its record holds (read only when there is a log to write to),
    /// by its hash if the record cannot be read.
    private func remove(_ items: [CacheInventory.Item], from shard: CacheInventory.Shard, why: (Double) -> String) {
        for item in items {
            events.emit("evicted \(Self.url(of: item, in: shard)) (\(why(item.lastUsed)))")
            shard.remove(item)
        }
    }

    /// The URL `item`'s record holds, or its hash if the record cannot be read.
    private static func url(of item: CacheInventory.Item, in shard: CacheInventory.Shard) -> String {
        let record = DiskCache.record(at: shard.directory.path(of: item.record), placement: shard.placement)
        return record?.url ?? item.hash.description
    }

    /// Removes the two-digit shard directories an older version left under
    /// `base`; their files are not read any more. Returns how many it held.
    private func removeOldLayout(under base: String, dryRun: Bool) -> Int {
        var removed = 0
        for path in CacheInventory.oldLayoutShards(under: base) {
            removed += POSIXFile.list(path).count
            if !dryRun { try? POSIXFile.removeTree(path) }
        }
        return removed
    }

    /// Removes what is left in `temporary` past its grace period: bodies
    /// kept for a resume are worth a day, other leftovers an hour.
    private func removeLeftovers(in temporary: String, now: Double, dryRun: Bool) -> Int {
        guard let open = OpenDirectory(temporary) else { return 0 }
        var removed = 0
        for name in open.fileNames() {
            let resumable = name.hasSuffix(".partial") || name.hasSuffix(".partial.resume")
            let grace = resumable ? CacheDirectory.partialMaxAge : Self.strayGracePeriod
            if let status = open.status(name), now - status.modified > grace {
                removed += 1
                if !dryRun { open.remove(name) }
            }
        }
        return removed
    }

    /// Removes expired failed-URL records (and the subdirectories an older
    /// layout kept them in).
    private func removeExpiredFailures(now: Double, dryRun: Bool) -> Int {
        var removed = removeOldLayout(under: directory.failed, dryRun: dryRun)
        guard let open = OpenDirectory(directory.failed) else { return removed }
        for name in open.fileNames() {
            if FailedURLRegistry.readRecord(open.path(of: name)).map({ $0.expiresAt <= now }) ?? true {
                removed += 1
                if !dryRun { open.remove(name) }
            }
        }
        return removed
    }
}
