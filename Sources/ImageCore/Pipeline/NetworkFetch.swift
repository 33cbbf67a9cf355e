import Synchronization

/// Step 2, the network: one download per key in this process (in-flight
/// loads) and across processes (a lock per key shared through the cache
/// directory), then remote storage, then the origin. Owns the locks, the
/// loads in flight, the remote stores, the loader and the revalidations
/// running in the background; hands what it verified to `Store`.
///
/// Thread safety: every method may be called from any task concurrently;
/// loads of one key share one run.
final class NetworkFetch: Sendable {
    /// What the network step produces before rendition.
    struct Fetched: Sendable {
        var info: ImageInfo
        var bytes: [UInt8]
        var stored: CachedData?
        /// `.downloaded`, `.revalidated`, `.remote`, or `.disk` when another process downloaded it meanwhile.
        var source: ImageResponse.Source
    }

    /// Where the run stands with the key's local entry.
    enum LocalEntry {
        /// Not looked at under the download lock: a store replaces whatever is there.
        case unknown
        /// Looked at under the download lock: none is stored, and none will
        /// be until this run stores its own.
        case absent
        /// A stale entry (from the lookup or remote storage): its validators
        /// make the origin's request conditional.
        case stale(CachedData)

        var stale: CachedData? {
            if case .stale(let cached) = self { cached } else { nil }
        }
    }

    /// The key's cross-process download lock, as the run found it.
    enum Claim {
        /// Held by this process until `release()`.
        case held(DownloadLocks, hash: String)
        /// Not held: no lock file (a read-only cache), a conditional or
        /// unstored download that does not wait, or another process that kept
        /// it past the wait.
        case notHeld
        /// Another process downloaded and stored the entry while this one waited.
        case storedElsewhere(CachedData)

        func release() {
            if case .held(let locks, let hash) = self { locks.unlock(hash) }
        }
    }

    /// How a download's body ended.
    enum Settled {
        /// Renamed into the cache as the entry's bytes.
        case renamedIntoCache(Fetched)
        /// Left where it was downloaded (a 304, `--no-store`): to be removed.
        case leftBehind(Fetched)

        var fetched: Fetched {
            switch self {
            case .renamedIntoCache(let fetched), .leftBehind(let fetched): fetched
            }
        }
    }

    let disk: DiskCache
    let store: Store
    let verify: Verification
    let limits: RunLimits
    let remote: RemoteCache?
    let loader: any DataLoading
    let failedURLs: FailedURLRegistry
    let statistics: Statistics
    let events: EventLog
    /// The cache, when this process may write to it (partial bodies, download
    /// locks); nil for a read-only cache, whose downloads go to a scratch directory.
    let writableCache: CacheDirectory?
    /// Read before each download's failed-URL check: its cookies key the record.
    let cookieJar: String?
    /// A private directory removed by `finish()` (a read-only cache's downloads), or nil.
    let scratchDirectory: String?
    /// Freshness, the wait for another process, retry pauses.
    let clock: any TimeSource
    /// Opened on first use (a warm hit never opens them); nil inside once opening failed.
    private let lockFile = Mutex<DownloadLocks??>(nil)
    private let inflight = InflightLoads<Fetched>()
    /// Revalidations started under `stale-while-revalidate`.
    private let backgroundWork = Mutex<[Task<Void, Never>]>([])
    let cancelled = Atomic<Bool>(false)

    init(
        disk: DiskCache, store: Store, verify: Verification, limits: RunLimits, remote: RemoteCache?,
        loader: any DataLoading,
        failedURLs: FailedURLRegistry, statistics: Statistics, events: EventLog, writableCache: CacheDirectory?,
        cookieJar: String?, scratchDirectory: String?, clock: any TimeSource
    ) {
        self.disk = disk
        self.store = store
        self.verify = verify
        self.limits = limits
        self.remote = remote
        self.loader = loader
        self.failedURLs = failedURLs
        self.statistics = statistics
        self.events = events
        self.writableCache = writableCache
        self.cookieJar = cookieJar
        self.scratchDirectory = scratchDirectory
        self.clock = clock
    }

