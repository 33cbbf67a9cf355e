/// Step 3, store: a verified download written to the disk cache (and
/// uploaded to remote storage), the cache trimmed to `max-size`, and the
/// response remembered in memory.
extension ImageManager {
    /// What the memory cache holds per key.
    struct Remembered: Sendable {
        var response: ImageResponse
        /// The bytes and pixels held, and a little for the entry itself, so
        /// that many small images still fill the cache's limit.
        var cost: Int { response.bytes.count + (response.image?.cost ?? 0) + 512 }
    }

    /// Stores a verified download unless the request or the server forbids
    /// it (`--no-store`, `Cache-Control: no-store`); nil when not stored.
    /// Moves the downloaded file into the cache; `replacing` says whether an
    /// older entry may be there to remove.
    func store(
        _ downloaded: DownloadResponse, bytes: [UInt8], info: ImageInfo, _ request: ImageRequest,
        key: CacheKey, replacing: Bool = true
    ) throws -> CachedData? {
        guard request.storesToDisk else { return nil }
        if CacheControl(downloaded.headers["cache-control"]).noStore {
            // The server forbids keeping it; an older copy is outdated too.
            _ = try? disk.remove(key)
            events.emit("not stored (Cache-Control: no-store): \(request.url)")
            return nil
        }
        let response = StoredResponse(
            headers: downloaded.headers, request: request.download,
            requestTime: downloaded.requestTime, responseTime: downloaded.responseTime)
        guard
            let stored = try disk.storeIfRecordFits(
                bytes, temporaryPath: downloaded.bodyPath, key: key, url: request.url, info: info,
                response: response, replacing: replacing)
        else { return nil }
        storedEntries.add(1, ordering: .relaxed)
        remote?.upload(stored.entry, bytes: bytes, key: key, url: request.url)
        if let maxSize = configuration.cache.maxSize,
            bytesSinceTrim.add(bytes.count, ordering: .relaxed).newValue > maxSize / 10
        {
            trimToMaxSize()
        }
        events.emit(
            "stored: \(request.url) (\(info.format.rawValue) \(info.width)×\(info.height), \(bytes.count) bytes)")
        return stored
    }

    /// Evicts least recently used entries until the cache fits `max-size`.
    /// A long run trims whenever it has stored a tenth of the limit, so the
    /// cache never grows far past it between cron cleans.
    func trimToMaxSize() {
        guard let maxSize = configuration.cache.maxSize else { return }
        bytesSinceTrim.store(0, ordering: .relaxed)
        let cleaner = CacheCleaner(directory: configuration.directory, events: events)
        if let report = try? cleaner.clean(maxAge: nil, maxSize: maxSize, waitForLock: false) {
            statistics.add(.evictions, report.evictedEntries)
        }
    }

    /// Keeps a rendition's response in the memory cache when it is new to
    /// this process or was just decoded (not when a stored variant answered).
    /// A picked frame or a thumbnail is not the whole image, so only the
    /// full decode is kept; encoded bytes are not kept.
    func remember(_ rendition: Rendition, _ request: ImageRequest) {
        let response = rendition.response
        guard !rendition.fromStoredVariant, response.source != .memory || rendition.decoded else { return }
        let partial = request.frame != nil || request.scale != nil
        var remembered = response
        remembered.encoded = nil
        if partial { remembered.image = nil }
        let evicted = memory.set(
            Remembered(response: remembered), for: response.key.string,
            cost: Remembered(response: remembered).cost)
        if evicted > 0 { events.emit("evicted \(evicted) image(s) from memory") }
    }
}
