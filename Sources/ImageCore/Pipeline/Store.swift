import Synchronization

/// Step 3, store: a verified download renamed into the disk cache with its
/// record, a remote entry kept locally, a 304's renewed record, each
/// uploaded to remote storage; and the cache trimmed to `max-size`.
///
/// Thread safety: every method may be called from any task concurrently;
/// the counters are atomics and the disk cache is safe across processes.
final class Store: Sendable {
    private let disk: DiskCache
    private let remote: RemoteCache?
    private let maxSize: Int?
    private let statistics: Statistics
    private let events: EventLog
    /// Entries stored by this run: `finish()` trims only after a run that stored some.
    private let storedEntries = Atomic<Int>(0)
    /// Bytes stored since the last trim to `max-size`.
    private let bytesSinceTrim = Atomic<Int>(0)

    init(disk: DiskCache, remote: RemoteCache?, maxSize: Int?, statistics: Statistics, events: EventLog) {
        self.disk = disk
        self.remote = remote
        self.maxSize = maxSize
        self.statistics = statistics
        self.events = events
    }

    /// What storing came to: the entry kept, or why it could not be kept.
    /// Neither: it was not to be kept (`--no-store`, `Cache-Control:
    /// no-store`, a record the file system cannot hold).
    struct Outcome {
        var stored: CachedData?
        var failure: ImageCoreError?
    }

    /// Stores a verified download unless the request or the server forbids
    /// it (`--no-store`, `Cache-Control: no-store`). Moves the downloaded
    /// file into the cache (or writes `bytes`, for a body kept in memory);
    /// `replacing` says whether an older entry may be there to remove. A
    /// cache that cannot be written (full, an I/O error, an unwritable
    /// shard) is the outcome's `failure`, never a thrown error: the caller
    /// delivers the image all the same (man page, EXIT STATUS).
    func store(
        _ downloaded: DownloadResponse, bytes: [UInt8], info: ImageInfo, _ request: ImageRequest,
        key: CacheKey, replacing: Bool = true
    ) -> Outcome {
        guard request.storesToDisk else { return Outcome() }
        if CacheControl(downloaded.headers[.cacheControl]).noStore {
            // The server forbids keeping it; an older copy is outdated too.
            _ = try? disk.remove(key)
            events.emit("not stored (Cache-Control: no-store): \(request.url)")
            return Outcome()
        }
        let response = StoredResponse(
            headers: downloaded.headers, request: request.download,
            requestTime: downloaded.requestTime, responseTime: downloaded.responseTime)
        let stored: CachedData
        do {
            guard
                let kept = try disk.storeIfRecordFits(
                    bytes, temporaryPath: downloaded.bodyPath.isEmpty ? nil : downloaded.bodyPath, key: key,
                    url: request.url, info: info, response: response, replacing: replacing)
            else { return Outcome() }
            stored = kept
        } catch {
            return Outcome(failure: notStored(error, request))
        }
        storedEntries.add(1, ordering: .relaxed)
        remote?.upload(stored.entry, bytes: bytes, key: key, url: request.url)
        if let maxSize, bytesSinceTrim.add(bytes.count, ordering: .relaxed).newValue > maxSize / 10 {
            trimToMaxSize()
        }
        events.emit(
            "stored: \(request.url) (\(info.format.rawValue) \(info.width)×\(info.height), \(bytes.count) bytes)")
        return Outcome(stored: stored)
    }

    /// Keeps a verified remote entry locally (not uploaded back); neither
    /// stored nor failed when its record does not fit the file system.
    func keep(_ hit: RemoteCache.Hit, _ request: ImageRequest, key: CacheKey) -> Outcome {
        do {
            let local = try disk.storeIfRecordFits(
                hit.bytes, temporaryPath: nil, key: key, url: request.url, info: hit.info,
                response: hit.entry.response)
            // Counts for the trim to max-size in finish().
            if local != nil { storedEntries.add(1, ordering: .relaxed) }
            return Outcome(stored: local)
        } catch {
            return Outcome(failure: notStored(error, request))
        }
    }

    /// A 304 Not Modified's renewal of `stale`: its record updated from
    /// `response` (unless `--no-store`) and uploaded to remote storage. A
    /// record that cannot be rewritten leaves the stale one, and the
    /// outcome's `failure` says why.
    func renew(
        _ stale: CachedData, with response: StoredResponse, _ request: ImageRequest, key: CacheKey
    ) -> (renewed: CachedData, failure: ImageCoreError?) {
        var entry = stale.entry
        var failure: ImageCoreError?
        if request.storesToDisk {
            do {
                entry = try disk.update(stale.entry, key: key, response: response)
            } catch {
                failure = notStored(error, request)
            }
        }
        remote?.upload(entry, bytes: stale.bytes, key: key, url: request.url)
        return (CachedData(entry: entry, bytes: stale.bytes, path: stale.path), failure)
    }

    /// A store that failed, as the `.cacheIO` error a response carries (`-v` says it too).
    private func notStored(_ error: any Error, _ request: ImageRequest) -> ImageCoreError {
        let failure = error as? ImageCoreError ?? ImageCoreError(.cacheIO, "\(error)")
        events.emit("not stored: \(request.url): \(failure.message)")
        return ImageCoreError(.cacheIO, failure.message)
    }

    /// At the end of a run: trims to `max-size` if this run stored anything.
    func finish() {
        if storedEntries.load(ordering: .relaxed) > 0 { trimToMaxSize() }
    }

    /// Evicts least recently used entries until the cache fits `max-size`.
    /// A long run trims whenever it has stored a tenth of the limit, so the
    /// cache never grows far past it between cron cleans.
    private func trimToMaxSize() {
        guard let maxSize else { return }
        bytesSinceTrim.store(0, ordering: .relaxed)
        let cleaner = CacheCleaner(directory: disk.directory, events: events)
        if let report = try? cleaner.clean(maxAge: nil, maxSize: maxSize, waitForLock: false) {
            statistics.add(.evictions, report.evictedEntries)
        }
    }
}
