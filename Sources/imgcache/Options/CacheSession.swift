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
        _ global: GlobalOptions<some GlobalOptionsHelp>, readOnly: Bool = false,
        configure: (inout ImageManager.Configuration) -> Void = { _ in }
    ) throws -> ImageManager {
        try open(
            cacheDirectory: global.cacheDirectory, quiet: global.quiet, events: global.events,
            remoteStorage: { global.remote.resolved(configured: $0) }, readOnly: readOnly, configure: configure)
    }

    /// `open` for the global options' values, read by the parser or by a
    /// plan (`PrefetchPlan`); `remoteStorage` resolves the stores as
    /// `RemoteStorageOptions.resolved` does.
    static func open(
        cacheDirectory: String?, quiet: Bool, events: EventLog,
        remoteStorage: ([RemoteStorageURL]) -> [RemoteStorageURL], readOnly: Bool = false,
        configure: (inout ImageManager.Configuration) -> Void = { _ in }
    ) throws -> ImageManager {
        SignalTrap.ignoreFileSizeLimitSignal()
        let directory = try Self.directory(named: cacheDirectory, writing: !readOnly)
        var configuration = ImageManager.Configuration(directory: directory)
        configuration.cache = try settings(directory, quiet: quiet)
        if !quiet { configuration.warnings = EventLog { StandardStreams.printError("imgcache: \($0)") } }
        // Not on the warm hit's path (`manager`): a hit signs nothing.
        configuration.aws = AWSSettings(environment: Environment.variables) { try? POSIXFile.read($0, limit: 1 << 20) }
        do {
            return try manager(
                configuration, events: events, remoteStorage: remoteStorage, readOnly: readOnly, configure: configure)
        } catch let error as ImageCoreError {
            StandardStreams.printError("imgcache: cache \(directory.root): \(error.message)")
            throw ExitCode(ExitStatus.code(for: error.kind))
        }
    }

    /// The cache directory the global options name, checked the same way by
    /// every subcommand: one that is not a directory, cannot be read, or
    /// (with `writing`) cannot be written ends the command with
    /// `imgcache: cache DIR: cause` and exit status 8.
    static func directory(_ global: GlobalOptions<some GlobalOptionsHelp>, writing: Bool) throws -> CacheDirectory {
        try directory(named: global.cacheDirectory, writing: writing)
    }

    /// `directory` for `--cache-dir`'s value (nil: the default directory).
    static func directory(named path: String?, writing: Bool) throws -> CacheDirectory {
        guard let directory = GlobalOptions<IMGCacheCommand.Prefetch>.cacheDirectory(named: path) else {
            StandardStreams.printError(
                "imgcache: no cache directory: HOME is unset and the password database has no home for this user "
                    + "(give --cache-dir or set IMGCACHE_DIR)")
            throw ExitCode(ExitStatus.code(for: .cacheIO))
        }
        if let problem = directory.problem(writing: writing) {
            StandardStreams.printError("imgcache: cache \(directory.root): \(problem.message)")
            throw ExitCode(ExitStatus.code(for: problem.kind))
        }
        return directory
    }

    /// The cache's `imgcache.conf`, reported the same way by every
    /// subcommand: an unknown key is a one-line warning (unless `quiet`)
    /// and the command goes on; a bad value is `imgcache: PATH:LINE: …`
    /// and exit status 64; a file that cannot be read is exit 8.
    static func settings(_ directory: CacheDirectory, quiet: Bool) throws -> CacheConfiguration {
        do {
            let settings = try CacheConfiguration.load(fromCacheDirectory: directory.root)
            if !quiet { for warning in settings.warnings { StandardStreams.printError("imgcache: \(warning)") } }
            return settings
        } catch let error as ImageCoreError {
            let place = error.kind == .usage ? "" : "cache \(directory.root): "
            StandardStreams.printError("imgcache: \(place)\(error.message)")
            throw ExitCode(ExitStatus.code(for: error.kind))
        }
    }

    /// The manager over `configuration` (the cache's directory and its
    /// `imgcache.conf`), its remote storages as `remoteStorage` resolves
    /// them, then `configure`'s changes: what `open` builds, and the warm
    /// hit too. Throws `ImageCoreError`.
    static func manager(
        _ configuration: ImageManager.Configuration, events: EventLog,
        remoteStorage: ([RemoteStorageURL]) -> [RemoteStorageURL], readOnly: Bool = false,
        configure: (inout ImageManager.Configuration) -> Void = { _ in }
    ) throws -> ImageManager {
        var configuration = configuration
        configuration.cache.remoteStorage = remoteStorage(configuration.cache.remoteStorage)
        configuration.events = events
        configuration.allowsReadOnlyCache = readOnly
        configure(&configuration)
        return try ImageManager(configuration: configuration)
    }
}