    /// The image from the network, once per key however many callers wait:
    /// admitted (`Admission.swift`), fetched, and on failure served stale or
    /// remembered as failed. `stale` is the lookup's stale entry, if any.
    func load(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> ImageResponse {
        let requestDigest = try admit(request, key: key)
        let fetched: Fetched
        let joined: Bool
        do {
            (fetched, joined) = try await inflight.run(key.string) { [self] in
                try await fetch(request, key: key, stale: stale)
            }
        } catch let error as ImageCoreError {
            return try recover(from: error, request, key: key, stale: stale, requestDigest: requestDigest)
        }
        if request.retriesFailed { _ = try? failedURLs.remove(key, requestDigest: requestDigest) }
        // A caller that joined another's download got it without a transfer
        // of its own: from this process's memory, as far as it can tell.
        return ImageResponse(
            url: request.url, key: key, source: joined ? .memory : fetched.source,
            info: fetched.info, bytes: fetched.bytes, entry: fetched.stored?.entry,
            path: fetched.stored?.path)
    }

    /// Revalidates a stale entry served under `stale-while-revalidate`;
    /// `finish()` waits for it, so the process does not exit mid-request.
    func revalidateInBackground(_ request: ImageRequest, key: CacheKey, stale: CachedData) {
        let task = Task { [self] in
            _ = try? await inflight.run(key.string) { [self] in
                try await fetch(request, key: key, stale: stale)
            }
        }
        backgroundWork.withLock { $0.append(task) }
    }

    /// Fetches, verifies and (unless asked not to) stores one image; with a
    /// `stale` entry, asks the origin with its validators first and keeps its
    /// bytes on 304 Not Modified.
    func fetch(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> Fetched {
        let claim = try await claim(request, key: key, stale: stale)
        if case .storedElsewhere(let cached) = claim { return storedElsewhere(cached, request) }
        defer { claim.release() }
        var local = stale.map(LocalEntry.stale) ?? .unknown
        // Another process may have stored it between our lookup and our
        // taking the lock (it downloads, stores, then unlocks): look again.
        // Found absent under the lock, it stays absent until we store it.
        if case .held = claim, stale == nil, request.storesToDisk, !request.refresh {
            let cached = try disk.lookup(key)
            if let cached, CachePolicy.decide(cached.entry, for: request, now: clock.wallNow()) == .serve {
                return storedElsewhere(cached, request)
            }
            if cached == nil { local = .absent }
        }
        if let remote, stale == nil || !request.refresh {
            switch try await lookUpRemote(remote, request, key: key) {
            case .served(let fetched): return fetched
            case .lendsValidators(let kept): local = .stale(kept)
            case .none: break
            }
        }
        // Found nowhere: one machine of the fleet downloads, the others wait for its upload.
        var lease: RemoteLease?
        if let remote, local.stale == nil, !request.refresh {
            let claim = try await claimRemoteDownload(remote, request, key: key)
            switch claim.outcome {
            case .served(let fetched)?: return fetched
            case .lendsValidators(let kept)?: local = .stale(kept)
            case nil: lease = claim.lease
            }
        }
        defer { if let lease { remote?.end(lease) } }
        return try await fetchFromOrigin(request, key: key, local: local)
    }

    /// The origin's answer: a 304 merged into the stale entry, or a new body
    /// verified and stored. The body is removed (unless it was renamed into
    /// the cache) while its lock still holds; then the lock goes.
    private func fetchFromOrigin(_ request: ImageRequest, key: CacheKey, local: LocalEntry) async throws -> Fetched {
        let downloaded = try await downloadRetrying(
            download(for: request, key: key, stale: local.stale),
            retries: request.retries)
        let settled: Result<Settled, any Error>
        do {
            settled = .success(try await settle(downloaded, request, key: key, local: local))
        } catch {
            settled = .failure(error)
        }
        if case .success(.renamedIntoCache) = settled {
        } else {
            _ = try? POSIXFile.remove(downloaded.bodyPath)
        }
        downloaded.bodyLock?.release()
        return try settled.get().fetched
    }

    /// A download's body merged (304), or verified and stored.
    private func settle(
        _ downloaded: DownloadResponse, _ request: ImageRequest, key: CacheKey, local: LocalEntry
    ) async throws -> Settled {
        if downloaded.status == 304 {
            return .leftBehind(try merge(notModified: downloaded, into: local.stale, request, key: key))
        }
        guard let bytes = try downloaded.body ?? POSIXFile.read(downloaded.bodyPath) else {
            throw ImageCoreError(.cacheIO, "downloaded body vanished from \(downloaded.bodyPath)")
        }
        statistics.add(.downloads)
        statistics.add(.bytesDownloaded, bytes.count)
        let info = try await verify(bytes)
        var replacing = true
        if case .absent = local { replacing = false }
        let stored = try store.store(downloaded, bytes: bytes, info: info, request, key: key, replacing: replacing)
        let fetched = Fetched(info: info, bytes: bytes, stored: stored, source: .downloaded)
        return stored == nil ? .leftBehind(fetched) : .renamedIntoCache(fetched)
    }

    /// Takes the key's download lock; when another process holds it, waits
    /// for that process's entry (only a plain download that would store).
    private func claim(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> Claim {
        guard let locks = downloadLocks() else { return .notHeld }
        if locks.tryLock(key.hash) { return .held(locks, hash: key.hash) }
        guard stale == nil, request.storesToDisk else { return .notHeld }
        if let cached = try await waitForOtherProcess(locks, request, key: key) { return .storedElsewhere(cached) }
        return locks.tryLock(key.hash) ? .held(locks, hash: key.hash) : .notHeld
    }

    /// Waits while another process downloads this key; returns the entry it
    /// stored if that is as good as our own download would be, else nil.
    private func waitForOtherProcess(
        _ locks: DownloadLocks, _ request: ImageRequest,
        key: CacheKey
    ) async throws -> CachedData? {
        let deadline = clock.monotonicNow() + request.download.effectiveTimeout
        let waitStarted = clock.wallNow()
        while locks.isHeldElsewhere(key.hash) && clock.monotonicNow() < deadline {
            try await pause(0.02)
        }
        // An entry stored while we waited is as fresh as our own download would be.
        guard let cached = try disk.lookup(key) else { return nil }
        let decision = CachePolicy.decide(cached.entry, for: request, now: clock.wallNow())
        let fresh =
            decision == .serve
            || (decision != .mismatch && !request.refresh && cached.entry.storedAt >= waitStarted - 1)
        return fresh ? cached : nil
    }

    /// An entry another process downloaded while this one was about to.
    private func storedElsewhere(_ cached: CachedData, _ request: ImageRequest) -> Fetched {
        events.emit("downloaded by another process: \(request.url)")
        statistics.add(.diskHits)
        return Fetched(info: cached.entry.info, bytes: cached.bytes, stored: cached, source: .disk)
    }

    /// The cross-process download locks, opened on first use; nil for a
    /// read-only cache or when the lock file cannot be opened.
    private func downloadLocks() -> DownloadLocks? {
        guard let writableCache else { return nil }
        return lockFile.withLock { opened in
            if opened == nil { opened = .some(DownloadLocks(directory: writableCache.root)) }
            return opened ?? nil
        }
    }

    /// Cancels every download in flight (SIGINT); their loads, and any later
    /// load that would need the network, fail with `.interrupted`.
    func cancelAll() {
        cancelled.store(true, ordering: .relaxed)
        loader.cancelAll()
    }

    /// Waits for background revalidations and remote uploads, closes the
    /// loader, and removes the scratch directory of a read-only cache.
    func finish() async {
        for task in backgroundWork.withLock({ $0 }) { await task.value }
        await remote?.finish()
        loader.close()
        if let scratchDirectory { try? POSIXFile.removeTree(scratchDirectory) }
    }
}
