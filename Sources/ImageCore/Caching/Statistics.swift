import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Cumulative counters of a cache directory, as `ccache -s` keeps them.
///
/// A process counts in memory and adds its counts to one of 16 shard files
/// when it finishes, under an exclusive `flock` on that shard, so concurrent
/// processes lose no increments; a reader sums the shards.
public final class Statistics: Sendable {
    /// One counter.
    public enum Counter: String, Sendable, CaseIterable {
        case memoryHits = "memory-hits"
        case diskHits = "disk-hits"
        case misses
        case downloads
        case revalidations
        case failures
        case evictions
        case bytesDownloaded = "bytes-downloaded"
        case corruptEntries = "corrupt-entries"
        case remoteHits = "remote-hits"
        case remoteMisses = "remote-misses"
        case remoteErrors = "remote-errors"
        case remoteUploads = "remote-uploads"
    }

    private let counts = Mutex<[Counter: Int]>([:])

    /// Counters starting at zero.
    public init() {}

    /// Adds `amount` to a counter.
    public func add(_ counter: Counter, _ amount: Int = 1) {
        counts.withLock { $0[counter, default: 0] += amount }
    }

    /// This process's counts so far.
    public var snapshot: [Counter: Int] {
        counts.withLock { $0 }
    }

    /// Adds this process's counts to the directory's totals and resets them.
    public func flush(to directory: CacheDirectory) throws {
        let pending = counts.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        guard pending.values.contains(where: { $0 != 0 }) else { return }
        let path = "\(directory.stats)/\(Int(getpid()) % 16)"
        // Waiting, the lock is always granted.
        guard let file = try OpenFile.locked(path, waiting: true) else { return }
        var totals = Self.parse(try file.readToEnd())
        for (counter, amount) in pending { totals[counter, default: 0] += amount }
        let text = Counter.allCases.map { "\($0.rawValue) \(totals[$0, default: 0])\n" }.joined()
        // Rewritten in place under the lock: a crash mid-write can tear this
        // shard, which the parser tolerates (a lost shard, never a crash).
        file.truncate()
        try file.write(Array(text.utf8))
    }

    /// The directory's totals: every shard summed.
    public static func totals(in directory: CacheDirectory) -> [Counter: Int] {
        var totals: [Counter: Int] = [:]
        for name in POSIXFile.list(directory.stats) {
            guard let bytes = try? POSIXFile.read("\(directory.stats)/\(name)", limit: 1 << 16) else { continue }
            for (counter, amount) in parse(bytes) { totals[counter, default: 0] += amount }
        }
        return totals
    }

    /// Counts in a shard's text; lines that do not parse are skipped. Internal
    /// (not private) so the fuzz target reaches it through `@testable import`.
    static func parse(_ bytes: [UInt8]) -> [Counter: Int] {
        var result: [Counter: Int] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let counter = Counter(rawValue: String(parts[0])), let value = Int(parts[1]) {
                result[counter] = value
            }
        }
        return result
    }
}
