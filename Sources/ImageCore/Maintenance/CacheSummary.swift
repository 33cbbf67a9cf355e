/// What `stat` reports for a whole cache directory.
public struct CacheSummary: Sendable {
    /// Whole entries.
    public var entries: Int
    /// Bytes they hold.
    public var bytes: Int
    /// Last use of the least recently used entry.
    public var oldestUse: Double?
    /// Last use of the most recently used entry.
    public var newestUse: Double?
    /// Unexpired failed-URL records.
    public var failedURLs: Int
    /// Cumulative counters of every process that used the directory.
    public var counters: [Statistics.Counter: Int]
    /// The remote counters per storage (each shard of a sharded one), by masked description.
    public var storageCounters: [String: [Statistics.Counter: Int]] = [:]

    /// The counters by name ("bytes-downloaded"), every one, zeros
    /// included, in the order `stat` shows them.
    public var namedCounters: [(name: String, value: Int)] {
        Statistics.Counter.allCases.map { ($0.rawValue, counters[$0, default: 0]) }
    }

    /// Scans `directory` (file metadata only).
    public static func read(_ directory: CacheDirectory, now: Double = WallClock.now()) -> CacheSummary {
        var entries = 0
        var bytes = 0
        var oldestUse: Double?
        var newestUse: Double?
        let shards = CacheInventory.mapShards(in: directory) { shard in
            (
                entries: shard.items.count, bytes: shard.items.reduce(0) { $0 + $1.bytes },
                uses: shard.items.lazy.map(\.lastUsed).min().map { ($0, shard.items.lazy.map(\.lastUsed).max()!) }
            )
        }
        for shard in shards {
            entries += shard.entries
            bytes += shard.bytes
            guard let (oldest, newest) = shard.uses else { continue }
            oldestUse = min(oldestUse ?? oldest, oldest)
            newestUse = max(newestUse ?? newest, newest)
        }
        var failed = 0
        for name in POSIXFile.list(directory.failed) {
            if let record = FailedURLRegistry.readRecord("\(directory.failed)/\(name)"), record.expiresAt > now {
                failed += 1
            }
        }
        return CacheSummary(
            entries: entries, bytes: bytes, oldestUse: oldestUse, newestUse: newestUse, failedURLs: failed,
            counters: Statistics.totals(in: directory), storageCounters: Statistics.storageTotals(in: directory))
    }
}
