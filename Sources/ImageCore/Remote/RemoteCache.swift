import Synchronization

/// The remote tier of one manager: the configured remote storages, asked in
/// turn after the local disk and before the origin, and written after
/// verified downloads and renewals.
///
/// A remote never fails a load: an error, a timeout or a damaged object is
/// one `-v` line and a counter, and the load goes on to the next storage or
/// the origin. A storage that is dead or wrong (refused, DNS, TLS, 401/403)
/// is not asked again in this run; one that timed out or answered 5xx is,
/// until it does so `StoreHealth.strikeLimit` times in a row. Uploads run
/// in tasks alongside other work; `finish()` waits for them.
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

    /// Every backend: one per unsharded storage, one per shard of a sharded one.
    let backends: [any RemoteStorage]
    /// Per configured storage, its shards and the range of `backends` they are.
    private let configured: [(shards: [RemoteStorageURL.Shard], first: Int)]
    /// Which backends answer, which failed once, which are off for the run (`StoreHealth`).
    let health: StoreHealth
    /// Uploads and other work `finish()` waits for (`RemoteCache+Uploads.swift`).
    let uploads = Mutex<[Task<Void, Never>]>([])
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
    let warnings: EventLog
    /// Per backend, this run's uploads that went through and the last that
    /// did not (its message): `finish()` says once which stores took none.
    let uploadTally = Mutex<[Int: (done: Int, lastFailure: String?)]>([:])

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
        health = StoreHealth(count: backends.count)
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
        /// The backend failed (now, or earlier in the run and is off) and is skipped.
        case failed
    }

    /// Backend `index`'s verified entry for `key`. A poll while waiting for
    /// another machine's upload (`countsMiss` false) is not a miss of its own.
    func lookup(
        _ key: CacheKey, in index: Int, url: String, maxBytes: Int, countsMiss: Bool = true,
        inspect: @escaping @Sendable ([UInt8]) async throws -> ImageInfo
    ) async -> BackendAnswer {
        guard let ticket = await health.admit(index) else { return .failed }
        let storage = backends[index]
        let object: [UInt8]?
        do {
            object = try await storage.get(key.hash, maxBytes: maxBytes + (1 << 20))
            health.record(index, ticket, .answered)
        } catch let error as ImageCoreError {
            fail(index, storage, error, ticket)
            return .failed
        } catch {
            health.record(index, ticket, .fatalFailure)
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

    /// The backend of each configured storage that holds key hash `name`,
    /// in the configured order.
    func backendIndices(for name: String) -> [Int] {
        configured.map { $0.first + ShardSelection.pick($0.shards, for: name) }
    }

    /// Whether backend `index` is off for the rest of the run.
    func hasFailed(_ index: Int) -> Bool { health.isDisabled(index) }

    /// Records a request's failure (`StoreHealth`: one that may pass costs
    /// only its request, until too many come in a row); returns whether it
    /// turned the storage off for the run (an interruption does not count).
    /// That is a warning too, unless the caller words its own (`warns`): a
    /// wrong secret, a missing bucket or a dead store costs every lookup of
    /// the run its hit, which nobody should learn only from `-v`. A failure
    /// that leaves the storage in use is a `-v` line and a counter.
    @discardableResult
    func fail(
        _ index: Int, _ storage: any RemoteStorage, _ error: ImageCoreError, _ ticket: StoreHealth.Ticket,
        writing: Bool = false, warns: Bool = true
    ) -> Bool {
        guard error.kind != .interrupted else {
            // The run is ending: release any lookup waiting on this one.
            health.record(index, ticket, .fatalFailure, writing: writing)
            return false
        }
        let passing = error.isPassingStoreFailure
        let outcome: StoreHealth.Outcome =
            passing ? .passingFailure : error.refusesCredentials ? .refusedCredentials : .fatalFailure
        let verdict = health.record(index, ticket, outcome, writing: writing)
        statistics.add(.remoteErrors, storage: storage.configured.maskedURL)
        switch verdict {
        case .inUse:
            events.emit("remote storage \(error.message); this request goes without it, the storage stays in use")
            return false
        case .wasDisabled:
            return false
        case .disabled:
            let message = passing ? "\(error.message) (\(StoreHealth.strikeLimit) failures in a row)" : error.message
            events.emit("remote storage failed, not asked again in this run: \(message)")
            if warns { warnings.emit("remote storage \(message), skipped") }
            return true
        }
    }

    /// A damaged or foreign object: ignored (the origin's copy replaces it).
    private func reject(_ storage: any RemoteStorage, _ url: String, _ why: String) {
        statistics.add(.remoteErrors, storage: storage.configured.maskedURL)
        events.emit("ignored the entry in remote storage \(storage.configured) for \(url): \(why)")
    }
}
