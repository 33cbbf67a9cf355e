import Synchronization

/// Step 2, the network: one download per key across processes (a lock per
/// key shared through the cache directory), then remote storage, then the
/// origin. Runs once per key however many callers wait (`InflightLoads`).
extension ImageManager {
    /// What the network step produces before rendition.
    struct Fetched: Sendable {
        var info: ImageInfo
        var bytes: [UInt8]
        var stored: CachedData?
        /// `.downloaded`, `.revalidated`, `.remote`, or `.disk` when another process downloaded it meanwhile.
        var source: ImageResponse.Source
    }

    /// Fetches, verifies and (unless asked not to) stores one image; with a
    /// `stale` entry, asks the origin with its validators first and keeps its
    /// bytes on 304 Not Modified.
    func fetchFromNetwork(_ request: ImageRequest, key: CacheKey, stale: CachedData?) async throws -> Fetched {
        let locks = downloadLocks()
        var locked = locks?.tryLock(key.hash) ?? false
        if let locks, !locked, stale == nil, request.storesToDisk {
            if let cached = try await waitForOtherProcess(locks, request, key: key) {
                return storedElsewhere(cached, request)
            }
            locked = locks.tryLock(key.hash)
        }
        defer { if locked { locks?.unlock(key.hash) } }
        // Another process may have stored it between our lookup and our
        // taking the lock (it downloads, stores, then unlocks): look again.
        // Found absent under the lock, it stays absent until we store it.
        var absent = false
        if locked, stale == nil, request.storesToDisk, !request.refresh {
            let cached = try disk.lookup(key)
            if let cached, CachePolicy.decide(cached.entry, for: request, now: WallClock.now()) == .serve {
                return storedElsewhere(cached, request)
            }
            absent = cached == nil
        }
        var stale = stale
        if let remote, stale == nil || !request.refresh {
            switch try await lookUpRemote(remote, request, key: key) {
            case .served(let fetched): return fetched
            case .lendsValidators(let local):
                stale = local
                absent = false
            case .none: break
            }
        }
        return try await fetchFromOrigin(request, key: key, stale: stale, absent: absent)
    }

    /// The origin's answer: a 304 merged into the stale entry, or a new body
    /// verified and stored.
    /// `absent`: no entry is stored (checked under the download lock).
    private func fetchFromOrigin(
        _ request: ImageRequest, key: CacheKey, stale: CachedData?, absent: Bool
    ) async throws -> Fetched {
        let downloaded = try await downloadRetrying(
            download(for: request, key: key, stale: stale),
            retries: request.retries)
        // Defers run last first: the body is removed (if not stored) while
        // its lock still holds, then the lock goes.
        defer { downloaded.bodyLock?.release() }
        var consumed = false
        defer { if !consumed { _ = try? POSIXFile.remove(downloaded.bodyPath) } }
        if downloaded.status == 304 { return try merge(notModified: downloaded, into: stale, request, key: key) }
        guard let bytes = try downloaded.body ?? POSIXFile.read(downloaded.bodyPath) else {
            throw ImageCoreError(.cacheIO, "downloaded body vanished from \(downloaded.bodyPath)")
        }
        statistics.add(.downloads)
        statistics.add(.bytesDownloaded, bytes.count)
        let info = try await verify(bytes)
        let stored = try store(downloaded, bytes: bytes, info: info, request, key: key, replacing: !absent)
        consumed = stored != nil
        return Fetched(info: info, bytes: bytes, stored: stored, source: .downloaded)
    }

    /// Waits while another process downloads this key; returns the entry it
    /// stored if that is as good as our own download would be, else nil.
    private func waitForOtherProcess(
        _ locks: DownloadLocks, _ request: ImageRequest,
        key: CacheKey
    ) async throws -> CachedData? {
        let deadline = WallClock.monotonic() + request.download.timeout
        let waitStarted = WallClock.now()
        while locks.isHeldElsewhere(key.hash) && WallClock.monotonic() < deadline {
            try await pause(0.02)
        }
        // An entry stored while we waited is as fresh as our own download would be.
        guard let cached = try disk.lookup(key) else { return nil }
        let decision = CachePolicy.decide(cached.entry, for: request, now: WallClock.now())
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

    /// The cross-process download locks, opened on first use (a warm hit never opens them).
    private func downloadLocks() -> DownloadLocks? {
        crossProcessLocks.withLock { locks in
            if locks == nil && readOnlyReason == nil { locks = DownloadLocks(directory: configuration.directory.root) }
            return locks
        }
    }

    /// The downloader, created on first use.
    func network() throws -> any DataLoading {
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
}
