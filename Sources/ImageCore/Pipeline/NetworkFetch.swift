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
        /// Why it is not stored, when it should have been (`ImageResponse.notStored`).
        var notStored: ImageCoreError? = nil
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
    private let inflight = InflightLoads<CacheKey, Fetched>()
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
    /// admitted (`NetworkFetch+Admission.swift`), fetched, and on failure served stale or
    /// remembered as failed. `stale` is the lookup's stale entry, if any.
    func load(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> ImageResponse {
        let requestDigest = try admit(request, key: key)
        let fetched: Fetched
        let joined: Bool
        do {
            (fetched, joined) = try await inflight.run(key) { [self] in
                try await fetch(request, key: key, stale: stale)
            }
        } catch let error as ImageCoreError {
            return try recover(from: error, request, key: key, stale: stale, requestDigest: requestDigest)
        }
        if request.retriesFailed { _ = try? failedURLs.remove(key, requestDigest: requestDigest) }
        // A caller that joined another's download got it without a transfer
        // of its own: from this process's memory, as far as it can tell.
        var response = ImageResponse(
            url: request.url, key: key, source: joined ? .memory : fetched.source,
            info: fetched.info, bytes: fetched.bytes, entry: fetched.stored?.entry,
            path: fetched.stored?.path)
        response.notStored = fetched.notStored
        return response
    }

    /// Revalidates a stale entry served under `stale-while-revalidate`;
    /// `finish()` waits for it, so the process does not exit mid-request.
    func revalidateInBackground(_ request: ImageRequest, key: CacheKey, stale: CachedData) {
        let task = Task { [self] in
            _ = try? await inflight.run(key) { [self] in
                try await fetch(request, key: key, stale: stale)
            }
        }
        backgroundWork.withLock { $0.append(task) }
    }

    /// The cross-process download locks, opened on first use; nil for a
    /// read-only cache or when the lock file cannot be opened.
    func downloadLocks() -> DownloadLocks? {
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
