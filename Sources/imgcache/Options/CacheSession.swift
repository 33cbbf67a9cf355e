import ImageCore

/// Opens the cache for a subcommand: reads `imgcache.conf`, applies the
/// command-line overrides, and builds the manager. Opening does not touch
/// libcurl; the first download does.
enum CacheSession {
    /// A manager for the cache the global options name.
    static func open(_ global: GlobalOptions, keyPolicy: CacheKeyPolicy = .exactURL, cookieJar: String? = nil,
                     concurrency: Int = 6, maxPerHost: Int = 6, order: Downloader.Order = .fifo,
                     memoryLimit: Int? = nil, appliesOrientation: Bool = true,
                     limits: DecodingLimits = .default) throws -> ImageManager {
        let directory = global.resolvedCacheDirectory
        var configuration = ImageManager.Configuration(directory: directory)
        configuration.cache = try CacheConfiguration.load(fromCacheDirectory: directory.root)
        if let memoryLimit { configuration.cache.memoryLimit = memoryLimit }
        configuration.keyPolicy = keyPolicy
        configuration.cookieJar = cookieJar.map(Environment.absolutePath)
        configuration.maxConcurrentDownloads = concurrency
        configuration.maxConnectionsPerHost = maxPerHost
        configuration.order = order
        configuration.events = global.events
        configuration.limits = limits
        return try ImageManager(configuration: configuration, decoder: ImageDecoder(limits: configuration.limits, appliesOrientation: appliesOrientation))
    }
}
