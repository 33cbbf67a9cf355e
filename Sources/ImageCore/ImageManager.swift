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
        /// Most connections to one host.
        public var maxConnectionsPerHost = 6
        /// Start order among equal priorities.
        public var order = Downloader.Order.fifo
        /// Cookie file for every download.
        public var cookieJar: String?
        /// Where `--verbose` events go.
        public var events = EventLog.silent
        /// Whether a cache this process can read but not write is still
        /// used (as `fetch` does): hits are served, downloads go to a private
        /// scratch directory and are not stored. Otherwise opening it fails.
        public var allowsReadOnlyCache = false

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

    /// What the network step produces before decoding.
    private struct Fetched: Sendable {
        var info: ImageInfo
        var bytes: [UInt8]
        var stored: CachedData?
        /// `.downloaded`, `.revalidated`, or `.disk` when another process downloaded it meanwhile.
        var source: ImageResponse.Source
    }

    private let configuration: Configuration
    /// Counters for this process; the caller flushes them with `finish()`.
    public let statistics = Statistics()
    private let memory: MemoryCache<String, Remembered>
    private let disk: DiskCache
    private let failedURLs: FailedURLRegistry
    let decoder: any ImageDecoding
    private let inflight = InflightLoads<Fetched>()
    private let loader: Mutex<(any DataLoading)?>
    private let storedEntries = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)
    /// Bytes stored since the last trim to `max-size`.
    private let bytesSinceTrim = Atomic<Int>(0)
    private let events: EventLog
    /// Per-key locks shared with other processes; see `downloadLocks()`.
    private let crossProcessLocks = Mutex<DownloadLocks?>(nil)
    /// Revalidations started under `stale-while-revalidate`.
    private let backgroundWork = Mutex<[Task<Void, Never>]>([])
    /// Why downloads are not stored: the cache is not writable (see
    /// `Configuration.allowsReadOnlyCache`); nil for a writable cache.
    public let readOnlyReason: ImageCoreError?
    /// Where downloads are written: the cache's tmp/, or a private scratch
    /// directory when the cache is read-only.
    private let downloadDirectory: String
    /// The shared stores asked after the disk and before the origin; nil when none is configured.
    private let remote: RemoteCache?

    /// A manager over `configuration.directory`, created if missing. The
    /// network stack is set up only when the first download needs it, unless
    /// `loader` supplies one.
    public init(configuration: Configuration, decoder: any ImageDecoding, loader: (any DataLoading)? = nil) throws {
        if let reason = configuration.directory.readOnlyReason() {
            guard configuration.allowsReadOnlyCache else { throw ImageCoreError(.cacheIO, "not writable: \(reason)") }
            readOnlyReason = ImageCoreError(.cacheIO, "written, but not cached: the cache is not writable (\(reason))")
            downloadDirectory = try POSIXFile.makeScratchDirectory()
        } else {
            try configuration.directory.prepare()
            readOnlyReason = nil
            downloadDirectory = configuration.directory.temporary
        }
        self.configuration = configuration
        self.decoder = decoder
        self.loader = Mutex(loader)
        events = configuration.events
        memory = MemoryCache(costLimit: configuration.cache.memoryLimit)
        disk = DiskCache(directory: configuration.directory, statistics: statistics, events: configuration.events)
        failedURLs = FailedURLRegistry(directory: configuration.directory, timeToLive: configuration.cache.failedTTL)
        let network = NetworkHandle()
        remote = configuration.cache.remoteStorage.isEmpty ? nil
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
        return try await load(request, key: key(for: request.url))
    }

    private func load(_ request: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        if !request.refresh, let remembered = memory.value(for: key.string) {
            statistics.add(.memoryHits)
            events.emit("served from memory: \(request.url)")
            var response = remembered.response
            response.source = .memory
            return try await withPixels(response, request)
        }
        var stale: CachedData?
        if let cached = try disk.lookup(key) {
            switch CachePolicy.decide(cached.entry, for: request, now: WallClock.now()) {
            case .serve:
                statistics.add(.diskHits)
                events.emit("served from disk: \(request.url)")
                return try await withPixels(diskResponse(cached, request, key), request)
            case .serveThenRevalidate:
                statistics.add(.diskHits)
                events.emit("served stale from disk, revalidating: \(request.url)")
                revalidateInBackground(request, key: key, stale: cached)
                return try await withPixels(diskResponse(cached, request, key), request)
            case .refuse(let why):
                throw ImageCoreError(.notCached, why)
            case .revalidate:
                stale = cached
            case .mismatch:
                events.emit("cached for other request headers (Vary): \(request.url)")
                statistics.add(.misses)
            }
        } else {
            statistics.add(.misses)
        }
        guard request.network == .allowed else {
            throw ImageCoreError(.notCached, "not in the cache (offline)")
        }
        let requestDigest = FailedURLRegistry.requestDigest(request.download,
                                                            cookies: configuration.cookieJar.flatMap { try? POSIXFile.read($0, limit: 1 << 20) })
        if !request.retriesFailed, let failure = failedURLs.record(for: key, requestDigest: requestDigest) {
            throw ImageCoreError(.failedBefore,
                                 "failed before (\(failure.message), \(HTTPDate.iso8601(failure.failedAt))); use --retry-failed to try again")
        }
        if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
        let fetched: Fetched
        let joined: Bool
        do {
            (fetched, joined) = try await inflight.run(key.string) { [self, stale] in
                try await fetchFromNetwork(request, key: key, stale: stale)
            }
        } catch let error as ImageCoreError {
            if let stale, error.isTransient, CachePolicy.servesStaleOnError(stale.entry, for: request, now: WallClock.now()) {
                statistics.add(.diskHits)
                events.emit("served stale from disk after an error: \(request.url): \(error.message)")
                return try await withPixels(diskResponse(stale, request, key), request)
            }
            if error.kind != .interrupted { statistics.add(.failures) }
            if !error.isTransient && [.http, .image].contains(error.kind) {
                try? failedURLs.add(key, requestDigest: requestDigest, url: request.url, error: error)
                // The origin no longer serves what the stale entry holds.
                if stale != nil { _ = try? disk.remove(key) }
            }
            throw error
        }
        if request.retriesFailed { _ = try? failedURLs.remove(key, requestDigest: requestDigest) }
        // A caller that joined another's download got it without a transfer
        // of its own: from this process's memory, as far as it can tell.
        let response = ImageResponse(url: request.url, key: key, source: joined ? .memory : fetched.source,
                                     info: fetched.info, bytes: fetched.bytes, entry: fetched.stored?.entry,
                                     path: fetched.stored?.path)
        return try await withPixels(response, request)
    }

    private func diskResponse(_ cached: CachedData, _ request: ImageRequest, _ key: CacheKey) -> ImageResponse {
        ImageResponse(url: request.url, key: key, source: .disk, info: cached.entry.info, bytes: cached.bytes,
                      entry: cached.entry, path: cached.path)
    }

    /// Revalidates a stale entry served under `stale-while-revalidate`;
    /// `finish()` waits for it, so the process does not exit mid-request.
    private func revalidateInBackground(_ request: ImageRequest, key: CacheKey, stale: CachedData) {
        let task = Task { [self] in
            _ = try? await inflight.run(key.string) { [self] in
                try await fetchFromNetwork(request, key: key, stale: stale)
            }
        }
        backgroundWork.withLock { $0.append(task) }
    }

    /// Ends a run: waits for background revalidations; if this run stored
    /// entries and `max-size` is set, trims
    /// the cache back under it (least recently used first; skipped if a
    /// clean is already running), then adds this process's counters to the
    /// cache's totals. Call once at the end.
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
        if let encoding = request.encoding {
            let format = encoding.resolved(for: response.info.format)
            if let name = request.variantName, let entry = response.entry,
               let bytes = disk.variant(of: entry, key: response.key, transform: name) {
                events.emit("variant from disk (\(name)): \(request.url)")
                response.encoded = (bytes, format)
                return response
            }
            response = try await decoded(response, request)
            guard let image = response.image else { throw ImageCoreError(.failure, "no pixels to encode") }
            let quality = request.quality
            let bytes = try await runInBackground { try encode(image, as: format, quality: quality) }
            response.encoded = (bytes, format)
            events.emit("encoded as \(format.rawValue) (\(bytes.count) bytes): \(request.url)")
            if let name = request.variantName, let entry = response.entry, request.storesToDisk {
                do {
                    try disk.storeVariant(bytes, transform: name, fileExtension: format.fileExtension, of: entry,
                                          key: response.key)
                } catch {
                    events.emit("variant not kept: \(request.url): \(error)")
                }
            }
            return response
        }
        return try await decoded(response, request)
    }

    /// Decodes pixels if the request wants them and the response lacks them,
    /// and remembers the result in memory.
    private func decoded(_ response: ImageResponse, _ request: ImageRequest) async throws -> ImageResponse {
        var response = response
        let partial = request.frame != nil || request.scale != nil
        let needsDecoding = (request.decodesPixels || request.encoding != nil) && (response.image == nil || partial)
        if needsDecoding {
            let bytes = response.bytes
            let decoder = self.decoder
            let (frame, scale) = (request.frame, request.scale)
            let image = try await runInBackground { try decoder.decode(bytes, frame: frame, scale: scale) }
            if scale != nil { events.emit("scaled to \(image.width)×\(image.height): \(request.url)") }
            response.image = image
        }
        if response.source != .memory || needsDecoding {
            // A picked frame or a thumbnail is not the whole image: keep the full one only.
            var remembered = response
            if partial { remembered.image = nil }
            let evicted = memory.set(Remembered(response: remembered), for: response.key.string,
                                     cost: Remembered(response: remembered).cost)
            if evicted > 0 { events.emit("evicted \(evicted) image(s) from memory") }
        }
        return response
    }

    /// Downloads, verifies and (unless asked not to) stores one image; with
    /// a `stale` entry, asks the server with its validators first and keeps
    /// its bytes on 304 Not Modified.
    private func fetchFromNetwork(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> Fetched {
        var stale = stale
        let locks = downloadLocks()
        var locked = locks?.tryLock(key.hash) ?? false
        if let locks, !locked, stale == nil, request.storesToDisk {
            // Another process is downloading this URL: wait for its entry.
            let deadline = WallClock.monotonic() + request.download.timeout
            let waitStarted = WallClock.now()
            while locks.isHeldElsewhere(key.hash) && WallClock.monotonic() < deadline {
                try await pause(0.02)
            }
            // An entry stored while we waited is as fresh as our own download would be.
            if let cached = try disk.lookup(key),
               case let decision = CachePolicy.decide(cached.entry, for: request, now: WallClock.now()),
               decision == .serve || (decision != .mismatch && !request.refresh && cached.entry.storedAt >= waitStarted - 1) {
                return storedElsewhere(cached, request)
            }
            locked = locks.tryLock(key.hash)
        }
        defer { if locked { locks?.unlock(key.hash) } }
        // Another process may have stored it between our lookup and our
        // taking the lock (it downloads, stores, then unlocks): look again.
        if locked, stale == nil, request.storesToDisk, !request.refresh, let cached = try disk.lookup(key),
           CachePolicy.decide(cached.entry, for: request, now: WallClock.now()) == .serve {
            return storedElsewhere(cached, request)
        }
        if let remote, stale == nil || !request.refresh,
           let hit = await remote.lookup(key, url: request.url, maxBytes: request.download.maxBytes,
                                         inspect: { [decoder] in try decoder.inspect($0) }) {
            let decision = CachePolicy.decide(hit.entry, for: request, now: WallClock.now())
            var local: CachedData?
            if decision != .mismatch && request.storesToDisk {
                local = try disk.store(hit.bytes, temporaryPath: nil, key: key, url: request.url, info: hit.info,
                                       response: hit.entry.response)
                storedEntries.add(1, ordering: .relaxed)  // counts for the trim to max-size in finish()
            }
            if decision == .serve && !request.refresh {
                events.emit("served from remote storage \(hit.storage): \(request.url)")
                return Fetched(info: hit.info, bytes: hit.bytes, stored: local, source: .remote)
            }
            // A stale remote entry lends its validators: the origin answers 304.
            if let local { stale = local }
        }
        var download = request.download
        if readOnlyReason == nil { download.resumableBodyPath = configuration.directory.partialPath(key.hash) }
        if let entry = stale?.entry {
            if let etag = entry.etag { download.headers.append(HTTPHeader(name: "If-None-Match", value: etag)) }
            if let modified = entry.lastModified {
                download.headers.append(HTTPHeader(name: "If-Modified-Since", value: modified))
            }
        }
        let downloaded = try await downloadRetrying(download, retries: request.retries)
        var consumed = false
        defer { if !consumed { _ = try? POSIXFile.remove(downloaded.bodyPath) } }
        if downloaded.status == 304 {
            guard let stale else {
                throw ImageCoreError(.http, "HTTP 304 Not Modified to a request that was not conditional", httpStatus: 304)
            }
            statistics.add(.revalidations)
            let response = stale.entry.response.updated(by: downloaded.headers, request: request.download,
                                                        requestTime: downloaded.requestTime,
                                                        responseTime: downloaded.responseTime)
            let entry = request.storesToDisk ? try disk.update(stale.entry, key: key, response: response) : stale.entry
            events.emit("revalidated (304 Not Modified): \(request.url)")
            remote?.upload(entry, bytes: stale.bytes, key: key, url: request.url)
            return Fetched(info: entry.info, bytes: stale.bytes,
                           stored: CachedData(entry: entry, bytes: stale.bytes, path: stale.path), source: .revalidated)
        }
        guard let bytes = try POSIXFile.read(downloaded.bodyPath) else {
            throw ImageCoreError(.cacheIO, "downloaded body vanished from \(downloaded.bodyPath)")
        }
        statistics.add(.downloads)
        statistics.add(.bytesDownloaded, bytes.count)
        let info = try decoder.inspect(bytes)
        guard request.storesToDisk else { return Fetched(info: info, bytes: bytes, stored: nil, source: .downloaded) }
        if CacheControl(downloaded.headers["cache-control"]).noStore {
            // The server forbids keeping it; an older copy is outdated too.
            _ = try? disk.remove(key)
            events.emit("not stored (Cache-Control: no-store): \(request.url)")
            return Fetched(info: info, bytes: bytes, stored: nil, source: .downloaded)
        }
        let response = StoredResponse(headers: downloaded.headers, request: request.download,
                                      requestTime: downloaded.requestTime, responseTime: downloaded.responseTime)
        let stored = try disk.store(bytes, temporaryPath: downloaded.bodyPath, key: key, url: request.url, info: info,
                                    response: response)
        consumed = true
        storedEntries.add(1, ordering: .relaxed)
        remote?.upload(stored.entry, bytes: bytes, key: key, url: request.url)
        if let maxSize = configuration.cache.maxSize,
           bytesSinceTrim.add(bytes.count, ordering: .relaxed).newValue > maxSize / 10 {
            trimToMaxSize()
        }
        events.emit("stored: \(request.url) (\(info.format.rawValue) \(info.width)×\(info.height), \(bytes.count) bytes)")
        return Fetched(info: info, bytes: bytes, stored: stored, source: .downloaded)
    }

    /// An entry another process downloaded while this one was about to.
    private func storedElsewhere(_ cached: CachedData, _ request: ImageRequest) -> Fetched {
        events.emit("downloaded by another process: \(request.url)")
        statistics.add(.diskHits)
        return Fetched(info: cached.entry.info, bytes: cached.bytes, stored: cached, source: .disk)
    }

    /// Downloads, retrying transient failures (network errors, 408, 429,
    /// 5xx) after an exponential backoff with jitter, or after the server's
    /// Retry-After when it gave one and it is not too long.
    private func downloadRetrying(_ download: DownloadRequest, retries: Int) async throws -> DownloadResponse {
        var attempt = 0
        while true {
            do {
                return try await network().download(download)
            } catch let error as ImageCoreError where error.isTransient && attempt < retries {
                let delay = RetryDelay.seconds(attempt: attempt, retryAfter: error.retryAfter)
                guard delay <= RetryDelay.longestWait else { throw error }
                attempt += 1
                events.emit("\(download.url): \(error.message); retry \(attempt) of \(retries) in \(Quantities.formatDuration((delay * 10).rounded() / 10))")
                try await pause(delay)
            }
        }
    }

    /// Sleeps, waking early with `.interrupted` on `cancelAll()`.
    private func pause(_ seconds: Double) async throws {
        let end = WallClock.monotonic() + seconds
        while WallClock.monotonic() < end {
            if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
            try? await Task.sleep(for: .milliseconds(Int(min(50, (end - WallClock.monotonic()) * 1000) + 1)))
        }
        if cancelled.load(ordering: .relaxed) { throw ImageCoreError(.interrupted, "interrupted") }
    }

    /// The cross-process download locks, opened on first use (a warm hit never opens them).
    private func downloadLocks() -> DownloadLocks? {
        crossProcessLocks.withLock { locks in
            if locks == nil && readOnlyReason == nil { locks = DownloadLocks(directory: configuration.directory.root) }
            return locks
        }
    }

    /// The downloader, created on first use.
    private func network() throws -> any DataLoading {
        try loader.withLock { loader in
            if let loader { return loader }
            var settings = Downloader.Configuration(temporaryDirectory: downloadDirectory)
            settings.maxConcurrentDownloads = configuration.maxConcurrentDownloads
            settings.maxConnectionsPerHost = configuration.maxConnectionsPerHost
            settings.order = configuration.order
            settings.cookieJar = configuration.cookieJar
            settings.events = configuration.events
            let created = try Downloader(configuration: settings)
            loader = created
            return created
        }
    }

    /// Deletes `url`'s entry from every writable remote storage (`purge --remote`):
    /// per storage (masked), whether it held one, or why deleting failed.
    public func removeFromRemoteStorage(_ url: String) async -> [(storage: String, outcome: Result<Bool, ImageCoreError>)] {
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
