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

    /// The counters by name ("bytes-downloaded"), every one, zeros
    /// included, in the order `stat` shows them.
    public var namedCounters: [(name: String, value: Int)] {
        Statistics.Counter.allCases.map { ($0.rawValue, counters[$0, default: 0]) }
    }

    /// Scans `directory` (file metadata only).
    public static func read(_ directory: CacheDirectory, now: Double = WallClock.now()) -> CacheSummary {
        let inventory = CacheInventory.scan(directory)
        var failed = 0
        for shard in POSIXFile.list(directory.failed) {
            for name in POSIXFile.list("\(directory.failed)/\(shard)") {
                if let record = FailedURLRegistry.readRecord("\(directory.failed)/\(shard)/\(name)"),
                    record.expiresAt > now
                {
                    failed += 1
                }
            }
        }
        let uses = inventory.items.map(\.lastUsed)
        return CacheSummary(
            entries: inventory.items.count, bytes: inventory.totalBytes, oldestUse: uses.min(),
            newestUse: uses.max(), failedURLs: failed, counters: Statistics.totals(in: directory))
    }
}
