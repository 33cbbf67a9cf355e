/// The facade (SDWebImageManager): looks an image up in the memory cache,
/// then the disk cache, then remote storage, then the network; verifies and
/// stores what it downloads; remembers URLs that failed for good.
///
/// `load` reads as the data path over the steps of `Pipeline/`, each a type
/// owning its state: `Lookup` (memory, disk, freshness, counters),
/// `NetworkFetch` (locks shared with other processes, loads in flight,
/// remote storage, the loader, revalidation, retries), `Store` (disk,
/// remote upload, trimming) and `Renderer` (decode, scale, encode,
/// variants). The manager assembles them and holds nothing a step owns.
///
/// Thread safety: `load` may be called from any task, concurrently; loads of
/// the same key share one download.
public final class ImageManager: Sendable {
    let configuration: Configuration
    /// Counters for this process; the caller flushes them with `finish()`.
    public let statistics = Statistics()
    /// Why downloads are not stored: the cache is not writable, or could
    /// not be set up (see `Configuration.allowsReadOnlyCache`); nil for a
    /// writable cache, or one not to be written (`writesCache`).
    public let readOnlyReason: ImageCoreError?
    /// Whether this manager writes its cache (neither read-only nor `--no-store`).
    let writesCache: Bool
    let lookup: Lookup
    let network: NetworkFetch
    let store: Store
    let renderer: Renderer
    let placeholders: PlaceholderStore
    let limits: RunLimits

    /// A manager over `configuration.directory`, created if missing. The
    /// network stack is set up only when the first download needs it, unless
    /// `loader` supplies one.
    public init(configuration: Configuration, decoder: any ImageDecoding, loader: (any DataLoading)? = nil) throws {
        let directory = configuration.directory
        var placement: RecordPlacement?
        var madeEmpty = false
        var readOnly: ImageCoreError?
        if !configuration.writesCache {
        } else if let reason = directory.readOnlyReason() {
            guard configuration.allowsReadOnlyCache else { throw ImageCoreError(.cacheIO, "not writable: \(reason)") }
            readOnly = ImageCoreError(.cacheIO, "the cache is not writable (\(reason))")
        } else {
            do {
                let prepared = try directory.prepared()
                placement = prepared.placement
                madeEmpty = prepared.madeEmpty
            } catch {
                // A cache that cannot be set up (a full disk, an unwritable
                // shard) still serves what it holds, and downloads still reach the caller.
                guard configuration.allowsReadOnlyCache else { throw error }
                let cause = (error as? ImageCoreError)?.message ?? "\(error)"
                readOnly = ImageCoreError(.cacheIO, "the cache cannot be written (\(cause))")
            }
        }
        readOnlyReason = readOnly
        writesCache = placement != nil
        // A cache not written gets its downloads in a private directory under $TMPDIR, removed at the end.
        let downloadDirectory = writesCache ? directory.temporary : try POSIXFile.makeScratchDirectory()
        self.configuration = configuration
        let events = configuration.events
        let disk = DiskCache(
            directory: directory, placement: placement ?? directory.recordPlacement(), writes: writesCache,
            statistics: statistics, events: events, madeEmpty: madeEmpty)
        limits = RunLimits(limits: configuration.limits, decoder: decoder)
        lookup = Lookup(
            memory: MemoryCache(costLimit: configuration.cache.memoryLimit), disk: disk, limits: limits,
            statistics: statistics, events: events, clock: configuration.clock)
        // HTTP remotes share the origin's loader (one multi handle, reused connections).
        let loader = loader ?? OnDemandLoader(settings: configuration.downloaderSettings(writingTo: downloadDirectory))
        let remote =
            configuration.cache.remoteStorage.isEmpty
            ? nil
            : RemoteCache(
                configuration.cache.remoteStorage, statistics: statistics, events: events,
                warnings: configuration.warnings, network: loader, aws: configuration.aws,
                clock: configuration.clock)
        store = Store(
            disk: disk, remote: remote, maxSize: configuration.cache.maxSize, statistics: statistics, events: events)
        network = NetworkFetch(
            disk: disk, store: store, verify: Verification(decoder: decoder), limits: limits, remote: remote,
            loader: loader,
            failedURLs: FailedURLRegistry(directory: directory, timeToLive: configuration.cache.failedTTL),
            statistics: statistics, events: events, writableCache: writesCache ? directory : nil,
            cookieJar: configuration.cookieJar, scratchDirectory: writesCache ? nil : downloadDirectory,
            clock: configuration.clock)
        renderer = Renderer(disk: disk, decoder: decoder, limits: configuration.limits, events: events)
        placeholders = PlaceholderStore(disk: disk, limits: configuration.limits)
    }

