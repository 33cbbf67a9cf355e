import Synchronization

/// The remote tier of one manager: the configured remote storages, asked in
/// turn after the local disk and before the origin, and written after
/// verified downloads and renewals.
///
/// A remote never fails a load: an error, a timeout or a damaged object is
/// one `-v` line and a counter, and the load goes on to the next storage or
/// the origin. A storage that failed (network, timeout, server error) is not
/// asked again in this run. Uploads run in tasks alongside other work;
/// `finish()` waits for them.
///
/// A sharded storage (`|shards=`) is one backend per shard; each key goes to
/// the shard `ShardSelection` picks, so a dead shard fails (and costs) only
/// its own keys. Counters are kept per backend as well as in total.
///
/// Thread safety: every method may be called from any task concurrently.
final class RemoteCache: Sendable {
    /// A remote entry that passed every check a download passes.
    struct Hit: Sendable {
        var entry: CacheEntry
        var bytes: [UInt8]
        var info: ImageInfo
        var storage: String
    }

    /// What this run knows of a storage. The first lookup probes it alone;
    /// lookups arriving meanwhile wait for its outcome, so a dead storage
    /// costs one timeout per run, not one per URL in flight.
    private enum Health {
        case untried
        case probing([CheckedContinuation<Bool, Never>])
        case healthy
        case failed
    }

    /// Every backend: one per unsharded storage, one per shard of a sharded one.
    let backends: [any RemoteStorage]
    /// Per configured storage, its shards and the range of `backends` they are.
    private let configured: [(shards: [RemoteStorageURL.Shard], first: Int)]
    private let health: Mutex<[Health]>
    private let uploads = Mutex<[Task<Void, Never>]>([])
    /// Leases this process holds, by key hash (`RemoteCache+Leases.swift`).
    let leases = Mutex<[String: RemoteLease]>([:])
    /// Backends found to hold no leases in this run (`RemoteCache+Leases.swift`).
    let leaseless = Mutex<Set<Int>>([])
    let statistics: Statistics
    let events: EventLog
    /// The lease wait's deadlines and the lease renewals' sleeps (`RemoteCache+Leases.swift`).
    let clock: any TimeSource
    /// Where a store that refuses a write is reported, once per store and
    /// run, whatever `-v` says: every upload of the run is lost with it.
    private let warnings: EventLog

    convenience init(
        _ configured: [RemoteStorageURL], statistics: Statistics, events: EventLog,
        warnings: EventLog = .silent, network: any DataLoading, aws: AWSSettings = AWSSettings(),
        clock: any TimeSource = SystemClock()
    ) {
        var backends: [any RemoteStorage] = []
        var tiers: [(shards: [RemoteStorageURL.Shard], first: Int)] = []
        for storage in configured {
            tiers.append((storage.shards, backends.count))
            let urls = storage.shards.isEmpty ? [storage] : storage.shards.map { storage.shard($0) }
            backends += urls.map { makeRemoteStorage($0, network: network, aws: aws, clock: clock) }
        }
        self.init(
            backends: backends, tiers: tiers, statistics: statistics, events: events, warnings: warnings, clock: clock)
    }

    /// A remote tier over given backends, one per configured storage (tests use counting fakes).
    convenience init(
        storages: [any RemoteStorage], statistics: Statistics, events: EventLog, clock: any TimeSource = SystemClock()
    ) {
        self.init(
            backends: storages, tiers: storages.indices.map { ([], $0) }, statistics: statistics, events: events,
            warnings: .silent, clock: clock)
    }

    private init(
        backends: [any RemoteStorage], tiers: [(shards: [RemoteStorageURL.Shard], first: Int)],
        statistics: Statistics, events: EventLog, warnings: EventLog, clock: any TimeSource
    ) {
        self.backends = backends
        self.configured = tiers
        health = Mutex(Array(repeating: .untried, count: backends.count))
        self.statistics = statistics
        self.events = events
        self.warnings = warnings
        self.clock = clock
    }

