import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Stat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the cache as a whole, or what it holds for given URLs.",
            discussion: """
                Without URLs: entries, size, limits, oldest and newest use, failed URLs and the counters \
                of every process that used the cache. With URLs: one record each; exits 0 only if every \
                URL is cached (7 otherwise), so scripts can test `imgcache stat -q URL`. Never uses the network.
                """)

        @OptionGroup var global: GlobalOptions<Stat>

        @OptionGroup var key: KeyOptions

        @Argument(help: ArgumentHelp("URLs to look up.", valueName: "url"))
        var urls: [String] = []

        func validate() throws {
            try refuseOptionsWithoutEffect()
        }

        func run() async throws {
            let directory = global.resolvedCacheDirectory
            var configuration = try CacheConfiguration.load(fromCacheDirectory: directory.root)
            configuration.remoteStorage = global.remote.resolved(configured: configuration.remoteStorage)
            if urls.isEmpty {
                StatReport.printSummary(CacheSummary.read(directory), directory: directory, configuration: configuration,
                                        json: global.json)
                return
            }
            let policy = key.policy
            let registry = FailedURLRegistry(directory: directory, timeToLive: configuration.failedTTL)
            var missing = 0
            for url in urls {
                let key = policy.key(for: url)
                let lookup = DiskCache.peek(directory: directory, key: key)
                if lookup == nil { missing += 1 }
                if !global.quiet || global.json {
                    StatReport.printEntry(url: url, key: key, entry: lookup, failure: registry.record(for: key), json: global.json)
                }
            }
            try ExitStatus.exit(missing == 0 ? 0 : ExitStatus.code(for: .notCached))
        }
    }
}
