import ArgumentParser
import ImageCore

/// Opens the cache for a subcommand: reads `imgcache.conf`, applies the
/// command-line overrides, and builds the manager. Opening does not touch
/// libcurl; the first download does.
enum CacheSession {
    /// A manager for the cache the global options name. A cache that cannot
    /// be opened (unwritable, unreadable settings) is reported in one line
    /// and ends the command with exit status 8. With `readOnly`, a cache
    /// that can be read but not written is used without storing (`fetch`).
    static func open(
        _ global: GlobalOptions<some GlobalOptionsHelp>, readOnly: Bool = false, keyPolicy: CacheKeyPolicy = .exactURL,
        cookieJar: String? = nil,
        concurrency: Int = 6, maxPerHost: Int = 6, order: Downloader.Order = .fifo,
        memoryLimit: Int? = nil, appliesOrientation: Bool = true,
        limits: DecodingLimits = .default
    ) throws -> ImageManager {
        SignalTrap.ignoreFileSizeLimitSignal()
        let directory = global.resolvedCacheDirectory
        do {
            return try makeManager(
                directory, global: global, readOnly: readOnly, keyPolicy: keyPolicy, cookieJar: cookieJar,
                concurrency: concurrency, maxPerHost: maxPerHost, order: order,
                memoryLimit: memoryLimit, appliesOrientation: appliesOrientation, limits: limits)
        } catch let error as ImageCoreError {
            StandardStreams.printError("imgcache: cache \(directory.root): \(error.message)")
            throw ExitCode(ExitStatus.code(for: error.kind))
        }
    }

    private static func makeManager(
        _ directory: CacheDirectory, global: GlobalOptions<some GlobalOptionsHelp>, readOnly: Bool,
        keyPolicy: CacheKeyPolicy,
        cookieJar: String?, concurrency: Int, maxPerHost: Int, order: Downloader.Order,
        memoryLimit: Int?, appliesOrientation: Bool,
        limits: DecodingLimits
    ) throws -> ImageManager {
        var configuration = try ImageManager.Configuration.reading(directory)
        configuration.cache.remoteStorage = global.remote.resolved(configured: configuration.cache.remoteStorage)
        if let memoryLimit { configuration.cache.memoryLimit = memoryLimit }
        configuration.keyPolicy = keyPolicy
        configuration.cookieJar = cookieJar.map(Environment.absolutePath)
        configuration.maxConcurrentDownloads = concurrency
        configuration.maxConnectionsPerHost = maxPerHost
        configuration.order = order
        configuration.events = global.events
        configuration.limits = limits
        configuration.allowsReadOnlyCache = readOnly
        return try ImageManager(configuration: configuration, appliesOrientation: appliesOrientation)
    }
}