    /// The first verified entry for `key` among the storages that have not
    /// failed; nil if none has one. `inspect` is the check a download gets
    /// (sniff, header against the limits, structure to the end: `Verification`).
    func lookup(
        _ key: CacheKey, url: String, maxBytes: Int,
        inspect: @escaping @Sendable ([UInt8]) async throws -> ImageInfo
    ) async -> Hit? {
        for index in backendIndices(for: key.hash) {
            if case .hit(let hit) = await lookup(key, in: index, url: url, maxBytes: maxBytes, inspect: inspect) {
                return hit
            }
        }
        return nil
    }

    /// What one backend had for a key.
    enum BackendAnswer: Sendable {
        case hit(Hit)
        /// Not there, or there but unusable (damaged, another key's).
        case miss
        /// The backend failed (now or earlier in the run) and is skipped.
        case failed
    }

    /// Backend `index`'s verified entry for `key`. A poll while waiting for
    /// another machine's upload (`countsMiss` false) is not a miss of its own.
    func lookup(
        _ key: CacheKey, in index: Int, url: String, maxBytes: Int, countsMiss: Bool = true,
        inspect: @escaping @Sendable ([UInt8]) async throws -> ImageInfo
    ) async -> BackendAnswer {
        guard await admit(index) else { return .failed }
        let storage = backends[index]
        let object: [UInt8]?
        do {
            object = try await storage.get(key.hash, maxBytes: maxBytes + (1 << 20))
            settle(index, healthy: true)
        } catch let error as ImageCoreError {
            disable(index, storage, error)
            return .failed
        } catch {
            settle(index, healthy: false)
            return .failed
        }
        guard let object else {
            if countsMiss {
                statistics.add(.remoteMisses, storage: storage.configured.maskedURL)
                events.emit("not in remote storage \(storage.configured): \(url)")
            }
            return .miss
        }
        guard let decoded = RemoteObject.decode(object) else {
            reject(storage, url, "not a whole entry of layout \(RemoteObject.layoutVersion)")
            return .miss
        }
        let (entry, bytes) = (decoded.entry, decoded.bytes)
        guard entry.key == key.string else {
            reject(storage, url, "it holds the entry of another key")
            return .miss
        }
        guard bytes.count == entry.byteCount, Digest.xxh3Hex(bytes) == entry.checksum else {
            reject(storage, url, "its bytes do not match their checksum")
            return .miss
        }
        do {
            let info = try await inspect(bytes)
            statistics.add(.remoteHits, storage: storage.configured.maskedURL)
            return .hit(Hit(entry: entry, bytes: bytes, info: info, storage: storage.configured.description))
        } catch let error as ImageCoreError {
            reject(storage, url, error.message)
        } catch {
            reject(storage, url, "\(error)")
        }
        return .miss
    }

    /// Uploads an entry to every writable storage that has not failed, in
    /// tasks of their own (`finish()` waits for them).
    func upload(_ entry: CacheEntry, bytes: [UInt8], key: CacheKey, url: String) {
        let name = key.hash
        let writable = backendIndices(for: name).filter { !backends[$0].configured.readOnly && !hasFailed($0) }
        guard !writable.isEmpty else { return }
        let object = RemoteObject.encode(entry, bytes: bytes)
        for index in writable {
            let storage = backends[index]
            // Waiters poll the lease's store: its lease goes once the entry is there (or failed to get there).
            let lease = leases.withLock { $0[name] }.flatMap { $0.index == index && $0.startUpload() ? $0 : nil }
            let task = Task { [self] in
                do {
                    try await storage.put(name, object)
                    statistics.add(.remoteUploads, storage: storage.configured.maskedURL)
                    events.emit("uploaded to remote storage \(storage.configured): \(url)")
                } catch let error as ImageCoreError {
                    if disable(index, storage, error, warns: false) {
                        warnings.emit(
                            "remote storage \(storage.configured) refused a write (\(error.message)); "
                                + "nothing more is uploaded to it in this run")
                    }
                } catch {}
                if let lease { await release(lease) }
            }
            uploads.withLock { $0.append(task) }
        }
    }

