import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Cumulative counters of a cache directory, as `ccache -s` keeps them.
///
/// A process counts in memory and adds its counts to one of 16 shard files
/// when it finishes, under an exclusive `flock` on that shard, so concurrent
/// processes lose no increments; a reader sums the shards.
///
/// Remote counters are also kept per storage (each shard of a sharded one),
/// as `COUNTER STORAGE N` lines beside the `COUNTER N` totals; a reader
/// that predates them skips those lines.
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
    private let storageCounts = Mutex<[String: [Counter: Int]]>([:])

    /// Counters starting at zero.
    public init() {}

    /// Adds `amount` to a counter.
    public func add(_ counter: Counter, _ amount: Int = 1) {
        counts.withLock { $0[counter, default: 0] += amount }
    }

    /// Adds `amount` to a counter and to that counter of one remote storage
    /// (`storage`: its masked description, which holds no space).
    public func add(_ counter: Counter, storage: String, _ amount: Int = 1) {
        add(counter, amount)
        storageCounts.withLock { $0[storage, default: [:]][counter, default: 0] += amount }
    }

    /// This process's counts per remote storage so far.
    public var storageSnapshot: [String: [Counter: Int]] {
        storageCounts.withLock { $0 }
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
        let pendingByStorage = storageCounts.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        guard pending.values.contains(where: { $0 != 0 }) else { return }
        let path = "\(directory.stats)/\(Int(CurrentProcess.id) % 16)"
        // Waiting, the lock is always granted.
        guard let file = try OpenFile.locked(path, waiting: true) else { return }
        let text = try file.readToEnd()
        var totals = Self.parse(text)
        var byStorage = Self.parseByStorage(text)
        for (counter, amount) in pending { totals[counter, default: 0] += amount }
        for (storage, counts) in pendingByStorage {
            for (counter, amount) in counts { byStorage[storage, default: [:]][counter, default: 0] += amount }
        }
        var lines = Counter.allCases.map { "\($0.rawValue) \(totals[$0, default: 0])\n" }
        for storage in byStorage.keys.sorted() {
            for counter in Counter.allCases {
                if let amount = byStorage[storage]?[counter] {
                    lines.append("\(counter.rawValue) \(storage) \(amount)\n")
                }
            }
        }
        // Rewritten in place under the lock: a crash mid-write can tear this
        // shard, which the parser tolerates (a lost shard, never a crash).
        file.truncate()
        try file.write(Array(lines.joined().utf8))
    }

    /// The directory's remote counters per storage: every shard summed.
    public static func storageTotals(in directory: CacheDirectory) -> [String: [Counter: Int]] {
        var totals: [String: [Counter: Int]] = [:]
        for name in POSIXFile.list(directory.stats) {
            guard let bytes = try? POSIXFile.read("\(directory.stats)/\(name)", limit: 1 << 20) else { continue }
            for (storage, counts) in parseByStorage(bytes) {
                for (counter, amount) in counts { totals[storage, default: [:]][counter, default: 0] += amount }
            }
        }
        return totals
    }

    /// The `COUNTER STORAGE N` lines of a shard's text.
    static func parseByStorage(_ bytes: [UInt8]) -> [String: [Counter: Int]] {
        var result: [String: [Counter: Int]] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let counter = Counter(rawValue: String(parts[0])), let value = Int(parts[2]) {
                result[String(parts[1]), default: [:]][counter] = value
            }
        }
        return result
    }

    /// The directory's totals: every shard summed.
    public static func totals(in directory: CacheDirectory) -> [Counter: Int] {
        var totals: [Counter: Int] = [:]
        for name in POSIXFile.list(directory.stats) {
            guard let bytes = try? POSIXFile.read("\(directory.stats)/\(name)", limit: 1 << 20) else { continue }
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
