/// The entry point for looking after a cache directory without loading
/// images (`stat`, `clean` and `purge`): it assembles the disk cache, the
/// failed-URL registry and the counters so a caller does not have to. Safe
/// to use while other processes use the same directory.
package struct CacheAdministration: Sendable {
    /// What the cache holds for one URL.
    package struct EntryStatus: Sendable {
        /// The URL's cache key.
        package var key: CacheKey
        /// The whole entry, if one is stored.
        package var entry: CacheEntry?
        /// The unexpired failed-URL record, if any.
        package var failure: FailedURLRegistry.Record?
    }

    /// What `purge` removed for one URL.
    package struct PurgeOutcome: Sendable {
        /// The URL's cache key.
        package var key: CacheKey
        package var entryRemoved: Bool
        package var failedRecordRemoved: Bool
        /// Whether anything was removed.
        package var removedAnything: Bool { entryRemoved || failedRecordRemoved }
    }

    /// The directory looked after.
    package let directory: CacheDirectory
    private let keyPolicy: CacheKeyPolicy

    /// Administration of `directory`, whose URLs map to keys by `keyPolicy`.
    package init(directory: CacheDirectory, keyPolicy: CacheKeyPolicy = .exactURL) {
        self.directory = directory
        self.keyPolicy = keyPolicy
    }

    /// The settings in the directory's `imgcache.conf` (defaults if none).
    package func configuration() throws -> CacheConfiguration {
        try CacheConfiguration.load(fromCacheDirectory: directory.root)
    }

    /// Entries, size, oldest and newest use, failed URLs and the counters of
    /// every process (file metadata only).
    package func summary() -> CacheSummary {
        CacheSummary.read(directory)
    }

    /// What is cached for `url`, read without changing anything; failed
    /// records count for `configuration.failedTTL`.
    package func entry(for url: String, configuration: CacheConfiguration) -> EntryStatus {
        let key = keyPolicy.key(for: url)
        let registry = FailedURLRegistry(directory: directory, timeToLive: configuration.failedTTL)
        return EntryStatus(
            key: key, entry: DiskCache.peek(directory: directory, key: key),
            failure: registry.record(for: key))
    }

    /// The placeholders of `status`'s entry (`stat --placeholder`): read
    /// back, or computed from its file and kept with it where the cache is
    /// writable. Throws `.image` or `.cacheIO`; `status` must have an entry.
    package func placeholder(of status: EntryStatus, limits: DecodingLimits = .default) throws -> ImagePlaceholder {
        guard let entry = status.entry else { throw ImageCoreError(.notCached, "not cached") }
        let disk = DiskCache(
            directory: directory, placement: directory.recordPlacement(), statistics: Statistics(), events: .silent)
        return try PlaceholderStore(disk: disk, limits: limits).placeholder(
            of: entry, key: status.key, keeping: directory.readOnlyReason() == nil)
    }

    /// Creates the directory if needed, removes entries unused for longer
    /// than `maxAge`, then the least recently used down to `maxSize` (nil:
    /// the limits in `imgcache.conf`; `maxSize` `.some(nil)`: no size limit,
    /// whatever the file says), and counts the evictions in the directory's
    /// statistics. Does nothing if another clean is running.
    package func clean(
        maxAge: Double?, maxSize: Int??, dryRun: Bool,
        events: EventLog = .silent
    ) throws -> CacheCleaner.Report {
        try directory.prepare()
        let configuration = try configuration()
        let cleaner = CacheCleaner(directory: directory, events: events)
        let report = try cleaner.clean(
            maxAge: maxAge ?? configuration.maxAge,
            maxSize: maxSize ?? configuration.maxSize, dryRun: dryRun, waitForLock: false)
        if !dryRun && !report.skippedBecauseBusy {
            let statistics = Statistics()
            statistics.add(.evictions, report.expiredEntries + report.evictedEntries)
            try? statistics.flush(to: directory)
        }
        return report
    }

    /// Empties the cache: every entry, the failed-URL list and the counters.
    package func purgeEverything() throws {
        try directory.prepare()
        try CachePurger(directory: directory).purgeEverything()
    }

    /// Forgets the failed-URL list.
    package func purgeFailedList() throws {
        try directory.prepare()
        try CachePurger(directory: directory).purgeFailedList()
    }

    /// Removes each URL's entry (unless `failedRecordOnly`) and its failed
    /// record, telling `removed` what went for each in turn.
    package func purge(_ urls: [String], failedRecordOnly: Bool, removed: (String, PurgeOutcome) -> Void) throws {
        try directory.prepare()
        let disk = DiskCache(directory: directory, statistics: Statistics())
        let registry = FailedURLRegistry(directory: directory, timeToLive: 0)
        for url in urls {
            let key = keyPolicy.key(for: url)
            let entryRemoved = failedRecordOnly ? false : try disk.remove(key)
            let failedRecordRemoved = try registry.remove(key)
            removed(url, PurgeOutcome(key: key, entryRemoved: entryRemoved, failedRecordRemoved: failedRecordRemoved))
        }
    }
}
