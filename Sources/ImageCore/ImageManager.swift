import Synchronization

/// The facade (SDWebImageManager): looks an image up in the memory cache,
/// then the disk cache, then the network; verifies and stores what it
/// downloads; remembers URLs that failed for good.
///
/// Thread safety: `load` may be called from any task, concurrently; loads of
/// the same key share one download.
public final class ImageManager: Sendable {
    /// Everything the manager is built from.
    public struct Configuration: Sendable {
        /// The disk cache's directory.
        public var directory: CacheDirectory
        /// Settings shared with other processes (flags may override them).
        public var cache = CacheConfiguration()
        /// How URLs become cache keys.
        public var keyPolicy = CacheKeyPolicy.exactURL
        /// Decoder limits.
        public var limits = DecodingLimits.default
        /// Download concurrency and order.
        public var maxConcurrentDownloads = 6
        /// Start order among equal priorities.
        public var order = Downloader.Order.fifo
        /// Cookie file for every download.
        public var cookieJar: String?
        /// Where `--verbose` events go.
        public var events = EventLog.silent

        /// A configuration for a cache in `directory`.
        public init(directory: CacheDirectory) {
            self.directory = directory
        }
    }

    /// What the memory cache holds per key.
    private struct Remembered: Sendable {
        var response: ImageResponse
        var cost: Int { response.bytes.count + (response.image?.cost ?? 0) }
    }

    /// What a download produces before decoding.
    private struct Fetched: Sendable {
        var info: ImageInfo
        var bytes: [UInt8]
        var stored: CachedData?
    }

    private let configuration: Configuration
    /// Counters for this process; the caller flushes them with `finish()`.
    public let statistics = Statistics()
    private let memory: MemoryCache<String, Remembered>
    private let disk: DiskCache
    private let failedURLs: FailedURLRegistry
    private let decoder: any ImageDecoding
    private let inflight = InflightLoads<Fetched>()
    private let loader: Mutex<(any DataLoading)?>
    private let storedEntries = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    /// Bytes stored since the last trim to `max-size`.
    private let bytesSinceTrim = Atomic<Int>(0)
    private let events: EventLog

    /// A manager over `configuration.directory`, created if missing. The
    /// network stack is set up only when the first download needs it, unless
    /// `loader` supplies one.
    public init(configuration: Configuration, decoder: any ImageDecoding, loader: (any DataLoading)? = nil) throws {
        try configuration.directory.prepare()
        self.configuration = configuration
        self.decoder = decoder
        self.loader = Mutex(loader)
        events = configuration.events
        memory = MemoryCache(costLimit: configuration.cache.memoryLimit)
        disk = DiskCache(directory: configuration.directory, statistics: statistics, events: configuration.events)
        failedURLs = FailedURLRegistry(directory: configuration.directory, timeToLive: configuration.cache.failedTTL)
    }

    /// The cache key for a URL under this manager's policy.
    public func key(for url: String) -> CacheKey {
        configuration.keyPolicy.key(for: url)
    }

    /// Loads one image. Throws `ImageCoreError`.
    public func load(_ request: ImageRequest) async throws -> ImageResponse {
        let key = key(for: request.url)
        if let remembered = memory.value(for: key.string) {
            statistics.add(.memoryHits)
            events.emit("served from memory: \(request.url)")
            var response = remembered.response
            response.source = .memory
            return try await withPixels(response, request)
        }
        if let cached = try disk.lookup(key) {
            statistics.add(.diskHits)
            events.emit("served from disk: \(request.url)")
            let response = ImageResponse(url: request.url, key: key, source: .disk, info: cached.entry.info,
                                         bytes: cached.bytes, entry: cached.entry, path: cached.path)
            return try await withPixels(response, request)
        }
        statistics.add(.misses)
        guard request.network == .allowed else {
            throw ImageCoreError(.notCached, "not in the cache (offline)")
        }
        if !request.retriesFailed, let failure = failedURLs.record(for: key) {
            throw ImageCoreError(.failedBefore,
                                 "failed before (\(failure.message), \(HTTPDate.iso8601(failure.failedAt))); use --retry-failed to try again")
        }
        if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
        let fetched: Fetched
        let joined: Bool
        do {
            (fetched, joined) = try await inflight.run(key.string) { [self] in
                try await downloadAndStore(request, key: key)
            }
        } catch let error as ImageCoreError {
            if error.kind != .interrupted { statistics.add(.failures) }
            if !error.isTransient && [.http, .image].contains(error.kind) {
                try? failedURLs.add(key, url: request.url, error: error)
            }
            throw error
        }
        if request.retriesFailed { _ = try? failedURLs.remove(key) }
        // A caller that joined another's download got it without a transfer
        // of its own: from this process's memory, as far as it can tell.
        let response = ImageResponse(url: request.url, key: key, source: joined ? .memory : .downloaded, info: fetched.info,
                                     bytes: fetched.bytes, entry: fetched.stored?.entry, path: fetched.stored?.path)
        return try await withPixels(response, request)
    }

