extension ImageManager {
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
        public var maxConcurrentDownloads = Defaults.concurrentDownloads
        /// Most connections to one host; nil: `imgcache.conf`'s
        /// `max-per-host`, else `maxConcurrentDownloads`.
        public var maxConnectionsPerHost: Int?
        /// The whole run's download rate in bytes per second (`--limit-rate`);
        /// nil: `imgcache.conf`'s `limit-rate`, else no limit.
        public var maxBytesPerSecond: Int?
        /// New requests per host (`--rate`); nil: `imgcache.conf`'s `rate`, else no limit.
        public var requestRate: RequestRate?
        /// Start order among equal priorities.
        public var order = Downloader.Order.fifo
        /// Cookie file for every download.
        public var cookieJar: String?
        /// Where `--verbose` events go.
        public var events = EventLog.silent
        /// Where warnings go (a remote storage refusing writes): stderr unless `-q`.
        public var warnings = EventLog.silent
        /// How S3 is reached and signed, for `s3://` URLs and S3 remote
        /// storage (whose `|endpoint=` and `|region=` override it).
        public var aws = AWSSettings()
        /// Whether a cache this process can read but not write is still
        /// used (as `fetch` does): hits are served, downloads go to a private
        /// scratch directory and are not stored. Otherwise opening it fails.
        public var allowsReadOnlyCache = false
        /// Whether this manager writes the cache at all. False (`fetch
        /// --no-store`): not a file of the cache directory is created or
        /// changed; hits are served (their last use not recorded), downloads
        /// go to a private scratch directory, failures are not remembered
        /// and counters are not kept.
        public var writesCache = true
        /// The clocks and sleep of the steps that judge freshness, wait,
        /// back off or hold leases; tests give a `TestClock`.
        var clock: any TimeSource = SystemClock()

        /// A configuration for a cache in `directory`.
        public init(directory: CacheDirectory) {
            self.directory = directory
        }
    }
}

extension ImageManager.Configuration {
    /// The downloader's settings under this configuration, its bodies written in `directory`.
    func downloaderSettings(writingTo directory: String) -> Downloader.Configuration {
        var settings = Downloader.Configuration(temporaryDirectory: directory)
        settings.maxConcurrentDownloads = maxConcurrentDownloads
        settings.maxConnectionsPerHost = maxConnectionsPerHost ?? cache.maxPerHost ?? maxConcurrentDownloads
        settings.maxBytesPerSecond = maxBytesPerSecond ?? cache.limitRate
        settings.requestRate = requestRate ?? cache.rate
        settings.order = order
        settings.cookieJar = cookieJar
        settings.events = events
        settings.aws = aws
        return settings
    }
}

extension ImageManager.Configuration {
    /// `request` with the timeouts and the signing (`aws-sigv4`) it leaves
    /// open taken from `imgcache.conf` (the flags of the same names override the file).
    func withConfiguredTimeouts(_ request: DownloadRequest) -> DownloadRequest {
        var request = request
        // Only what the request leaves unset is set: a change copies the
        // fields its copies share (`DownloadRequest.uniqueStorage`).
        if request.awsSigV4 == nil, let awsSigV4 = cache.awsSigV4 { request.awsSigV4 = awsSigV4 }
        if request.timeout == nil, let timeout = cache.timeout { request.timeout = timeout }
        if request.connectTimeout == nil, let connectTimeout = cache.connectTimeout {
            request.connectTimeout = connectTimeout
        }
        if request.maxTime == nil, let maxTime = cache.maxTime { request.maxTime = maxTime }
        return request
    }
}
