import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty the cache, or remove given URLs, or forget the failed-URL list.",
            discussion: "Without arguments: removes every entry, the failed-URL list and the counters.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Forget only the failed-URL list (or, with URLs, only their failed records).")
        var failed = false

        @OptionGroup var key: KeyOptions

        @Argument(help: ArgumentHelp("URLs to remove.", valueName: "url"))
        var urls: [String] = []

        func run() async throws {
            let directory = global.resolvedCacheDirectory
            do {
                try directory.prepare()
                let purger = CachePurger(directory: directory)
                if urls.isEmpty {
                    try failed ? purger.purgeFailedList() : purger.purgeEverything()
                    if !global.quiet {
                        StandardStreams.printError("imgcache: \(failed ? "failed-URL list forgotten" : "cache emptied"): \(directory.root)")
                    }
                    return
                }
                let policy = key.policy
                let disk = DiskCache(directory: directory, statistics: Statistics())
                let registry = FailedURLRegistry(directory: directory, timeToLive: 0)
                for url in urls {
                    let key = policy.key(for: url)
                    let removedEntry = failed ? false : try disk.remove(key)
                    let removedFailure = try registry.remove(key)
                    if global.json {
                        var record = JSONRecord()
                        record.add("url", url)
                        record.add("key", key.hash)
                        record.add("removed", removedEntry || removedFailure ? "yes" : "no")
                        StandardStreams.print(record.text)
                    } else if global.verbose {
                        StandardStreams.printError("imgcache: \(url): \(removedEntry || removedFailure ? "removed" : "was not cached")")
                    }
                }
            } catch {
                let failure = coreError(error)
                StandardStreams.printError("imgcache: \(directory.root): \(failure.message)")
                try ExitStatus.exit(ExitStatus.code(for: failure.kind))
            }
        }
    }
}