    /// Ends a run: if this run stored entries and `max-size` is set, trims
    /// the cache back under it (least recently used first; skipped if a
    /// clean is already running), then adds this process's counters to the
    /// cache's totals. Call once at the end.
    public func finish() throws {
        if storedEntries.load(ordering: .relaxed) > 0 { trimToMaxSize() }
        try statistics.flush(to: configuration.directory)
    }

    /// Evicts least recently used entries until the cache fits `max-size`.
    /// A long run trims whenever it has stored a tenth of the limit, so the
    /// cache never grows far past it between cron cleans.
    private func trimToMaxSize() {
        guard let maxSize = configuration.cache.maxSize else { return }
        bytesSinceTrim.store(0, ordering: .relaxed)
        let cleaner = CacheCleaner(directory: configuration.directory, events: events)
        if let report = try? cleaner.clean(maxAge: nil, maxSize: maxSize, waitForLock: false) {
            statistics.add(.evictions, report.evictedEntries)
        }
    }

    /// Decodes pixels if the request wants them and the response lacks them,
    /// and remembers the result in memory.
    private func withPixels(_ response: ImageResponse, _ request: ImageRequest) async throws -> ImageResponse {
        var response = response
        let needsDecoding = request.decodesPixels && (response.image == nil || request.frame != nil)
        if needsDecoding {
            let bytes = response.bytes
            let decoder = self.decoder
            let frame = request.frame
            let image = try await runInBackground { try decoder.decode(bytes, frame: frame) }
            response.image = image
        }
        if response.source != .memory || needsDecoding {
            // A single picked frame is not the whole image: keep the full one only.
            var remembered = response
            if request.frame != nil { remembered.image = nil }
            let evicted = memory.set(Remembered(response: remembered), for: response.key.string,
                                     cost: Remembered(response: remembered).cost)
            if evicted > 0 { events.emit("evicted \(evicted) image(s) from memory") }
        }
        return response
    }

    /// Downloads, verifies and (unless asked not to) stores one image.
    private func downloadAndStore(_ request: ImageRequest, key: CacheKey) async throws -> Fetched {
        let downloaded = try await network().download(request.download)
        var consumed = false
        defer { if !consumed { _ = try? POSIXFile.remove(downloaded.bodyPath) } }
        guard let bytes = try POSIXFile.read(downloaded.bodyPath) else {
            throw ImageCoreError(.cacheIO, "downloaded body vanished from \(downloaded.bodyPath)")
        }
        statistics.add(.downloads)
        statistics.add(.bytesDownloaded, bytes.count)
        let info = try decoder.inspect(bytes)
        guard request.storesToDisk else { return Fetched(info: info, bytes: bytes, stored: nil) }
        let validators = HTTPValidators(headers: downloaded.headers, responseTime: downloaded.responseTime)
        let stored = try disk.store(bytes, temporaryPath: downloaded.bodyPath, key: key, url: request.url, info: info,
                                    validators: validators)
        consumed = true
        storedEntries.add(1, ordering: .relaxed)
        if let maxSize = configuration.cache.maxSize,
           bytesSinceTrim.add(bytes.count, ordering: .relaxed).newValue > maxSize / 10 {
            trimToMaxSize()
        }
        events.emit("stored: \(request.url) (\(info.format.rawValue) \(info.width)×\(info.height), \(bytes.count) bytes)")
        return Fetched(info: info, bytes: bytes, stored: stored)
    }

    /// The downloader, created on first use.
    private func network() throws -> any DataLoading {
        try loader.withLock { loader in
            if let loader { return loader }
            var settings = Downloader.Configuration(temporaryDirectory: configuration.directory.temporary)
            settings.maxConcurrentDownloads = configuration.maxConcurrentDownloads
            settings.order = configuration.order
            settings.cookieJar = configuration.cookieJar
            settings.events = configuration.events
            let created = try Downloader(configuration: settings)
            loader = created
            return created
        }
    }

    /// Cancels every download in flight (SIGINT); their loads, and any later
    /// load that would need the network, fail with `.interrupted`.
    public func cancelAll() {
        cancelled.store(true, ordering: .relaxed)
        let current = loader.withLock { $0 }
        (current as? Downloader)?.cancelAll()
    }
}
