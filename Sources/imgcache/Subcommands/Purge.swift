import ArgumentParser
import ImageCore

extension IMGCacheCommand {
    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Remove given URLs, or empty the cache (--all), or forget the failed-URL list (--failed).",
            usage: "imgcache purge [options] (<url> ... | --all | --failed)",
            discussion: """
                With URLs: removes their entries and failed records, printing "removed URL" or "not cached: URL" \
                for each (unless -q). --all empties the cache: every entry, the failed-URL list and the counters. \
                --failed forgets the failed-URL list (with URLs, only their failed records). With none of these, \
                purge is a usage error (exit 64) and removes nothing, so a script whose $URL is empty cannot wipe \
                a shared cache.
                """)

        @OptionGroup var global: GlobalOptions<Purge>

        @Flag(help: "Empty the whole cache: entries, failed-URL list and counters.")
        var all = false

        @Flag(help: "Forget only the failed-URL list (or, with URLs, only their failed records).")
        var failed = false

        @Flag(
            help: ArgumentHelp(
                "Also delete the given URLs from the writable remote storages ('removed URL' and 'not cached: URL' "
                    + "speak of the local cache: "
                    + "-v or --json says what each store held; a store's failure is one line, 'imgcache: URL: STORE: "
                    + "cause', and exit 3)."))
        var remote = false

        @OptionGroup var key: KeyOptions

        @Argument(help: ArgumentHelp("URLs to remove.", valueName: "url"))
        var urls: [String] = []

        mutating func validate() throws {
            URLOperands.restore(&urls)
            if urls.isEmpty && !all && !failed {
                throw ValidationError("give URLs, --all or --failed; nothing was removed")
            }
            // A typo in a cron purge must not pass as "not cached", exit 0.
            try validateURLs(urls)
            if all && !urls.isEmpty { throw ValidationError("--all removes everything; give URLs or --all, not both") }
            if all && failed { throw ValidationError("--all already forgets the failed-URL list; drop --failed") }
            try refuseOptionsWithoutEffect()
            if remote && urls.isEmpty {
                throw ValidationError("--remote needs URLs: a remote storage cannot be listed")
            }
        }

        func run() async throws {
            let directory = try CacheSession.directory(global, writing: true)
            let settings = try CacheSession.settings(directory, quiet: global.quiet)
            if remote, !global.remote.resolved(configured: settings.remoteStorage).contains(where: { !$0.readOnly }) {
                // Known only once imgcache.conf is read, so refused here rather than in validate().
                UsageError.exit(
                    subcommand: "purge", message: "--remote has no effect: no writable remote storage is configured")
            }
            let cache = CacheAdministration(directory: directory, keyPolicy: key.policy)
            try await reportingFailures(in: cache.directory) {
                guard !urls.isEmpty else {
                    try all ? cache.purgeEverything() : cache.purgeFailedList()
                    return printPurged(cache.directory)
                }
                try cache.purge(urls, failedRecordOnly: failed, removed: printRemoved)
                if remote { try await RemotePurge.run(urls, global: global, keyPolicy: key.policy) }
            }
        }

        private func printPurged(_ directory: CacheDirectory) {
            if global.json {
                var record = JSONRecord()
                record.add("cache_dir", directory.root)
                record.add("purged", all ? "all" : "failed")
                StandardStreams.print(record.text)
            } else if !global.quiet {
                StandardStreams.printError(
                    "imgcache: \(all ? "cache emptied" : "failed-URL list forgotten"): \(directory.root)")
            }
        }

        private func printRemoved(_ given: String, _ outcome: CacheAdministration.PurgeOutcome) {
            let url = URLUserInfo.shown(given)
            if global.json {
                var record = JSONRecord()
                record.add("url", url)
                record.add("key", outcome.key.hash)
                record.add("removed", outcome.removedAnything)
                record.add("entry_removed", outcome.entryRemoved)
                record.add("failed_record_removed", outcome.failedRecordRemoved)
                StandardStreams.print(record.text)
            } else if !global.quiet {
                let removed = outcome.removedAnything
                StandardStreams.print(
                    removed ? "removed \(url)" : failed ? "not on the failed list: \(url)" : "not cached: \(url)")
            }
        }
    }
}