    /// The cache key for a URL under this manager's policy.
    public func key(for url: String) -> CacheKey {
        configuration.keyPolicy.key(for: url)
    }

    /// Loads one image. Throws `ImageCoreError`.
    public func load(_ asked: ImageRequest) async throws -> ImageResponse {
        try await load(asked, key: key(for: asked.url))
    }

    /// `load`, with the URL's key already made (`key(for:)` normalises and
    /// hashes the URL: 10 k instructions, which a prefetch pays once a URL).
    func load(_ asked: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        var request = asked
        if !writesCache { request.storesToDisk = false }
        request.download = configuration.withConfiguredTimeouts(request.download)
        var response = try await fetch(request, key: key)
        if asked.storesToDisk, let readOnlyReason, [.downloaded, .revalidated, .remote].contains(response.source) {
            response.notStored = readOnlyReason
        }
        try limits.judge(response, request)
        var rendition = try await renderer.render(response, request)
        if request.wantsPlaceholder {
            let (found, asked) = (rendition.response, request)
            rendition.response.placeholder = try await runInBackground { try self.placeholder(of: found, asked) }
        }
        lookup.remember(rendition, request)
        return rendition.response
    }

    /// `response`'s placeholders: kept with its entry (computed and kept
    /// there the first time, where the request may store), else computed
    /// from its bytes. Blocks while decoding.
    func placeholder(of response: ImageResponse, _ request: ImageRequest) throws -> ImagePlaceholder {
        guard let entry = response.entry else {
            return try PlaceholderStore.compute(response.bytes, limits: configuration.limits)
        }
        return try placeholders.placeholder(
            of: entry, key: response.key, bytes: response.bytes,
            keeping: request.storesToDisk && readOnlyReason == nil)
    }

    /// The image's bytes and facts, from the first place that has them:
    /// memory, disk, then (once) the network, shared by concurrent callers.
    private func fetch(_ request: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        switch try lookup.look(request, key: key, .decides) {
        case .hit(let response):
            return response
        case .hitThenRevalidate(let response, let stale):
            network.revalidateInBackground(request, key: key, stale: stale)
            return response
        case .stale(let stale):
            return try await network.load(request, key: key, stale: stale)
        case .miss, .undecided:
            return try await network.load(request, key: key, stale: nil)
        case .unreadable(let failure):
            // A miss: the download replaces the entry that cannot be read.
            do {
                var response = try await network.load(request, key: key, stale: nil)
                response.notRead = failure
                return response
            } catch let error as ImageCoreError {
                throw error.noting("the cached copy could not be read: \(failure.message)")
            }
        }
    }

    /// Ends a run: waits for background revalidations and remote uploads; if
    /// this run stored entries and `max-size` is set, trims the cache back
    /// under it (least recently used first; skipped if a clean is already
    /// running), then adds this process's counters to the cache's totals.
    /// Call once at the end.
    public func finish() async throws {
        await network.finish()
        guard writesCache else { return }
        store.finish()
        try statistics.flush(to: configuration.directory)
    }

    /// Deletes `url`'s entry from every writable remote storage (`purge --remote`):
    /// per storage (masked), whether it held one, or why deleting failed.
    public func removeFromRemoteStorage(
        _ url: String
    ) async -> [(storage: String, outcome: Result<Bool, ImageCoreError>)] {
        await network.remote?.remove(key(for: url)) ?? []
    }

    /// Cancels every download in flight (SIGINT); their loads, and any later
    /// load that would need the network, fail with `.interrupted`.
    public func cancelAll() {
        network.cancelAll()
    }
}