    /// Deletes `key`'s entry from every writable storage; one line per
    /// storage saying what happened, for `purge --remote`.
    func remove(_ key: CacheKey) async -> [(storage: String, outcome: Result<Bool, ImageCoreError>)] {
        var results: [(storage: String, outcome: Result<Bool, ImageCoreError>)] = []
        for storage in backendIndices(for: key.hash).map({ backends[$0] }) where !storage.configured.readOnly {
            do {
                let removed = try await storage.delete(key.hash)
                results.append((storage.configured.description, .success(removed)))
            } catch let error as ImageCoreError {
                results.append((storage.configured.description, .failure(error)))
            } catch {}
        }
        return results
    }

    /// Runs `work` as a task that `finish()` waits for.
    func track(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        uploads.withLock { $0.append(task) }
    }

    /// Waits for every upload started so far.
    func finish() async {
        while true {
            let pending = uploads.withLock { tasks in
                defer { tasks.removeAll() }
                return tasks
            }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }

    /// The backend of each configured storage that holds key hash `name`,
    /// in the configured order.
    func backendIndices(for name: String) -> [Int] {
        configured.map { $0.first + ShardSelection.pick($0.shards, for: name) }
    }

    func hasFailed(_ index: Int) -> Bool {
        health.withLock { if case .failed = $0[index] { true } else { false } }
    }

    /// Whether a lookup may ask storage `index`: at once if it is known
    /// healthy (or untried: this lookup probes it), never if it failed, and
    /// after the probe's outcome while one is in flight.
    private func admit(_ index: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = health.withLock { states in
                switch states[index] {
                case .healthy: return true
                case .failed: return false
                case .untried:
                    states[index] = .probing([])
                    return true
                case .probing(let waiting):
                    states[index] = .probing(waiting + [continuation])
                    return nil
                }
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Records a request's outcome; a probe's releases the lookups waiting for it.
    private func settle(_ index: Int, healthy: Bool) {
        let waiting: [CheckedContinuation<Bool, Never>] = health.withLock { states in
            var released: [CheckedContinuation<Bool, Never>] = []
            if case .probing(let waiting) = states[index] { released = waiting }
            switch (healthy, states[index]) {
            case (false, _): states[index] = .failed
            case (true, .failed): break  // an earlier failure stands for the run
            case (true, _): states[index] = .healthy
            }
            return released
        }
        for continuation in waiting { continuation.resume(returning: healthy) }
    }

    /// A storage that failed is not asked again in this run; returns
    /// whether this was its first failure (an interruption is none). The
    /// first is a warning too, unless the caller words its own (`warns`):
    /// a wrong secret, a missing bucket or a dead store costs every lookup
    /// of the run its hit, which nobody should learn only from `-v`.
    @discardableResult
    func disable(_ index: Int, _ storage: any RemoteStorage, _ error: ImageCoreError, warns: Bool = true) -> Bool {
        let first = !hasFailed(index)
        settle(index, healthy: false)
        guard error.kind != .interrupted else { return false }
        statistics.add(.remoteErrors, storage: storage.configured.maskedURL)
        if first {
            events.emit("remote storage failed, not asked again in this run: \(error.message)")
            if warns { warnings.emit("remote storage \(error.message), skipped") }
        }
        return first
    }

    /// A damaged or foreign object: ignored (the origin's copy replaces it).
    private func reject(_ storage: any RemoteStorage, _ url: String, _ why: String) {
        statistics.add(.remoteErrors, storage: storage.configured.maskedURL)
        events.emit("ignored the entry in remote storage \(storage.configured) for \(url): \(why)")
    }
}
