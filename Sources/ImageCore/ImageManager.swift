import Synchronization

/// The facade (SDWebImageManager): looks an image up in the memory cache,
/// then the disk cache, then remote storage, then the network; verifies and
/// stores what it downloads; remembers URLs that failed for good.
///
/// `load` reads as the data path. Each step lives in its own file under
/// `Pipeline/`: lookup (memory, disk, freshness), the network step (locks
/// shared with other processes, remote storage, the origin), revalidation
/// (conditional requests, 304 merge, retries), verification, store (disk,
/// memory, trimming) and rendition (decode, scale, encode, variants).
///
/// Thread safety: `load` may be called from any task, concurrently; loads of
/// the same key share one download.
public final class ImageManager: Sendable {
    let configuration: Configuration
    /// Counters for this process; the caller flushes them with `finish()`.
    public let statistics = Statistics()
    let memory: MemoryCache<String, Remembered>
    let disk: DiskCache
    let failedURLs: FailedURLRegistry
    let decoder: any ImageDecoding
    let inflight = InflightLoads<Fetched>()
    let loader: Mutex<(any DataLoading)?>
    let storedEntries = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    /// Bytes stored since the last trim to `max-size`.
    let bytesSinceTrim = Atomic<Int>(0)
    let events: EventLog
    /// Per-key locks shared with other processes; see `downloadLocks()`.
    let crossProcessLocks = Mutex<DownloadLocks?>(nil)
    /// Revalidations started under `stale-while-revalidate`.
    let backgroundWork = Mutex<[Task<Void, Never>]>([])
    /// Why downloads are not stored: the cache is not writable (see
    /// `Configuration.allowsReadOnlyCache`); nil for a writable cache.
    public let readOnlyReason: ImageCoreError?
    /// Where downloads are written: the cache's tmp/, or a private scratch
    /// directory when the cache is read-only.
    let downloadDirectory: String
    /// The shared stores asked after the disk and before the origin; nil when none is configured.
    let remote: RemoteCache?

    /// A manager over `configuration.directory`, created if missing. The
    /// network stack is set up only when the first download needs it, unless
    /// `loader` supplies one.
    public init(configuration: Configuration, decoder: any ImageDecoding, loader: (any DataLoading)? = nil) throws {
        let placement: RecordPlacement
        if let reason = configuration.directory.readOnlyReason() {
            guard configuration.allowsReadOnlyCache else { throw ImageCoreError(.cacheIO, "not writable: \(reason)") }
            readOnlyReason = ImageCoreError(.cacheIO, "written, but not cached: the cache is not writable (\(reason))")
            downloadDirectory = try POSIXFile.makeScratchDirectory()
            placement = configuration.directory.recordPlacement()
        } else {
            placement = try configuration.directory.prepare()
            readOnlyReason = nil
            downloadDirectory = configuration.directory.temporary
        }
        self.configuration = configuration
        self.decoder = decoder
        self.loader = Mutex(loader)
        events = configuration.events
        memory = MemoryCache(costLimit: configuration.cache.memoryLimit)
        disk = DiskCache(
            directory: configuration.directory, placement: placement, statistics: statistics,
            events: configuration.events)
        failedURLs = FailedURLRegistry(directory: configuration.directory, timeToLive: configuration.cache.failedTTL)
        let network = NetworkHandle()
        remote =
            configuration.cache.remoteStorage.isEmpty
            ? nil
            : RemoteCache(configuration.cache.remoteStorage, statistics: statistics, events: events) { try network() }
        // HTTP remotes share the origin's downloader (one multi handle, reused connections).
        network.attach { [weak self] in
            guard let self else { throw ImageCoreError(.interrupted, "the manager is gone") }
            return try self.network()
        }
    }

    /// The cache key for a URL under this manager's policy.
    public func key(for url: String) -> CacheKey {
        configuration.keyPolicy.key(for: url)
    }

    /// Loads one image. Throws `ImageCoreError`.
    public func load(_ asked: ImageRequest) async throws -> ImageResponse {
        var request = asked
        if readOnlyReason != nil { request.storesToDisk = false }
        let key = key(for: request.url)
        let response = try await fetch(request, key: key)
        try judgeByLimits(response, request)
        let rendition = try await render(response, request)
        remember(rendition, request)
        return rendition.response
    }

    /// `load`'s result when memory or a fresh entry's record answers
    /// `request`, which needs no bytes (a warm `prefetch`), found here on
    /// the caller's thread: a batch of hits then runs no task per URL and
    /// wakes no thread. Nil when `load` must run; a disk miss is marked on
    /// `request`, so that `load` does not look again.
    func answerFromCache(_ request: inout ImageRequest) -> ImageLoadResult? {
        let start = WallClock.monotonic()
        let key = key(for: request.url)
        let response: ImageResponse
        if let remembered = lookUpMemory(request, key: key) {
            response = remembered
        } else {
            switch lookUpRecord(request, key: key) {
            case .hit(let found):
                remember(Rendition(response: found), request)
                response = found
            case .miss:
                request.diskMissed = true
                return nil
            case .stale, nil:
                return nil
            }
        }
        let outcome: Result<ImageResponse, ImageCoreError>
        do {
            try judgeByLimits(response, request)
            outcome = .success(response)
        } catch {
            outcome = .failure(ImageCoreError(reporting: error))
        }
        return ImageLoadResult(url: request.url, outcome: outcome, durationMs: (WallClock.monotonic() - start) * 1000)
    }

    /// The image's bytes and facts, from the first place that has them:
    /// memory, disk, then (once) the network, shared by concurrent callers.
    private func fetch(_ request: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        if let remembered = lookUpMemory(request, key: key) { return remembered }
        var stale: CachedData?
        switch request.diskMissed ? .miss : try lookUpDisk(request, key: key) {
        case .hit(let response): return response
        case .stale(let cached): stale = cached
        case .miss: break
        }
        let requestDigest = try admitToNetwork(request, key: key)
        let fetched: Fetched
        let joined: Bool
        do {
            (fetched, joined) = try await inflight.run(key.string) { [self, stale] in
                try await fetchFromNetwork(request, key: key, stale: stale)
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

    /// Ends a run: waits for background revalidations and remote uploads; if
    /// this run stored entries and `max-size` is set, trims the cache back
    /// under it (least recently used first; skipped if a clean is already
    /// running), then adds this process's counters to the cache's totals.
    /// Call once at the end.
    public func finish() async throws {
        for task in backgroundWork.withLock({ $0 }) { await task.value }
        await remote?.finish()
        (loader.withLock { $0 } as? Downloader)?.close()
        guard readOnlyReason == nil else {
            try? POSIXFile.removeTree(downloadDirectory)
            return
        }
        if storedEntries.load(ordering: .relaxed) > 0 { trimToMaxSize() }
        try statistics.flush(to: configuration.directory)
    }

    /// Deletes `url`'s entry from every writable remote storage (`purge --remote`):
    /// per storage (masked), whether it held one, or why deleting failed.
    public func removeFromRemoteStorage(
        _ url: String
    ) async -> [(storage: String, outcome: Result<Bool, ImageCoreError>)] {
        await remote?.remove(key(for: url)) ?? []
    }

    /// Cancels every download in flight (SIGINT); their loads, and any later
    /// load that would need the network, fail with `.interrupted`.
    public func cancelAll() {
        cancelled.store(true, ordering: .relaxed)
        let current = loader.withLock { $0 }
        (current as? Downloader)?.cancelAll()
    }
}
