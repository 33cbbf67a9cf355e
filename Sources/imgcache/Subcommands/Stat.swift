import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Stat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stat",
            abstract: "Show the cache as a whole, or what it holds for given URLs.",
            discussion: """
                Without URLs: entries, size, limits, oldest and newest use, failed URLs and the counters \
                of every process that used the cache. With URLs: one record each; exits 0 only if every \
                URL is cached (7 otherwise), so scripts can test `imgcache stat -q URL`. Never uses the network.
                """)

        @OptionGroup var global: GlobalOptions<Stat>

        @OptionGroup var key: KeyOptions

        @Flag(
            help: ArgumentHelp(
                "With --json and URLs: add thumbhash, blurhash and dominant_color to each record (computed once from a 100-pixel decode and kept with the entry)."
            ))
        var placeholder = false

        @Argument(help: ArgumentHelp("URLs to look up.", valueName: "url"))
        var urls: [String] = []

        mutating func validate() throws {
            URLOperands.restore(&urls)
            // A typo is a usage error, not "not cached".
            try validateURLs(urls)
            try refuseOptionsWithoutEffect()
        }

        func run() async throws {
            let directory = try CacheSession.directory(global, writing: false)
            let cache = CacheAdministration(directory: directory, keyPolicy: key.policy)
            var configuration = try CacheSession.settings(directory, quiet: global.quiet)
            configuration.remoteStorage = global.remote.resolved(configured: configuration.remoteStorage)
            if urls.isEmpty {
                StatReport.printSummary(
                    cache.summary(), directory: cache.directory, configuration: configuration, json: global.json)
                return
            }
            var missing = 0
            for url in urls {
                let status = cache.entry(for: url, configuration: configuration)
                if status.entry == nil { missing += 1 }
                var placeholder: ImagePlaceholder?
                if self.placeholder, status.entry != nil {
                    do {
                        placeholder = try cache.placeholder(of: status)
                    } catch {
                        let message = (error as? ImageCoreError)?.message ?? "\(error)"
                        StandardStreams.printError("imgcache: \(URLUserInfo.shown(url)): placeholder: \(message)")
                    }
                }
                if !global.quiet || global.json {
                    StatReport.printEntry(url: url, status, placeholder: placeholder, json: global.json)
                }
            }
            try ExitStatus.exit(missing == 0 ? 0 : ExitStatus.code(for: .notCached))
        }
    }
}
