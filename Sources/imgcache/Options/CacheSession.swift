import ArgumentParser
import ImageCore

/// Opens the cache for a subcommand: reads `imgcache.conf`, applies the
/// command-line overrides, and builds the manager. Opening does not touch
/// libcurl; the first download does.
enum CacheSession {
    /// A manager for the cache the global options name, with `configure`'s
    /// changes (the subcommand's options) on top of `imgcache.conf`. A cache
    /// that cannot be opened (unwritable, unreadable settings) is reported in
    /// one line and ends the command with exit status 8. With `readOnly`, a
    /// cache that can be read but not written is used without storing (`fetch`).
    static func open(
        _ global: GlobalOptions<some GlobalOptionsHelp>, readOnly: Bool = false, appliesOrientation: Bool = true,
        colourSpace: ColourSpace = .original,
        configure: (inout ImageManager.Configuration) -> Void = { _ in }
    ) throws -> ImageManager {
        SignalTrap.ignoreFileSizeLimitSignal()
        let directory = global.resolvedCacheDirectory
        do {
            var configuration = try ImageManager.Configuration.reading(directory)
            configuration.cache.remoteStorage = global.remote.resolved(configured: configuration.cache.remoteStorage)
            configuration.events = global.events
            configuration.allowsReadOnlyCache = readOnly
            configure(&configuration)
            return try ImageManager(
                configuration: configuration, appliesOrientation: appliesOrientation, colourSpace: colourSpace)
        } catch let error as ImageCoreError {
            StandardStreams.printError("imgcache: cache \(directory.root): \(error.message)")
            throw ExitCode(ExitStatus.code(for: error.kind))
        }
    }
}
